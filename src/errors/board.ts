// Typed board errors: verb, task, exit code and stderr tail on every one, origin in `cause`.
import { BridgeError, PermanentError } from "./index.js";

export interface BoardErrorData {
  verb: string;
  board: string;
  taskId?: string | undefined;
  exitCode?: number | null | undefined;
  stderrTail?: string | undefined;
  cause?: unknown;
}

function render(kind: string, d: BoardErrorData, detail: string): string {
  const where = `hermes kanban --board ${d.board} ${d.verb}${d.taskId ? ` ${d.taskId}` : ""}`;
  const exit = d.exitCode === undefined ? "" : ` (exit ${d.exitCode ?? "none"})`;
  const tail = d.stderrTail ? `: ${d.stderrTail}` : "";
  return `${kind}: ${detail} — ${where}${exit}${tail}`;
}

function fields(
  target: { verb: string; board: string; taskId?: string | undefined; exitCode?: number | null | undefined; stderrTail?: string | undefined },
  d: BoardErrorData,
) {
  target.verb = d.verb;
  target.board = d.board;
  target.taskId = d.taskId;
  target.exitCode = d.exitCode;
  target.stderrTail = d.stderrTail;
}

/** Retrying may help: timeout, spawn failure, lock contention, killed by a signal, unparsable output. */
export class Transient extends BridgeError {
  verb!: string;
  board!: string;
  taskId?: string | undefined;
  exitCode?: number | null | undefined;
  stderrTail?: string | undefined;
  constructor(d: BoardErrorData, detail: string) {
    super("board_transient", render("transient board failure", d, detail), { cause: d.cause });
    fields(this, d);
  }
}

abstract class PermanentBoardError extends PermanentError {
  verb!: string;
  board!: string;
  taskId?: string | undefined;
  exitCode?: number | null | undefined;
  stderrTail?: string | undefined;
  constructor(code: string, kind: string, d: BoardErrorData, detail: string) {
    super(code, render(kind, d, detail), { cause: d.cause });
    fields(this, d);
  }
}

export class NotClaimable extends PermanentBoardError {
  readonly status: string | null;
  readonly lock: string | null;
  constructor(d: BoardErrorData, status: string | null, lock: string | null) {
    super("not_claimable", "not claimable", d, `task is ${status ?? "not ready"} (lock ${lock ?? "none"})`);
    this.status = status;
    this.lock = lock;
  }
}

export class TaskNotFound extends PermanentBoardError {
  constructor(d: BoardErrorData) {
    super("task_not_found", "task not found", d, `no task ${d.taskId ?? "?"} on board ${d.board}`);
  }
}

/**
 * A run stopped from the board by hand — an operator's (or a tool's) `reclaim`, `block` or `request-review --force`
 * of the running task — as the board recorded it: an expected event, not a loss to alert on.
 */
export interface BoardStop {
  action: "reclaim" | "block" | "review";
  /** Who did it, where the board names them. */
  by: string | null;
}

export class LeaseLost extends PermanentBoardError {
  readonly runId: number | null;
  readonly currentStatus: string | null;
  readonly currentRunId: number | null;
  /** The board says a person (or a tool) stopped the run by hand; absent: the claim ended or another took it. */
  readonly stoppedBy: BoardStop | undefined;
  constructor(d: BoardErrorData, info: { runId: number | null; currentStatus: string | null; currentRunId: number | null; stoppedBy?: BoardStop | undefined }) {
    super(
      "lease_lost",
      "lease lost",
      d,
      `run ${info.runId ?? "?"} no longer owns the task (status ${info.currentStatus ?? "?"}, open run ${info.currentRunId ?? "none"})`,
    );
    this.runId = info.runId;
    this.currentStatus = info.currentStatus;
    this.currentRunId = info.currentRunId;
    this.stoppedBy = info.stoppedBy;
  }
}

export class BoardNotFound extends PermanentBoardError {
  constructor(d: BoardErrorData) {
    super("board_not_found", "board not found", d, `board '${d.board}' does not exist (create it with \`hermes kanban boards create ${d.board}\`)`);
  }
}

/** Exit 2: the bridge built a wrong call. A bug; never retried. */
export class UsageError extends PermanentBoardError {
  constructor(d: BoardErrorData, detail = "the CLI rejected the arguments") {
    super("board_usage", "CLI usage error", d, detail);
  }
}

