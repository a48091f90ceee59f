// Scripted model APIs on 127.0.0.1 for driving the real Claude Code and Codex CLIs (no credentials,
// no network): Anthropic Messages SSE and OpenAI Responses SSE. Each main-loop request (one that
// carries tools) takes the next scripted turn; anything else gets a short text answer.
import { type Server, type ServerResponse, createServer } from "node:http";
import { Arrivals } from "./arrivals.js";
import type { AddressInfo } from "node:net";

export type Block = { text: string } | { tool: string; input: Record<string, unknown> };
/**
 * A scripted main-loop turn: content blocks, an HTTP error, a request that is never answered, or a
 * working loop — the same blocks (after `delayMs`) until a request satisfies `until` (or `max` turns),
 * then the script goes on with that request.
 */
export type ScriptedTurn =
  | { blocks: Block[] /** answered only once this settles (what the test waits for first) */; hold?: Promise<unknown> }
  | { status: number; body: unknown; headers?: Record<string, string> | (() => Record<string, string>) }
  | { hang: true }
  | { loop: Block[]; until: (body: Record<string, unknown>) => boolean; delayMs?: number; max?: number };

/** The names of the tools a Messages request offers the model. */
export const toolNames = (body: Record<string, unknown>): string[] =>
  (Array.isArray(body.tools) ? body.tools : []).map((t) => String((t as { name?: unknown }).name ?? ""));

/** The request's messages as one text (what the model was shown). */
export const requestText = (body: Record<string, unknown>): string => JSON.stringify(body.messages ?? body.input ?? []);

abstract class ScriptedServer {
  readonly bodies: Record<string, unknown>[] = [];
  /** The headers of every POST, in order (what reached the model API: its key among them). */
  readonly headers: Record<string, string | string[] | undefined>[] = [];
  /** Main-loop requests only (those that carry tools), in order. */
  readonly mainBodies: Record<string, unknown>[] = [];
  /** When each main-loop request arrived (epoch ms), in order. */
  readonly mainTimes: number[] = [];
  /** Main-loop requests as they come (await the n-th). */
  readonly arrivals = new Arrivals();
  private readonly hung: ServerResponse[] = [];
  protected server!: Server;
  protected readonly turns: ScriptedTurn[];
  constructor(turns: readonly ScriptedTurn[]) {
    this.turns = [...turns]; // the script is consumed; the caller's array stays intact
  }

  async start(): Promise<this> {
    this.server = createServer((req, res) => {
      let body = "";
      req.on("data", (c: Buffer) => {
        body += c.toString();
      });
      req.on("end", () => {
        if (req.method !== "POST") {
          res.writeHead(200).end();
          return;
        }
        const j = (body ? JSON.parse(body) : {}) as Record<string, unknown>;
        this.bodies.push(j);
        this.headers.push({ ...req.headers });
        const main = Array.isArray(j.tools) && j.tools.length > 0;
        if (main) {
          this.mainBodies.push(j);
          this.mainTimes.push(Date.now());
          this.arrivals.note();
        }
        const turn = this.offeredOnly(j, main ? this.next(j) : { blocks: [{ text: "ok" }] });
        if ("loop" in turn) {
          setTimeout(() => {
            res.writeHead(200, { "content-type": "text/event-stream" });
            this.stream(res, turn.loop, this.bodies.length);
            res.end();
          }, turn.delayMs ?? 0);
          return;
        }
        if ("hang" in turn) {
          this.hung.push(res);
          return;
        }
        if ("status" in turn) {
          res
            .writeHead(turn.status, { "content-type": "application/json", ...(typeof turn.headers === "function" ? turn.headers() : (turn.headers ?? {})) })
            .end(JSON.stringify(turn.body));
          return;
        }
        const n = this.bodies.length;
        const answer = () => {
          res.writeHead(200, { "content-type": "text/event-stream" });
          this.stream(res, turn.blocks, n);
          res.end();
        };
        if (turn.hold) void turn.hold.then(answer, answer);
        else answer();
      });
    });
    await new Promise<void>((r) => this.server.listen(0, "127.0.0.1", r));
    return this;
  }

  private loops = 0;
  private next(body: Record<string, unknown>): ScriptedTurn {
    const head = this.turns[0];
    if (head && "loop" in head) {
      if (!head.until(body) && this.loops < (head.max ?? 100)) {
        this.loops += 1;
        return head;
      }
      this.loops = 0;
      this.turns.shift();
    }
    return this.turns.shift() ?? { blocks: [{ text: "(script exhausted)" }] };
  }

  /**
   * Tool calls the script names that the request did not offer (a model can call only what it is shown: a CLI that
   * hides a tool behind its tool search leaves the scripted model without it), each as `{ tool, request }`.
   */
  readonly notOffered: { tool: string; request: number }[] = [];

