// The Board port: the only way the bridge speaks to a Hermes Kanban board, in domain verbs, as the
// CLI answers them — nothing more. What a run may write and when (fencing, ownership, retrying a
// close) is the lease layer's (lease/fenced.ts), which sees the board only through this port. Nothing
// else is expressible (no generic "run any verb"). Every verb takes an AbortSignal.
import type { BlockKind, CloseBlockKind } from "../result/template.js";

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
  /** The model (and its provider) the task's creator pinned (`create --model/--provider`, `set-model`). */
  pins: { model: string | null; provider: string | null };
  /** The task's completion contract (0.21: `local-only`, `evidence-required`, OWNER/REPO, a PR URL), if any. */
  completionContract: string | null;
  /** Why the board last refused to move the task on (0.21's `last_failure_error`, e.g. PR acceptance). */
  lastFailure: string | null;
  /** The claim as show --json names it where the CLI does (upstream): current run, lock, expiry (epoch s). */
  claim?: { runId: number | null; lock: string | null; expires: number | null };
  /** The last heartbeat (epoch s) where show --json names it (a 0.21.4+ claim resets it). */
  lastHeartbeatAt?: number | null;
}

/** A claim as its `claimed` event records it: the lock, the run it opened, its expiry (epoch s). */
export interface ClaimFacts {
  lock: string | null;
  runId: number | null;
  expires: number | null;
}

/** One event of a task, typed off the wire (board/events.ts). */
export interface TaskEvent {
  kind: string;
  createdAt: number;
  runId: number | null;
  /** After it the task may be claimable: created ready, promoted, unblocked, reclaimed, assigned, a review sent back. */
  readyMaking: boolean;
  /** The reason the event gives (a block, a schedule, a reclaim), or null. */
  reason: string | null;
  /** A `claimed` event's claim; null for every other kind. */
  claim: ClaimFacts | null;
  /**
   * A hand-off that lifts Hermes's `active_pr` respawn guard (kanban_db_dispatch `_is_handoff_event`):
   * `changes_requested`, `review_reopened`, an `assigned` to a different profile (not the dispatcher's
   * default-assignee write). Absent for other kinds.
   */
  handoff?: boolean;
  /** An `existing_pr_authorized` event's grant (`authorize-existing-pr`, 0.21.4+); absent for other kinds. */
  prGrant?: PrGrant | null;
  /** A `review_requested` event's implementer and reviewer (who the task went to); absent for other kinds. */
  review?: { implementer: string | null; reviewer: string | null };
  /** A `reopened` event's landing and block kind (0.21.6 `reopen`); absent for other kinds. */
  reopen?: { landing: string | null; kind: string | null };
}

/** An operator's single-use grant to amend a task's existing PR (hermes_cli/kanban_pr_authorization.py). */
export interface PrGrant {
  taskId: string | null;
  prUrl: string | null;
  /** The task's highest run id at the grant: the first run above it spends it. */
  runIdFloor: number | null;
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
  /** The workflow step the run was for (0.21 `step_key`), where the JSON carries it. */
  stepKey?: string | null;
  /** Who closed the run (`closed_by`, upstream after 0.21.3), where the JSON carries it. */
  closedBy?: string | null;
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
  event: WatchEvent | null;
}

/** A `watch` line's event, typed off its Python-repr text (board/events.ts). */
export interface WatchEvent {
  at: string;
  taskId: string;
  kind: string;
  assignee: string | null;
  /** After it the task may be claimable (as TaskEvent.readyMaking). */
  readyMaking: boolean;
  /** A `commented` line's author; null otherwise. */
  author: string | null;
}

export type { BlockKind, CloseBlockKind } from "../result/template.js";

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
  /**
   * Named claims (`claim --claimer <kind>:<id>`, upstream): the claimer is the lock, a replay by the same
   * claimer succeeds without a second run, a foreign one is refused; heartbeat/complete/block take it too.
   */
  namedClaims: boolean;
  /** Verbs that take the compare-and-set guard `--expected-status` (a mismatch writes nothing). */
  expectedStatus: readonly GuardedVerb[];
  /** `request-review --summary` (a review hand-off: `review`, the run ends `review_requested`). */
  review: boolean;
  /** `request-review --metadata` (0.21): the common result lands on the run; 0.20 keeps the summary only. */
  reviewMetadata: boolean;
  /**
   * `authorize-existing-pr` (0.21.4+): an operator's way past the `active_pr` respawn guard. Where the CLI
   * has it, the bridge honours the guard for its own runs (board/pr-guard.ts) and its blocks name the verb.
   */
  authorizeExistingPr: boolean;
}

