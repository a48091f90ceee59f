// The Board port: the only way the bridge speaks to a Hermes Kanban board, in domain verbs.
// Nothing else is expressible (no generic "run any verb").

export type TaskStatus =
  | "triage"
  | "todo"
  | "scheduled"
  | "ready"
  | "running"
  | "blocked"
  | "review"
  | "done"
  | "archived"
  | "unknown";

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
  createdAt: number | null;
  startedAt: number | null;
  completedAt: number | null;
  result: string | null;
  skills: string[];
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

/** What the bridge holds after a successful claim. Every lease-bound call is fenced on runId. */
export interface Lease {
  board: string;
  taskId: string;
  /** null only when the run id could not be read after the claim (calls are then unfenced). */
  runId: number | null;
  lock: string | null;
  workspace: string;
  /** Epoch ms, from the bridge's clock, taken just before the claim call. */
  claimedAt: number;
  /** Epoch ms as the board reported it (claimed event `expires`), or claimedAt + ttl. */
  expiresAt: number;
  ttlSeconds: number;
}

export interface WatchLine {
  raw: string;
  /** Parsed fields when the line has the documented shape; null for banners and noise. */
  event: { at: string; taskId: string; kind: string; assignee: string | null; payloadText: string | null } | null;
}

export type BlockKind = "needs_input" | "capability" | "transient" | "dependency";

export interface Capabilities {
  blockKinds: BlockKind[];
  /** Verbs (of those the bridge uses) that accept --json. */
  jsonVerbs: string[];
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

export interface Board {
  readonly slug: string;
  listReady(q: { assignee: string }): Promise<Task[]>;
  /** Tasks of the assignee the board shows as running (restart reconciliation). */
  listRunning(q: { assignee: string }): Promise<Task[]>;
  watch(q: { assignee: string; signal: AbortSignal }): AsyncIterable<WatchLine>;
  show(taskId: string): Promise<TaskDetail>;
  context(taskId: string): Promise<string>;
  claim(taskId: string, ttlSeconds: number): Promise<{ lease: Lease; detail: TaskDetail | null }>;
  heartbeat(lease: Lease, note?: string): Promise<void>;
  comment(taskId: string, author: string, text: string): Promise<void>;
  complete(lease: Lease, close: { summary: string; metadata: Record<string, unknown> }): Promise<CloseOutcome>;
  block(lease: Lease, close: { reason: string; kind?: CloseBlockKind }): Promise<CloseOutcome>;
  createIdempotent(input: CreateTaskInput): Promise<Task>;
  capabilities(): Promise<Capabilities>;
}
