// The Board port: the only way the bridge speaks to a Hermes Kanban board, in domain verbs.
// Nothing else is expressible (no generic "run any verb"). Every verb takes an AbortSignal.
import type { Lease } from "../lease/types.js";

export type { Lease } from "../lease/types.js";

export type TaskStatus = "triage" | "todo" | "scheduled" | "ready" | "running" | "blocked" | "review" | "done" | "archived" | "unknown";

export interface Task {
  id: string;
  title: string;
  body: string | null;
  assignee: string | null;
  status: TaskStatus;
  priority: number;
  tenant: string | null;
  workspaceKind: string | null;
  workspacePath: string | null;
  branchName: string | null;
  projectId: string | null;
  createdAt: number | null;
  startedAt: number | null;
  completedAt: number | null;
  result: string | null;
  skills: string[];
  /** Only when the CLI's JSON carries it (0.20.0 does not: it is read from `context`). */
  maxRuntimeSeconds: number | null;
}

export interface TaskEvent {
  kind: string;
  payload: Record<string, unknown> | null;
  createdAt: number;
  runId: number | null;
}

export type RunOutcome =
  | "completed"
  | "blocked"
  | "reclaimed"
  | "crashed"
  | "rate_limited"
  | "timed_out"
  | "stale"
  | "spawn_failed"
  | "gave_up"
  | "review_requested"
  | "scheduled"
  | "unknown";

export interface TaskRunRecord {
  id: number;
  profile: string | null;
  status: string;
  outcome: RunOutcome | null;
  summary: string | null;
  error: string | null;
  metadata: Record<string, unknown> | null;
  startedAt: number | null;
  endedAt: number | null;
}

export interface TaskDetail {
  task: Task;
  latestSummary: string | null;
  parents: string[];
  children: string[];
  comments: { author: string; body: string; createdAt: number }[];
  events: TaskEvent[];
  runs: TaskRunRecord[];
}

export interface WatchLine {
  raw: string;
  /** Parsed fields when the line has the documented shape; null for banners and noise. */
  event: { at: string; taskId: string; kind: string; assignee: string | null; payloadText: string | null } | null;
}

export type BlockKind = "needs_input" | "capability" | "transient" | "dependency";

/** What this Hermes can do, read once from `--version` and the `--help` of the verbs used. */
export interface Capabilities {
  version: string | null;
  blockKinds: BlockKind[];
  /** `attach` exists (deliverables of a claimed task). */
  attach: boolean;
  /** A CLI heartbeat can renew the claim (`heartbeat --ttl`): the run's deadline follows the expiry. */
  heartbeatExtends: boolean;
  /** Each TTL reclaim counts as a failure (later upstream): two cuts by expiry auto-block the task. */
  reclaimCountsAsFailure: boolean;
}

/** The kinds the bridge may send (DESIGN: never `dependency`, it loops back to ready). */
export type CloseBlockKind = Exclude<BlockKind, "dependency">;

export type CloseOutcome = "applied" | "already_applied";

export interface CreateTaskInput {
  title: string;
  body?: string;
  assignee?: string;
  key: string;
  parents?: string[];
  priority?: number;
  tenant?: string;
  workspace?: string;
}

export interface Attachment {
  id: number;
  filename: string;
  size: number;
}

export interface Board {
  readonly slug: string;
  listReady(q: { assignee: string }, signal?: AbortSignal): Promise<Task[]>;
  /** Tasks of the assignee the board shows as running (restart reconciliation). */
  listRunning(q: { assignee: string }, signal?: AbortSignal): Promise<Task[]>;
  watch(q: { assignee: string; signal: AbortSignal }): AsyncIterable<WatchLine>;
  show(taskId: string, signal?: AbortSignal): Promise<TaskDetail>;
  context(taskId: string, signal?: AbortSignal): Promise<string>;
  claim(taskId: string, ttlSeconds: number, signal?: AbortSignal): Promise<{ lease: Lease; detail: TaskDetail | null }>;
  /** Gives a claim this bridge holds back (`reclaim`): the task is ready again, its run ends `reclaimed`. */
  release(lease: Lease, reason: string, signal?: AbortSignal): Promise<void>;
  /**
   * Liveness (and the progress note) for a held lease. With `extend` (only where the capabilities say
   * `heartbeatExtends`) the claim is renewed to `extend.ttlSeconds` from now.
   */
  heartbeat(lease: Lease, note?: string, signal?: AbortSignal, extend?: { ttlSeconds: number }): Promise<void>;
  comment(taskId: string, author: string, text: string, signal?: AbortSignal): Promise<void>;
  /** A file (a path the CLI can read) attached to a task this lease holds; ownership is checked first. */
  attach(lease: Lease, file: { path: string; name: string }, signal?: AbortSignal): Promise<Attachment>;
  complete(lease: Lease, close: { summary: string; metadata: Record<string, unknown> }, signal?: AbortSignal): Promise<CloseOutcome>;
  block(lease: Lease, close: { reason: string; kind?: CloseBlockKind }, signal?: AbortSignal): Promise<CloseOutcome>;
  createIdempotent(input: CreateTaskInput, signal?: AbortSignal): Promise<Task>;
  capabilities(signal?: AbortSignal): Promise<Capabilities>;
}
