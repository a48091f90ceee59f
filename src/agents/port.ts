// The AgentAdapter port: a run is an async iterable of typed events; one factory picks the adapter.
import type { BlockTemplateInput } from "../result/template.js";

export type TerminationReason = "exited" | "timeout" | "aborted" | "spawn_failed";

export type OutcomeRequest =
  | { kind: "complete"; summary: string; result: unknown }
  | { kind: "block"; block: BlockTemplateInput }
  | { kind: "invalid"; error: string }
  | { kind: "unreadable"; error: string };

export type AgentEvent =
  | { type: "started"; pid?: number; sessionId?: string }
  | { type: "progress"; note: string }
  | { type: "tool"; name: string }
  | { type: "usage"; tokens?: { input: number; output: number }; costUsd?: number }
  | { type: "limit"; kind: string; resetsAt: number | null; message: string }
  | { type: "auth_failed"; message: string }
  /** The agent's own run failed for a reason the bridge can name (max turns, MCP not connected…). */
  | { type: "failed"; cause: "environment" | "human decision needed"; message: string }
  | { type: "outcome"; request: OutcomeRequest }
  | {
      type: "finished";
      exitCode: number | null;
      signal: string | null;
      reason: TerminationReason;
      abortReason?: unknown;
      /** The exit code could not be observed (an adopted process after a bridge restart). */
      exitUnknown?: boolean;
      stdoutTail: string;
      stderrTail: string;
      outputBytes: number;
    };

export interface AgentRunInput {
  taskId: string;
  runId: number | null;
  workspace: string;
  prompt: string;
  /** JSON file with the task, comments, parents, prior runs and the `context` text. */
  contextFile: string;
  /** Where the agent writes its outcome. */
  resultFile: string;
  /** The run's private directory (output files live here). */
  runDir: string;
  /** The run's task tools, when the adapter asked for them (usesTools). */
  tools?: { socketPath: string; token: string; call(name: string, args: unknown): Promise<{ ok: true; text: string } | { ok: false; error: string }> };
  signal: AbortSignal;
}

export interface AgentAdapter {
  readonly name: string;
  readonly model?: string;
  /** True when the agent talks to the task tools (MCP for CLI agents, in-process for local LLMs). */
  readonly usesTools?: boolean;
  run(input: AgentRunInput): AsyncIterable<AgentEvent>;
}

/** The environment every agent starts from: an allow-list, never the bridge's own secrets. */
export const AGENT_BASE_ENV = ["PATH", "HOME", "LANG", "LC_ALL", "LC_CTYPE", "TZ", "TMPDIR", "USER", "LOGNAME", "SHELL", "TERM"];

export function agentEnv(parent: NodeJS.ProcessEnv, passEnv: readonly string[], set: Readonly<Record<string, string>>): Record<string, string> {
  const env: Record<string, string> = {};
  for (const k of [...AGENT_BASE_ENV, ...passEnv]) {
    if (/^HERMES_(HOME|KANBAN_|PROFILE|DELEGATED)/.test(k)) continue;
    const v = parent[k];
    if (v !== undefined) env[k] = v;
  }
  return { ...env, ...set };
}
