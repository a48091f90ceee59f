// The lease: what the bridge holds after a successful claim, and how it is read from and judged
// against the board's view of the task (show --json: the open run, the last `claimed` event).
// Every lease-bound call is fenced on the run id (fenced.ts), so Hermes itself refuses a write after a loss.
import { randomBytes } from "node:crypto";
import type { ClaimReceipt, TaskDetail } from "../board/port.js";
import { type BoardStop, LeaseLost } from "../errors/board.js";
import type { Lease } from "./types.js";

export type { Lease } from "./types.js";

/** The kind of the bridge's named claims: `hermes-bridge:<assignee>:<nonce>` (upstream's `<kind>:<id>`). */
export const CLAIMER_KIND = "hermes-bridge";

/** A fresh named claimer for one claim of this seat (the nonce tells two claims of one seat apart). */
export function newClaimer(assignee: string): string {
  const seat = assignee.replace(/[^A-Za-z0-9_.-]+/g, "-").slice(0, 64) || "seat";
  return `${CLAIMER_KIND}:${seat}:${randomBytes(6).toString("hex")}`;
}

/** The lease's named claimer, when the claim was named (its lock is the bridge's claimer). */
export function namedClaimer(lease: Pick<Lease, "claimLock">): string | undefined {
  return lease.claimLock?.startsWith(`${CLAIMER_KIND}:`) ? lease.claimLock : undefined;
}

/** A lease as a state file keeps it (an outbox entry, an active-run entry). */
export interface LeaseRecord {
  board: string;
  taskId: string;
  runId: number | null;
  claimLock?: string | undefined;
  workspace: string;
  claimedAt?: number | undefined;
  ttlSeconds?: number | undefined;
}

/** The one way back from a state file to a lease (no expiry known: the open run never stands in for ours). */
export function leaseOf(r: LeaseRecord): Lease {
  const claimedAt = r.claimedAt ?? 0;
  const ttl = r.ttlSeconds ?? 0;
  const lease: Lease = {
    board: r.board,
    taskId: r.taskId,
    runId: r.runId,
    lock: null,
    workspace: r.workspace,
    claimedAt,
    expiresAt: claimedAt + ttl * 1000,
    ttlSeconds: ttl,
  };
  if (r.claimLock !== undefined) lease.claimLock = r.claimLock;
  return lease;
}

/** The lease a claim receipt stands for, before its run id is read. */
export function leaseOfReceipt(board: string, r: ClaimReceipt): Lease {
  return leaseOf({ board, taskId: r.taskId, runId: null, claimLock: r.claimLock, workspace: r.workspace, claimedAt: r.claimedAt, ttlSeconds: r.ttlSeconds });
}

/**
 * The open run of a task as far as show --json tells: where the CLI names the claim (upstream), those
 * fields; else the running run, with the last `claimed` event's lock and expiry.
 */
export function openRun(detail: TaskDetail): { runId: number | null; lock: string | null; expires: number | null } {
  const named = detail.task.claim;
  if (named) return detail.task.status === "running" && named.runId !== null ? named : { runId: null, lock: null, expires: null };
  const running = [...detail.runs].reverse().find((r) => r.status === "running" && r.endedAt === null);
  const claim = [...detail.events].reverse().find((e) => e.claim !== null)?.claim ?? null;
  const same = claim !== null && running !== undefined && claim.runId === running.id;
  if (running) return { runId: running.id, lock: same ? claim.lock : null, expires: same ? claim.expires : null };
  return { runId: null, lock: null, expires: null };
}

/**
 * The run a claim created: the `claimed` event carrying the claim's own lock (exact, even when the run
 * was reclaimed and the task claimed again before this read), else the open run — the only evidence a
 * claim made through ssh or a container leaves. A closed run is returned as it is: judging it says lost.
 */
export function claimedRun(
  detail: TaskDetail,
  claimLock?: string,
  o: { openRunFallback: boolean } = { openRunFallback: true },
): { runId: number | null; lock: string | null; expires: number | null } {
  const own = claimLock === undefined ? undefined : [...detail.events].reverse().find((e) => e.claim !== null && e.claim.lock === claimLock)?.claim;
  if (own && own.runId !== null) return { runId: own.runId, lock: claimLock ?? null, expires: own.expires };
  return o.openRunFallback ? openRun(detail) : { runId: null, lock: null, expires: null };
}

/**
 * The lease with run id, lock and expiry read from show --json. The open run stands in for an
 * unmatched lock only while the claim can still be live (`now` before its expiry): a late read — an
 * outbox replay — could otherwise take another seat's run for ours.
 */
export function leaseFrom(base: Lease, detail: TaskDetail, now?: number): Lease {
  if (base.runId !== null) return base; // a known run is never swapped for a later claimer's
  const open = claimedRun(detail, base.claimLock, { openRunFallback: now === undefined || now < base.expiresAt });
  return {
    ...base,
    runId: open.runId,
    lock: open.lock,
    expiresAt: open.expires !== null ? Math.min(base.expiresAt, open.expires * 1000 + 999) : base.expiresAt,
  };
}

export type LeaseState = "already_applied" | "owned" | LeaseLost;

/** How a run of ours can end by our own close. */
export type ClosedOutcome = "completed" | "blocked" | "scheduled" | "reclaimed" | "review_requested";

/**
 * Judges a lease against the task: our run already closed the way we wanted (a retry after a lost
 * answer) → already_applied; the open run is no longer ours → LeaseLost; otherwise owned.
 */
export function judge(lease: Lease, detail: TaskDetail, closedOutcome: ClosedOutcome | null): LeaseState {
  const mine = lease.runId === null ? undefined : detail.runs.find((r) => r.id === lease.runId);
  if (closedOutcome && mine && mine.outcome === closedOutcome) return "already_applied";
  const open = openRun(detail);
  const status = detail.task.status;
  if (lease.runId !== null && (status !== "running" || open.runId !== lease.runId)) {
    return new LeaseLost(
      { verb: "show", board: lease.board, taskId: lease.taskId, stderrTail: mine?.error ?? undefined },
      { runId: lease.runId, currentStatus: status, currentRunId: open.runId, stoppedBy: stoppedOnBoard(detail, lease.runId) },
    );
  }
  return "owned";
}

/**
 * Whether the board shows the run stopped by hand while it ran: moved to review (`request-review --force`), reclaimed
 * with `reclaim` (not the dispatcher's sweep of an ended claim), or blocked — a run of ours never blocks while it works
 * (its block is its close, judged before this) — after our claim.
 */
export function stoppedOnBoard(detail: TaskDetail, runId: number | null): BoardStop | undefined {
  const mine = detail.runs.find((r) => r.id === runId);
  const by = mine?.closedBy ? mine.closedBy.slice(0, 100) : null;
  if (detail.task.status === "review") return { action: "review", by };
  const claimed = detail.events.findLastIndex((e) => e.kind === "claimed" && (e.claim?.runId ?? e.runId) === runId);
  const after = claimed < 0 ? [] : detail.events.slice(claimed + 1);
  if (after.some((e) => e.kind === "reclaimed" && e.reclaim?.manual === true)) return { action: "reclaim", by };
  if (detail.task.status === "blocked" && after.some((e) => e.kind === "blocked")) return { action: "block", by };
  return undefined;
}