  /** A scripted turn as the model could give it: a call of a tool the request did not offer becomes a text saying so. */
  private offeredOnly(body: Record<string, unknown>, turn: ScriptedTurn): ScriptedTurn {
    const strip = (blocks: Block[]): Block[] =>
      blocks.map((b) => {
        if (!("tool" in b) || this.offers(body, b.tool)) return b;
        this.notOffered.push({ tool: b.tool, request: this.bodies.length });
        return { text: `(the tool ${b.tool} was not offered to the model)` };
      });
    if ("blocks" in turn) return { blocks: strip(turn.blocks), ...(turn.hold ? { hold: turn.hold } : {}) };
    if ("loop" in turn) return { ...turn, loop: strip(turn.loop) };
    return turn;
  }

  /** Whether the request offered the tool (by the wire's own names). */
  protected abstract offers(body: Record<string, unknown>, tool: string): boolean;

  get port(): number {
    return (this.server.address() as AddressInfo).port;
  }

  /** The rest of the script, replaced (turns a cut run did not reach are dropped). */
  replace(...turns: ScriptedTurn[]): void {
    this.turns.splice(0, this.turns.length, ...turns);
  }

  /** More turns for a later run (the script continues where it stopped). */
  push(...turns: ScriptedTurn[]): void {
    this.turns.push(...turns);
  }

  close(): Promise<void> {
    for (const r of this.hung) r.destroy();
    this.server.closeAllConnections();
    return new Promise((r) => this.server.close(() => r()));
  }

  protected abstract stream(res: ServerResponse, blocks: Block[], n: number): void;
}

export class AnthropicMock extends ScriptedServer {
  get baseUrl(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  protected offers(body: Record<string, unknown>, tool: string): boolean {
    return toolNames(body).includes(tool);
  }

  protected stream(res: ServerResponse, blocks: Block[], n: number): void {
    const ev = (type: string, d: Record<string, unknown>) => res.write(`event: ${type}\ndata: ${JSON.stringify({ type, ...d })}\n\n`);
    ev("message_start", {
      message: {
        id: `msg_mock_${n}`,
        type: "message",
        role: "assistant",
        model: "claude-mock",
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: { input_tokens: 100, output_tokens: 1 },
      },
    });
    blocks.forEach((b, index) => {
      if ("text" in b) {
        ev("content_block_start", { index, content_block: { type: "text", text: "" } });
        ev("content_block_delta", { index, delta: { type: "text_delta", text: b.text } });
      } else {
        ev("content_block_start", { index, content_block: { type: "tool_use", id: `toolu_${n}_${index}`, name: b.tool, input: {} } });
        ev("content_block_delta", { index, delta: { type: "input_json_delta", partial_json: JSON.stringify(b.input) } });
      }
      ev("content_block_stop", { index });
    });
    const usesTool = blocks.some((b) => "tool" in b);
    ev("message_delta", { delta: { stop_reason: usesTool ? "tool_use" : "end_turn", stop_sequence: null }, usage: { output_tokens: 20 } });
    ev("message_stop", {});
  }
}

export class ResponsesMock extends ScriptedServer {
  get baseUrl(): string {
    return `http://127.0.0.1:${this.port}/v1`;
  }

  protected offers(): boolean {
    return true; // Codex's MCP tools come as namespaces of their own: what it offers is checked in its e2e files
  }

  protected stream(res: ServerResponse, blocks: Block[], n: number): void {
    const ev = (d: Record<string, unknown>) => res.write(`event: ${String(d.type)}\ndata: ${JSON.stringify(d)}\n\n`);
    ev({ type: "response.created", response: { id: `resp_${n}` } });
    blocks.forEach((b, i) => {
      const item =
        "text" in b
          ? { type: "message", id: `msg_${n}_${i}`, role: "assistant", content: [{ type: "output_text", text: b.text }] }
          : b.tool.startsWith("mcp__")
            ? // Codex exposes MCP tools as a namespace: the call names the namespace and the tool.
              {
                type: "function_call",
                id: `fc_${n}_${i}`,
                call_id: `call_${n}_${i}`,
                namespace: `mcp__${b.tool.split("__")[1]}`,
                name: b.tool.split("__")[2],
                arguments: JSON.stringify(b.input),
              }
            : // One of Codex's own tools (exec_command: `cmd` runs in its sandbox, in the workspace).
              { type: "function_call", id: `fc_${n}_${i}`, call_id: `call_${n}_${i}`, name: b.tool, arguments: JSON.stringify(b.input) };
      ev({ type: "response.output_item.done", output_index: i, item });
    });
    ev({
      type: "response.completed",
      response: {
        id: `resp_${n}`,
        usage: {
          input_tokens: 100,
          input_tokens_details: { cached_tokens: 0 },
          output_tokens: 20,
          output_tokens_details: { reasoning_tokens: 0 },
          total_tokens: 120,
        },
      },
    });
  }
}
