// The local-LLM agent: the bridge runs the agent loop itself against an OpenAI-compatible
// /v1/chat/completions — streamed turns, tool calls, the task tools in-process and workspace
// tools confined to the workspace — bounded by max steps, a token budget and the run deadline.
// Its session is the message history, saved after every step; a wrap-up stops it between steps.
import { readFile } from "node:fs/promises";
import { z } from "zod";
import { TOOL_DESCRIPTIONS, TOOL_NAMES, TOOL_SCHEMAS } from "../../tools/host.js";
import { renderNote } from "../../tools/notes.js";
import type { AgentAdapter, AgentEvent, AgentRunInput, Usage } from "../port.js";
import { type AgentEnd, type PumpHandle, pump } from "../pump.js";
import { transientApiFailure } from "../network.js";
import { LlmError, streamChat } from "./client.js";
import { type Msg, loadHistory, newSessionId, saveHistory } from "./history.js";
import { WORKSPACE_TOOL_SPECS, runWorkspaceTool } from "./workspace-tools.js";

export interface LocalLlmOptions {
  baseUrl: string;
  model: string;
  apiKey: string | undefined;
  maxSteps: number;
  maxTokens: number;
  idleTimeoutMs: number;
  temperature: number;
  systemPromptFile: string;
  allowCommands: readonly string[];
  commandTimeoutMs: number;
  outputCap: number;
  env: Record<string, string>;
  stallMs: number;
  /** Bound of the saved history, in characters of JSON. */
  historyMaxChars: number;
  /** Applied to every saved message (the redactor). */
  redact: (messages: Msg[]) => Msg[];
}

export function toolSpecs(): unknown[] {
  const task = TOOL_NAMES.map((n) => ({
    type: "function",
    function: { name: n, description: TOOL_DESCRIPTIONS[n], parameters: z.toJSONSchema(TOOL_SCHEMAS[n], { io: "input" }) },
  }));
  return [...task, ...WORKSPACE_TOOL_SPECS.map((t) => ({ type: "function", function: t }))];
}

function safeArgs(raw: string): { ok: true; value: Record<string, unknown>; text: string } | { ok: false; text: string } {
  try {
    const v = JSON.parse(raw || "{}") as unknown;
    if (v && typeof v === "object" && !Array.isArray(v)) return { ok: true, value: v as Record<string, unknown>, text: JSON.stringify(v) };
  } catch {
    // fall through
  }
  return { ok: false, text: "{}" };
}

const ended = (reason: AgentEnd["reason"], stderrTail = ""): AgentEnd => ({
  exitCode: reason === "exited" ? 0 : null,
  signal: null,
  reason,
  stdoutTail: "",
  stderrTail,
  outputBytes: 0,
});

export class LocalLlmAgent implements AgentAdapter {
  readonly name = "local-llm";
  /** Its limits and failed logins are the bridge's own HTTP answers, never lines an agent printed. */
  readonly observes = true;
  readonly usesTools = true;
  readonly resumable = true;
  readonly notesVia = "input" as const;
  readonly model: string;
  constructor(private readonly o: LocalLlmOptions) {
    this.model = o.model;
  }

  run(input: AgentRunInput): AsyncGenerator<AgentEvent> {
    return pump({ signal: input.signal, stallMs: this.o.stallMs }, (p) => this.loop(input, p));
  }

  /** The conversation to start from: a new one, or the saved one plus the continuation prompt. */
  private async start(input: AgentRunInput, p: PumpHandle): Promise<{ id: string; messages: Msg[] } | null> {
    if (input.resume) {
      const saved = await loadHistory(input.sessionDir, input.resume.session);
      if ("messages" in saved) return { id: input.resume.session, messages: [...saved.messages, { role: "user", content: input.resume.prompt }] };
      p.emit({ type: "resume_failed", message: saved.error });
      return null;
    }
    const base = await readFile(this.o.systemPromptFile, "utf8");
    // The task's skills are part of the system prompt (a resumed session keeps the ones it started with).
    const system = input.pins?.staged?.text ? `${base.trimEnd()}\n\n${input.pins.staged.text}\n` : base;
    return {
      id: newSessionId(input.taskId),
      messages: [
        { role: "system", content: system },
        { role: "user", content: input.prompt },
      ],
    };
  }