export type GuardedVerb = "complete" | "block" | "comment";

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

/** The run a lease-bound call is for: Hermes refuses it once the task's current run is another (run-id fencing). */
export interface Fence {
  taskId: string;
  runId: number;
  /** The named claimer holding the claim (where claims are named): renewals and closes speak for it. */
  claimer?: string | undefined;
}

/** What a claim call may say besides the TTL. */
export interface ClaimOptions {
  /** Claim as this named claimer (capability `namedClaims`); a replay by the same claimer is idempotent. */
  claimer?: string | undefined;
}

/** What a successful `claim` tells (the run id is not printed: the lease layer reads it from `show`). */
export interface ClaimReceipt {
  taskId: string;
  /** The workspace path `claim` printed (a path on the board host). */
  workspace: string;
  /** Epoch ms, from the bridge's clock, taken just before the claim call. */
  claimedAt: number;
  ttlSeconds: number;
  /**
   * The lock Hermes writes for this claim when the CLI runs on this host: `<hostname>:<pid of the claim
   * process>`. It names our run among the `claimed` events even after a reclaim and another claim.
   */
  claimLock?: string;
}

/** What a run may do with its board besides its fenced writes: read its task. */
export type BoardReader = Pick<Board, "slug" | "show" | "context">;

export interface Board {
  readonly slug: string;
  listReady(q: { assignee: string }, signal?: AbortSignal): Promise<Task[]>;
  /** Tasks of the assignee the board shows as running (restart reconciliation). */
  listRunning(q: { assignee: string }, signal?: AbortSignal): Promise<Task[]>;
  /** Every task of the board (all statuses; archived ones too when asked), optionally one assignee's (reports). */
  listTasks(q: { assignee?: string | undefined; archived?: boolean | undefined }, signal?: AbortSignal): Promise<Task[]>;
  watch(q: { assignee: string; signal: AbortSignal }): AsyncIterable<WatchLine>;
  show(taskId: string, signal?: AbortSignal): Promise<TaskDetail>;
  context(taskId: string, signal?: AbortSignal): Promise<string>;
  /**
   * One claim call, never repeated. A lost race is NotClaimable, a missing task TaskNotFound; any other
   * failure is ClaimUncertain (the claim may have taken effect before the CLI failed).
   */
  claim(taskId: string, ttlSeconds: number, signal?: AbortSignal, o?: ClaimOptions): Promise<ClaimReceipt>;
  /** `reclaim`: the task is ready again, its run ends `reclaimed`. */
  release(taskId: string, reason: string, signal?: AbortSignal): Promise<void>;
  /** `schedule` (fenced): the task waits on time — `scheduled`, its run ends `scheduled` — until `unblock`. */
  schedule(fence: Fence, close: { reason: string }, signal?: AbortSignal): Promise<void>;
  /** `unblock --reason`: a blocked or scheduled task is ready again. */
  unblock(taskId: string, reason: string, signal?: AbortSignal): Promise<void>;
  /**
   * Liveness and the progress note; `ttlSeconds` (only where the capabilities say `heartbeatExtends`)
   * renews the claim — of the fence's named claimer where claims are named.
   */
  heartbeat(fence: Fence, o: { note?: string | undefined; ttlSeconds?: number | undefined }, signal?: AbortSignal): Promise<void>;
  /** `expectedStatus`: the compare-and-set guard where the CLI has it (refused: nothing written). */
  comment(taskId: string, author: string, text: string, signal?: AbortSignal, o?: { expectedStatus?: TaskStatus | undefined }): Promise<void>;
  /** A file (a path the CLI can read) attached to a task; not fenced by Hermes. */
  attach(taskId: string, file: { path: string; name: string }, signal?: AbortSignal): Promise<Attachment>;
  /** One fenced `complete` call; a refusal is a Rejected `cannot complete` (the lease layer tells what it means). */
  complete(fence: Fence, close: { summary: string; metadata: Record<string, unknown> }, signal?: AbortSignal): Promise<void>;
  /** One fenced `request-review` call (a review hand-off); metadata only where the CLI takes it. */
  requestReview(fence: Fence, close: { summary: string; metadata: Record<string, unknown>; reviewer: string | null }, signal?: AbortSignal): Promise<void>;
  /** One fenced `block` call (a kind the CLI does not know is left out). */
  block(fence: Fence, close: { reason: string; kind?: CloseBlockKind | undefined }, signal?: AbortSignal): Promise<void>;
  createIdempotent(input: CreateTaskInput, signal?: AbortSignal): Promise<Task>;
  capabilities(signal?: AbortSignal): Promise<Capabilities>;
}
