// What a TaskRun tells its owner (the launcher: the seat's events, metrics, the active-run journal, logs):
// its phases, its agent's events and start, the operator notes its agent got, its network's refusals, and
// what it has to say for the log — one typed event map (log/emit.ts: told guardedly). Its lease tells its
// own (lease/held.ts: heartbeat, renewed, lost, unresolved).
import type { AgentEvent, Note } from "../agents/port.js";
import { Events } from "../log/emit.js";
import type { RetryCause } from "../board/card.js";

/** One attempt that ended the environment's way and was started again. */
export interface RetryRecord {
  /** 1 for the first retry. */
  attempt: number;
  cause: RetryCause;
  /** What ended the attempt, in words (redacted where it reaches the board). */
  detail: string;
  /** Epoch ms the attempt ended. */
  at: number;
}

export type RunPhase = "claimed" | "reading" | "preparing" | "working" | "verifying" | "delivering" | "closing" | "closed" | "lost";

/** The agent process is up: enough to find it again after a bridge restart. */
export interface RunStarted {
  /** The agent's process; null: the agent runs inside the bridge (the local loop) and dies with it. */
  pid: number | null;
  resultFile: string;
  runDir: string;
  outputDir: string;
  workspace: string;
  tools: { path: string; token: string } | null;
}

export interface RunEvents {
  phase: [RunPhase];
  /** Each event of the agent, as the run read it. */
  agent: [AgentEvent];
  started: [RunStarted];
  /** The agent said how far it is (its stream, or the task tools' heartbeat): the next heartbeat carries it. */
  progress: [note: string];
  /** Operator notes reached the agent (each once), at `at`. */
  notes: [notes: readonly Note[], at: number];
  /** New operator notes were offered to the agent's input (not yet taken). */
  notes_offered: [count: number];
  /** The run's proxy refused a destination (network: proxy). */
  egress_refused: [host: string, port: number, why: string, r: { advice?: string | undefined; housekeeping?: boolean | undefined }];
  /** An allowed host the run's proxy could not reach (once per host:port and run). */
  egress_failed: [host: string, port: number, why: string];
  log: [level: "debug" | "info" | "warn", msg: string, data?: Record<string, unknown>];
  /** The agent's attempt ended the environment's way and is started again after a backoff (work/retry.ts). */
  retry: [RetryRecord];
}

/** A run's event map (its owner listens; a listener's throw stays with the listener). */
export class RunEventsOut extends Events<RunEvents> {}