  private async loop(input: AgentRunInput, p: PumpHandle): Promise<AgentEnd> {
    const tools = input.tools;
    if (!tools) throw new Error("the local-llm agent needs the task tools");
    p.emit({ type: "started" });
    const session = await this.start(input, p);
    if (!session) return ended("exited");
    const { id, messages } = session;
    p.emit({ type: "session", id });
    // The task's pinned model over the seat's (a `set-model` change applies from the next run).
    const model = input.pins?.model ?? this.o.model;
    const save = () => saveHistory(input.sessionDir, { id, model, messages }, this.o.redact, this.o.historyMaxChars);
    save();
    const specs = toolSpecs();
    const usage: Usage & { tokens: { input: number; output: number } } = { tokens: { input: 0, output: 0 }, turns: 0, model };
    try {
      for (let step = 1; step <= this.o.maxSteps; step += 1) {
        if (input.wrapUp.aborted) return ended("aborted", "stopped between steps (wrap-up)");
        // Operator notes that arrived since the last request: user messages before the next one.
        const notes = input.inbox?.pending() ?? [];
        if (notes.length > 0) {
          for (const n of notes) messages.push({ role: "user", content: renderNote(n) });
          input.inbox?.delivered(notes.map((n) => n.id));
          save();
        }
        const turn = await streamChat({
          baseUrl: this.o.baseUrl,
          apiKey: this.o.apiKey,
          signal: p.signal,
          idleTimeoutMs: this.o.idleTimeoutMs,
          body: { model, messages, tools: specs, tool_choice: "auto", temperature: this.o.temperature },
        });
        usage.turns = step;
        if (turn.usage) {
          usage.tokens.input += turn.usage.input;
          usage.tokens.output += turn.usage.output;
        }
        p.emit({ type: "usage", usage: { ...usage, tokens: { ...usage.tokens } } });
        if (turn.content.trim()) p.emit({ type: "progress", note: turn.content.trim().split("\n")[0]?.slice(0, 300) ?? "" });
        if (turn.toolCalls.length === 0) {
          messages.push({ role: "assistant", content: turn.content });
          save();
          if (turn.finishReason === "length")
            p.emit({ type: "failed", cause: "environment", message: "the model's answer was truncated (finish_reason length: context or token limit)" });
          return ended("exited");
        }
        // Replay the assistant turn exactly, with arguments sanitized to valid JSON strings.
        const calls = turn.toolCalls.map((c) => ({ ...c, parsed: safeArgs(c.arguments) }));
        messages.push({
          role: "assistant",
          content: turn.content || null,
          tool_calls: calls.map((c) => ({ id: c.id, type: "function", function: { name: c.name, arguments: c.parsed.text } })),
        });
        let finished = false;
        for (const c of calls) {
          p.emit({ type: "tool", name: c.name });
          let content: string;
          if (!c.parsed.ok) content = `error: the arguments of ${c.name} are not a JSON object`;
          else if (c.name.startsWith("kanban_")) {
            const a = await tools.call(c.name, c.parsed.value);
            content = a.ok ? a.text : `error: ${a.error}`;
            if (a.ok && (c.name === "kanban_complete" || c.name === "kanban_request_review" || c.name === "kanban_block")) finished = true;
            if (a.ok && c.name === "kanban_heartbeat") p.emit({ type: "progress", note: String(c.parsed.value.note ?? "") });
          } else {
            content = await runWorkspaceTool(c.name, c.parsed.value, {
              root: input.workspace,
              allowCommands: this.o.allowCommands,
              commandTimeoutMs: this.o.commandTimeoutMs,
              outputCap: this.o.outputCap,
              env: this.o.env,
              signal: p.signal,
              jail: input.jail,
            }).catch((err: unknown) => `error: ${(err as Error).message}`);
          }
          messages.push({ role: "tool", tool_call_id: c.id, content });
        }
        save();
        if (finished) return ended("exited");
        const spent = usage.tokens.input + usage.tokens.output;
        if (spent > this.o.maxTokens) {
          p.emit({ type: "failed", cause: "human decision needed", message: `token budget exhausted (${spent} > agent.maxTokens ${this.o.maxTokens})` });
          return ended("exited");
        }
      }
      p.emit({ type: "failed", cause: "human decision needed", message: `max steps reached (agent.maxSteps ${this.o.maxSteps}) without complete or block` });
      return ended("exited");
    } catch (err) {
      if (p.signal.aborted) return { ...ended("aborted", "stopped by the bridge"), abortReason: p.signal.reason };
      const e = err as Error;
      const cause = e instanceof LlmError && e.kind === "context_overflow" ? "human decision needed" : "environment";
      // The bridge's own request got no answer: the run goes back to the lane and the seat pauses (decide.ts).
      if (e instanceof LlmError && e.kind === "unreachable") p.emit({ type: "unreachable", message: e.message });
      // A 5xx or an overload, a stream the server cut: a later try may not meet it (run/work/retry.ts).
      const status = e instanceof LlmError && e.kind === "http" ? Number(/^HTTP (\d{3})/.exec(e.message)?.[1] ?? Number.NaN) : Number.NaN;
      const transient =
        e instanceof LlmError && e.kind === "stalled"
          ? "connection"
          : e instanceof LlmError && e.kind === "http"
            ? transientApiFailure(e.message, Number.isFinite(status) ? status : null)
            : null;
      p.emit({ type: "failed", cause, message: e.message, ...(transient ? { transient } : {}) });
      return ended("exited");
    }
  }
}
