// Taking a lease: one `claim`, then `show` for the run id (the CLI does not print it). A claim whose
// call failed without saying whether it took effect (a refusal after the claim — Hermes claims, then a
// `worktree:` checkout fails —, a lost answer, a timeout) is settled by reading the task once: a run
// under this claim's own lock that is still open is ours, and is handed on with the CLI's error, so
// the run closes it (or runs it, when only the answer was lost) — never left `running` until its TTL.
// Where claims are named (upstream), such a claim is first replayed with the same claimer: Hermes
// answers a replay by the holder without a second run and refuses anyone else, so the answer is exact —
// ours, or cleanly not ours.
import type { Board, ClaimReceipt, TaskDetail } from "../board/port.js";
import { ClaimUncertain, type Rejected, type Transient } from "../errors/board.js";
import { type Lease, claimedRun, leaseFrom, leaseOf, leaseOfReceipt, openRun } from "./lease.js";

export interface Acquired {
  lease: Lease;
  /** The claim's `show` (null when it could not be read: the run id is settled later, before any write). */
  detail: TaskDetail | null;
  /** The claim took effect although the CLI failed: its error. */
  claimFailure?: Transient | Rejected;
}

/** Replays of a named claim whose answer was lost, before the task is read to settle it. */
const REPLAYS = 2;

export async function acquire(
  board: Board,
  taskId: string,
  ttlSeconds: number,
  signal?: AbortSignal,
  o: { claimer?: string | undefined; onClaimed?: (() => void) | undefined } = {},
): Promise<Acquired> {
  let receipt: Awaited<ReturnType<Board["claim"]>>;
  try {
    receipt = await board.claim(taskId, ttlSeconds, signal, { claimer: o.claimer });
  } catch (err) {
    if (!(err instanceof ClaimUncertain)) throw err;
    const replayed = o.claimer !== undefined && err.claimLock === o.claimer ? await replay(board, taskId, ttlSeconds, o.claimer, signal) : null;
    if (replayed === null) return settleUncertain(board, err);
    // The claim took effect with the first call: its time starts the lease.
    receipt = { ...replayed, claimedAt: err.claimedAt };
  }
  const base = leaseOfReceipt(board.slug, receipt);
  o.onClaimed?.();
  try {
    const detail = await board.show(taskId, signal);
    return { lease: leaseFrom(base, detail), detail };
  } catch {
    return { lease: base, detail: null };
  }
}

/**
 * The same named claim again: the receipt when Hermes says it is ours, NotClaimable/TaskNotFound when it
 * is not (thrown), null when every replay was uncertain too (the task is then read).
 */
async function replay(board: Board, taskId: string, ttlSeconds: number, claimer: string, signal?: AbortSignal): Promise<ClaimReceipt | null> {
  for (let i = 0; i < REPLAYS; i += 1) {
    try {
      return await board.claim(taskId, ttlSeconds, signal, { claimer });
    } catch (err) {
      if (!(err instanceof ClaimUncertain) || signal?.aborted) throw err instanceof ClaimUncertain ? err.error : err;
    }
  }
  return null;
}

/** How long the read that settles an uncertain claim may take: it is not cut short by the caller's signal. */
const SETTLE_MS = 30_000;
/** Seconds a claim's `claimed` event may seem to precede its process's start (the host's clock stepped back). */
const CLOCK_SLACK_S = 5;

/**
 * Ours when the task's open run is the one this claim's lock created; otherwise the CLI's error stands.
 * The read runs even when the caller's signal was aborted (a shutdown that cut the claim call short):
 * a claim that took effect is never left `running` because the bridge was stopping.
 */
async function settleUncertain(board: Board, u: ClaimUncertain): Promise<Acquired> {
  // A lock nothing here could name (through ssh, a remote prefix that is shell syntax): nothing to match.
  if (u.claimLock === undefined) throw u.error;
  let detail: TaskDetail;
  try {
    detail = await board.show(u.taskId, AbortSignal.timeout(SETTLE_MS));
  } catch {
    throw u.error;
  }
  const run = claimedRun(detail, u.claimLock, { openRunFallback: false });
  // A `claimed` event under this lock from before the process started was another's with the same pid (the pids
  // wrapped: minutes on the busiest host). A few seconds' slack for a clock stepped back in between (NTP, a VM resumed).
  const at = detail.events.findLast((e) => e.claim?.lock === u.claimLock)?.createdAt ?? 0;
  if (u.lockSince !== undefined && at < u.lockSince - CLOCK_SLACK_S) throw u.error;
  if (run.runId === null || detail.task.status !== "running" || openRun(detail).runId !== run.runId) throw u.error;
  const lease = leaseOf({
    board: board.slug,
    taskId: u.taskId,
    runId: run.runId,
    claimLock: u.claimLock,
    workspace: detail.task.workspacePath ?? "",
    claimedAt: u.claimedAt,
    ttlSeconds: u.ttlSeconds,
  });
  lease.lock = run.lock;
  if (run.expires !== null) lease.expiresAt = Math.min(lease.expiresAt, run.expires * 1000 + 999);
  return { lease, detail, claimFailure: u.error };
}
