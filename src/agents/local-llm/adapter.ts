// The local-LLM agent: the bridge runs the agent loop itself against an OpenAI-compatible
// /v1/chat/completions — streamed turns, tool calls, the task tools in-process and workspace
// tools confined to the workspace — bounded by max steps, a token budget and the run deadline.
import { readFileSync } from "node:fs";
import { z } from "zod";
import { TOOL_DESCRIPTIONS, TOOL_NAMES, TOOL_SCHEMAS } from "../../tools/host.js";
import { EventQueue } from "../events.js";
import type { AgentAdapter, AgentEvent, AgentRunInput } from "../port.js";
import { LlmError, streamChat } from "./client.js";
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
}

type Msg = Record<string, unknown>;

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

export class LocalLlmAgent implements AgentAdapter {
  readonly name = "local-llm";
  readonly usesTools = true;
  readonly model: string;
  constructor(private readonly o: LocalLlmOptions) {
    this.model = o.model;
  }

  run(input: AgentRunInput): AsyncIterable<AgentEvent> {
    const q = new EventQueue();
    void this.loop(input, q).finally(() => q.close());
    return q.drain();
  }

  private async loop(input: AgentRunInput, q: EventQueue): Promise<void> {
    const tools = input.tools;
    const fin = (reason: "exited" | "aborted", stderrTail = "") =>
      q.push({ type: "finished", exitCode: reason === "exited" ? 0 : null, signal: null, reason, stdoutTail: "", stderrTail, outputBytes: 0 });
    if (!tools) {
      q.push({ type: "failed", cause: "environment", message: "the local-llm agent needs the task tools" });
      fin("exited");
      return;
    }
    q.push({ type: "started", sessionId: `local-${input.taskId}` });
    const messages: Msg[] = [
      { role: "system", content: readFileSync(this.o.systemPromptFile, "utf8") },
      { role: "user", content: input.prompt },
    ];
    const specs = toolSpecs();
    let spent = 0;
    try {
      for (let step = 1; step <= this.o.maxSteps; step += 1) {
        const turn = await streamChat({
          baseUrl: this.o.baseUrl,
          apiKey: this.o.apiKey,
          signal: input.signal,
          idleTimeoutMs: this.o.idleTimeoutMs,
          body: { model: this.o.model, messages, tools: specs, tool_choice: "auto", temperature: this.o.temperature },
        });
        if (turn.usage) {
          spent += turn.usage.input + turn.usage.output;
          q.push({ type: "usage", tokens: turn.usage });
        }
        if (turn.content.trim()) q.push({ type: "progress", note: turn.content.trim().split("\n")[0]?.slice(0, 300) ?? "" });
        if (turn.toolCalls.length === 0) {
          if (turn.finishReason === "length") q.push({ type: "failed", cause: "environment", message: "the model's answer was truncated (finish_reason length: context or token limit)" });
          fin("exited");
          return;
        }
        // Replay the assistant turn exactly, with arguments sanitized to valid JSON strings.
        const calls = turn.toolCalls.map((c) => ({ ...c, parsed: safeArgs(c.arguments) }));
        messages.push({ role: "assistant", content: turn.content || null, tool_calls: calls.map((c) => ({ id: c.id, type: "function", function: { name: c.name, arguments: c.parsed.text } })) });
        let finished = false;
        for (const c of calls) {
          q.push({ type: "tool", name: c.name });
          let content: string;
          if (!c.parsed.ok) content = `error: the arguments of ${c.name} are not a JSON object`;
          else if (c.name.startsWith("kanban_")) {
            const a = await tools.call(c.name, c.parsed.value);
            content = a.ok ? a.text : `error: ${a.error}`;
            if (a.ok && (c.name === "kanban_complete" || c.name === "kanban_block")) finished = true;
            if (a.ok && c.name === "kanban_heartbeat") q.push({ type: "progress", note: String(c.parsed.value.note ?? "") });
          } else {
            content = await runWorkspaceTool(c.name, c.parsed.value, { root: input.workspace, allowCommands: this.o.allowCommands, commandTimeoutMs: this.o.commandTimeoutMs, outputCap: this.o.outputCap, env: this.o.env, signal: input.signal }).catch(
              (err: unknown) => `error: ${(err as Error).message}`,
            );
          }
          messages.push({ role: "tool", tool_call_id: c.id, content });
        }
        if (finished) {
          fin("exited");
          return;
        }
        if (spent > this.o.maxTokens) {
          q.push({ type: "failed", cause: "human decision needed", message: `token budget exhausted (${spent} > agent.maxTokens ${this.o.maxTokens})` });
          fin("exited");
          return;
        }
      }
      q.push({ type: "failed", cause: "human decision needed", message: `max steps reached (agent.maxSteps ${this.o.maxSteps}) without complete or block` });
      fin("exited");
    } catch (err) {
      if (input.signal.aborted) {
        fin("aborted", "stopped by the bridge");
        return;
      }
      const e = err as Error;
      const cause = e instanceof LlmError && e.kind === "context_overflow" ? "human decision needed" : "environment";
      q.push({ type: "failed", cause, message: e.message });
      fin("exited");
    }
  }
}
