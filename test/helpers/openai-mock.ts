// A scripted OpenAI-compatible server on 127.0.0.1: /v1/models and streaming /v1/chat/completions.
// Each request takes the next scripted reply: SSE chunks, an HTTP error, or a stream that hangs.
import { type Server, type ServerResponse, createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { Arrivals } from "./arrivals.js";

/** One scripted reply; a `loop` answers with the same chunks (after `delayMs`) until a request satisfies `until` (or `max`). */
export type Reply =
  | { chunks: unknown[]; delayMs?: number }
  | { status: number; body: unknown }
  | { hangAfter: unknown[] }
  | { reset: true }
  | { loop: (n: number) => unknown[]; until: (body: Record<string, unknown>) => boolean; delayMs?: number; max?: number };

export class OpenAiMock {
  readonly requests: Record<string, unknown>[] = [];
  /** When each request arrived (epoch ms), in order. */
  readonly times: number[] = [];
  /** The requests as they come (await the n-th). */
  readonly arrivals = new Arrivals();
  private readonly hung: ServerResponse[] = [];
  private constructor(
    private readonly server: Server,
    private readonly replies: Reply[],
  ) {}

  static async start(replies: Reply[], model = "mock-coder"): Promise<OpenAiMock> {
    let self: OpenAiMock | undefined;
    const server = createServer((req, res) => {
      if (req.url === "/v1/models") {
        res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ object: "list", data: [{ id: model, object: "model" }] }));
        return;
      }
      let body = "";
      req.on("data", (c: Buffer) => {
        body += c.toString();
      });
      req.on("end", () => {
        const j = JSON.parse(body) as Record<string, unknown>;
        self?.requests.push(j);
        self?.times.push(Date.now());
        self?.arrivals.note();
        const r = self?.next(j) ?? { status: 500, body: { error: { message: "no scripted reply left" } } };
        if ("reset" in r) {
          req.socket.destroy(); // the server goes away mid-request
          return;
        }
        if ("status" in r) {
          res.writeHead(r.status, { "content-type": "application/json" }).end(JSON.stringify(r.body));
          return;
        }
        res.writeHead(200, { "content-type": "text/event-stream" });
        if ("loop" in r) {
          const n = self?.requests.length ?? 0;
          setTimeout(() => {
            if (res.destroyed) return;
            for (const c of r.loop(n)) res.write(`data: ${JSON.stringify(c)}\n\n`);
            res.end("data: [DONE]\n\n");
          }, r.delayMs ?? 0);
          return;
        }
        const chunks = "chunks" in r ? r.chunks : r.hangAfter;
        res.write(": keep-alive comment\n\n");
        const send = () => {
          if (res.destroyed) return;
          for (const c of chunks) res.write(`data: ${JSON.stringify(c)}\n\n`);
          if ("chunks" in r) res.end("data: [DONE]\n\n");
          else self?.hung.push(res);
        };
        if ("chunks" in r && r.delayMs) {
          self?.hung.push(res);
          setTimeout(send, r.delayMs);
        } else send();
      });
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    self = new OpenAiMock(server, replies);
    return self;
  }

  private loops = 0;
  private next(body: Record<string, unknown>): Reply | undefined {
    const head = this.replies[0];
    if (head && "loop" in head) {
      if (!head.until(body) && this.loops < (head.max ?? 100)) {
        this.loops += 1;
        return head;
      }
      this.loops = 0;
      this.replies.shift();
    }
    return this.replies.shift();
  }

  /** More replies for a later run. */
  push(...replies: Reply[]): void {
    this.replies.push(...replies);
  }

  get baseUrl(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/v1`;
  }

  close(): Promise<void> {
    for (const r of this.hung) r.destroy();
    return new Promise((r) => this.server.close(() => r()));
  }
}

/** Chunk helpers in the chat-completions streaming format. */
export const text = (t: string) => ({ choices: [{ index: 0, delta: { content: t }, finish_reason: null }] });
export const call = (index: number | undefined, id: string | undefined, name: string | undefined, args: string) => ({
  choices: [
    {
      index: 0,
      delta: {
        tool_calls: [
          { ...(index === undefined ? {} : { index }), ...(id ? { id, type: "function" } : {}), function: { ...(name ? { name } : {}), arguments: args } },
        ],
      },
      finish_reason: null,
    },
  ],
});
export const finish = (reason: string) => ({ choices: [{ index: 0, delta: {}, finish_reason: reason }] });
export const usage = (p: number, c: number) => ({ choices: [], usage: { prompt_tokens: p, completion_tokens: c, total_tokens: p + c } });
