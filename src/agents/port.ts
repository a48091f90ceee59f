// The AgentAdapter port: a run is an async iterable of typed events; one factory picks the adapter.
// Every adapter's run() is an async generator built on the one pump (pump.ts): it always ends with
// exactly one `finished` event, whatever happened, and cleans up in `finally`.
import type { RunJail } from "../jail/jail.js";
import type { TerminationReason as ProcessEnd } from "../process/runner.js";
import type { ResolvedSkill } from "../skills/resolve.js";
import type { OutcomeRequest } from "../result/decision.js";

export type { OutcomeRequest } from "../result/decision.js";

/** How the agent's process (or loop) ended. `stalled`: stopped by the silence watchdog. */
export type TerminationReason = ProcessEnd | "stalled";

import type { Usage } from "../board/card.js";

export type { Usage } from "../board/card.js";

export type AgentEvent =
  | { type: "started"; pid?: number }
  /** The agent's resumable session handle (Claude session_id, Codex thread_id, …) is known. */
  | { type: "session"; id: string }
  /** The session given in `resume` could not be resumed; nothing was done with it. */
  | { type: "resume_failed"; message: string }
  | { type: "progress"; note: string }
  | { type: "tool"; name: string }
  | { type: "usage"; usage: Usage }
  /** `note`: why the reported reset time was replaced (result/limits.ts bounds it). */
  | { type: "limit"; kind: string; resetsAt: number | null; message: string; note?: string }
  | { type: "auth_failed"; message: string }
  /** The agent could not reach its API (a connection error, a reconnect loop): the run's watchdog counts from the first. */
  | { type: "unreachable"; message: string }
  /**
   * The agent's own run failed for a reason the bridge can name (max turns, MCP not connected…). `transient`:
   * its API failed in a way a later try may not meet (agents/network.ts `transientApiFailure`): retried first.
   */
  | { type: "failed"; cause: "environment" | "human decision needed"; message: string; transient?: "api" | "connection" }
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

export type FinishedEvent = Extract<AgentEvent, { type: "finished" }>;

export type { Note, RunInbox } from "../tools/notes.js";
import type { RunInbox } from "../tools/notes.js";

/** A run that continues an earlier one of the same task: the session and the continuation prompt. */
export interface ResumeInput {
  session: string;
  /** The continuation prompt (prompts/continue.md, rendered): why the last run was cut, what is new. */
  prompt: string;
}

export interface AgentRunInput {
  taskId: string;
  runId: number | null;
  workspace: string;
  /** The first-run prompt (task prompt); with `resume`, the continuation prompt replaces it. */
  prompt: string;
  resume?: ResumeInput;
  /** JSON file with the task, comments, parents, prior runs, the `context` text and any resume info. */
  contextFile: string;
  /** Where the agent writes its outcome. */
  resultFile: string;
  /** The run's directory, shown to the agent (result, session, inbox, its CLI's home); removed after the run. */
  runDir: string;
  /**
   * Where the agent's output files are kept (its stdout and stderr): the run's private dir, never shown to
   * the agent — nothing it can write there is read back as its CLI's word.
   */
  outputDir: string;
  /** The task's durable directory in the state dir (saved local-LLM history lives here). */
  sessionDir: string;
  /** The run's task tools, when the adapter asked for them (usesTools). */
  tools?: { socketPath: string; token: string; call(name: string, args: unknown): Promise<{ ok: true; text: string } | { ok: false; error: string }> };
  /** Operator notes posted while the agent runs (comments by others); absent when the run takes none. */
  inbox?: RunInbox;
  /** Hard stop: kill the agent (SIGTERM → SIGKILL of its process group). */
  signal: AbortSignal;
  /** Polite stop (graceful cut): SIGINT for the CLIs so they persist the session, between steps for a loop. */
  wrapUp: AbortSignal;
  /** Where every process of the agent starts (agent.isolation): bubblewrap, or as it is. Absent: as it is. */
  jail?: RunJail;
  /** What the task's creator pinned: its model (and provider) over the seat's, and the skills it needs. */
  pins?: RunPins;
  /**
   * The jail's network is the seat's proxy and forwards the CLI's API: its base URL inside the jail (the
   * relay), where the adapter points the CLI; the keys in its environment are placeholders by then.
   */
  egress?: { apiBase: string };
}

/** A task's own pins, checked against the seat before the agent starts (run/prepare/pins.ts). */
export interface RunPins {
  /** Replaces the seat's configured model for this run; null: the seat's. */
  model: string | null;
  provider: string | null;
  /** The task's skills, found on this host and copied into the run; the agent sees exactly these. */
  skills: readonly ResolvedSkill[];
  /**
   * Where they were staged — `<run dir>/home/.agents`: a Claude Code plugin root (`skills/<name>/SKILL.md`,
   * for `--plugin-dir`) and the `$HOME/.agents` of the run's own HOME (Codex) — and their text as one
   * prompt section (agents that take skills as text: the local loop); unset without skills.
   */
  staged?: { root: string; text: string };
}

export interface AgentAdapter {
  readonly name: string;
  readonly model?: string | undefined;
  /** The model providers this agent can run a pinned model of (lower case); absent: any. */
  readonly providers?: readonly string[];
  /** True when the agent talks to the task tools (MCP for CLI agents, in-process for local LLMs). */
  readonly usesTools?: boolean;
  /** True when a later run can continue this agent's session (`resume` in the input is honoured). */
  readonly resumable?: boolean;
  /**
   * How operator notes reach a running agent: "input" — the adapter hands them over itself from
   * `input.inbox` (a user turn, a message, an inbox file); "tools" — appended to the answer of its next
   * task-tool call. Absent: not while it runs (the next run's prompt carries them).
   */
  readonly notesVia?: "input" | "tools";
  /**
   * Its limit and auth events are the bridge's own observations (the local loop's HTTP answers), not
   * lines the agent printed: they need no check from outside.
   */
  readonly observes?: boolean;
  /** The agent loads the run's skills as a Claude Code plugin: the staged folder gets its manifest (run/prepare/pins.ts). */
  readonly skillsAsPlugin?: boolean;
  /** Tries a login a run left (one request of the bridge's own) before it may replace the seat's (agents/cli-home.ts). */
  verifyLogin?(login: string): Promise<boolean>;
  run(input: AgentRunInput): AsyncIterable<AgentEvent>;
}