/** The hermes command itself cannot be started (ENOENT, EACCES): no retry will help. */
export class CliUnavailable extends PermanentBoardError {
  constructor(d: BoardErrorData, detail: string) {
    super("cli_unavailable", "hermes command unavailable", d, `${detail} — check hermes.command (run \`hermes-bridge doctor\`)`);
  }
}

/** Any other definitive refusal (exit 1 with a domain message, e.g. a missing artifact). */
export class Rejected extends PermanentBoardError {
  constructor(d: BoardErrorData, detail = "the CLI refused the call", code = "board_rejected") {
    super(code, "rejected", d, detail);
  }
}

/**
 * Hermes 0.21.4+: a `--goal` task's close (`complete`, `request-review`) refused by the goal judge
 * (NousResearch/hermes-agent hermes_cli/kanban.py `_goal_gate_error`, commit 00030df1…): `verdict`
 * `continue` = not done yet, `unachievable` = the judge ruled the goal cannot be met; `judgeReason` is
 * the judge's own words, without the CLI's hint after them.
 */
export class GoalJudgeRejected extends Rejected {
  constructor(
    d: BoardErrorData,
    readonly handoff: "completion" | "review handoff",
    readonly verdict: "continue" | "unachievable",
    readonly judgeReason: string,
  ) {
    super(d, `the goal judge refused the ${handoff}: ${judgeReason}`, "goal_judge_rejected");
  }
}

/**
 * Hermes 0.21.4+: `complete` refused because parents are not done (hermes_cli/kanban.py `_cmd_complete`,
 * commit 00030df1…: `unsatisfied parent dependencies: <id> (<status>), …`) — each parent with its status.
 */
export class UnmetParents extends Rejected {
  constructor(
    d: BoardErrorData,
    readonly parents: readonly { id: string; status: string }[],
  ) {
    super(d, `parents not done: ${parents.map((p) => `${p.id} (${p.status})`).join(", ")}`, "unmet_parents");
  }
}

/**
 * The board's database is corrupt (Hermes 0.21.3+ `KanbanDbCorruptError`: `could not initialize database:
 * Refusing to open corrupt kanban DB at <db>: <reason>. Original preserved; backup at <bak>.`): every call
 * fails until an operator repairs it. Not a refusal of the call (nothing was decided about the task) and
 * never retried (a retry only adds load): the seat pauses the board and holds its closes until a call
 * succeeds again. `repair` says what to run.
 */
export class BoardCorrupt extends PermanentBoardError {
  readonly dbPath: string | null;
  readonly backupPath: string | null;
  readonly reason: string;
  readonly repair: string;
  constructor(d: BoardErrorData, facts: { dbPath: string | null; backupPath: string | null; reason: string }) {
    const repair = `hermes kanban --board ${d.board} repair`;
    super("board_corrupt", "board database corrupt", d, `the board's database refuses to open (${facts.reason}); an operator runs \`${repair}\``);
    this.dbPath = facts.dbPath;
    this.backupPath = facts.backupPath;
    this.reason = facts.reason;
    this.repair = repair;
  }
}

/**
 * A claim call failed in a way that does not say whether it took effect (a refusal after the claim, a
 * lost answer, a timeout): the lease layer reads the task to tell. Carries the claim's own lock.
 */
export class ClaimUncertain extends BridgeError {
  readonly taskId: string;
  readonly claimedAt: number;
  readonly ttlSeconds: number;
  readonly claimLock: string | undefined;
  /** The board host's epoch seconds when the claiming process started (known here, or announced by the call server or through ssh): its lock's events start there. */
  readonly lockSince: number | undefined;
  constructor(d: {
    taskId: string;
    claimedAt: number;
    ttlSeconds: number;
    claimLock?: string | undefined;
    lockSince?: number | undefined;
    cause: Transient | Rejected;
  }) {
    super("claim_uncertain", `claim of ${d.taskId} failed, perhaps after taking effect: ${d.cause.message}`, { cause: d.cause });
    this.taskId = d.taskId;
    this.claimedAt = d.claimedAt;
    this.ttlSeconds = d.ttlSeconds;
    this.claimLock = d.claimLock;
    this.lockSince = d.lockSince;
  }

  /** The CLI's own error (what a block of such a claim names). */
  get error(): Transient | Rejected {
    return this.cause as Transient | Rejected;
  }
}

export type BoardError = Transient | NotClaimable | TaskNotFound | LeaseLost | BoardNotFound | UsageError | Rejected | CliUnavailable | BoardCorrupt;
