// Taking a lease with the TTL its task needs. Hermes 0.20 shows a task's max runtime only in `context`,
// and a claim's TTL cannot change once taken, so there are two ways to size it:
// - claim first (the default): `claim --ttl <ttl>` at once (pickup is one CLI call), with `context` read
//   once it is ours, beside the claim's `show` (a claim is never slowed by its own read, nor a lost race
//   charged a read, when many seats claim at once); a task whose max runtime needs a longer TTL is given
//   back (HeldLease.giveBack, with a reason) and claimed again with it — only such tasks pay the extra calls;
// - context first, where a reclaim would count against the task (capability `reclaimCountsAsFailure`).
// The `context` text is handed to the run (no second read). Where the CLI renews claims on heartbeat
// (upstream), neither is needed: the claim is taken with the configured TTL at once and every heartbeat
// renews it to min(now + ttl, claim + the task's max runtime, else the longest TTL) — the deadline follows.
// Where claims are named, each claim gets a claimer of its own (lease.ts).
import type { Board, Capabilities } from "../board/port.js";
import { maxRuntimeFromContext } from "../board/index.js";
import type { Timing } from "../config/timing.js";
import { NotClaimable, TaskNotFound } from "../errors/board.js";
import { type Acquired, acquire } from "./acquire.js";
import { LeaseClock } from "./clock.js";
import { HeldLease, type LeaseSeat } from "./held.js";
import { newClaimer } from "./lease.js";

/** How this seat sizes its claims (claim.*, the timing the TTL implies). */
export interface ClaimSettings {
  /** The lane the seat works for (named claims carry it). */
  assignee: string;
  /** claim.ttlSeconds: the TTL a claim is first taken with. */
  ttlSeconds: number;
  /** claim.maxTtlSeconds: no claim is renewed past this from its start (a task without a max runtime). */
  maxTtlSeconds: number;
  /** The timing of a claim with a TTL (config/timing.ts timingFor). */
  timing(ttlSeconds: number): Timing;
  /** The TTL a task's max runtime needs (config/timing.ts ttlForTask). */
  ttlForTask(maxRuntimeSeconds: number | null): number;
}

/** `context`, or null when it cannot be read (the default TTL applies); a vanished task is thrown. */
const readContext = (board: Board, taskId: string, signal: AbortSignal) =>
  board.context(taskId, signal).catch((err: unknown) => {
    if (err instanceof TaskNotFound) throw err;
    return null;
  });

const notOurs = (err: unknown) => err instanceof NotClaimable || err instanceof TaskNotFound;
const maxRuntimeOf = (contextText: string | null) => (contextText === null ? null : maxRuntimeFromContext(contextText));

/** The task, held with the TTL it needs; null when it was not ours to take (a lost race, gone). Other failures throw. */
export async function take(
  board: Board,
  taskId: string,
  s: ClaimSettings,
  caps: Capabilities | null,
  seat: LeaseSeat,
  signal: AbortSignal,
): Promise<HeldLease | null> {
  const named = { claimer: caps?.namedClaims ? newClaimer(s.assignee) : undefined };
  const timed = (claim: Acquired, contextText: string | null, ttl: number, reclaimed: boolean) =>
    HeldLease.of(board, claim, seat, LeaseClock.of(claim.lease.claimedAt, s.timing(ttl)), { contextText, reclaimed });
  /**
   * A claim of a task that is not this seat's lane is given back at once: Hermes's claim does not check the
   * assignee, and a task id can come from a watch line, whose text a task's writer partly controls.
   */
  const notOurLane = async (claim: Acquired): Promise<boolean> => {
    const lane = claim.detail?.task.assignee;
    if (claim.detail === null || lane?.toLowerCase() === s.assignee.toLowerCase()) return false;
    await timed(claim, null, s.ttlSeconds, false).giveBack(
      `hermes-kanban-bridge: not this seat's lane (${s.assignee}): the task's is ${lane ?? "nobody's"}`,
      signal,
    );
    return true;
  };
  try {
    if (caps?.reclaimCountsAsFailure && !caps.heartbeatExtends) {
      const contextText = await readContext(board, taskId, signal);
      const ttl = s.ttlForTask(maxRuntimeOf(contextText));
      const claim = await acquire(board, taskId, ttl, signal, named);
      return (await notOurLane(claim)) ? null : timed(claim, contextText, ttl, false);
    }
    let contextP: Promise<string | null> | undefined;
    const readIt = () => {
      contextP ??= readContext(board, taskId, signal);
      contextP.catch(() => undefined); // awaited below; a failure after the claim must not leave it unhandled
      return contextP;
    };
    let claim: Acquired;
    try {
      claim = await acquire(board, taskId, s.ttlSeconds, signal, { ...named, onClaimed: readIt });
    } finally {
      await contextP?.catch(() => null);
    }
    if (await notOurLane(claim)) return null;
    const contextText = await readIt().catch(() => null);
    const needed = s.ttlForTask(maxRuntimeOf(contextText));
    if (caps?.heartbeatExtends) return renewable(board, claim, contextText, needed, s, seat);
    if (needed <= s.ttlSeconds || claim.claimFailure) return timed(claim, contextText, needed, false);
    await timed(claim, contextText, needed, false).giveBack(`hermes-kanban-bridge: claiming again with the task's max runtime (--ttl ${needed})`, signal);
    return timed(await acquire(board, taskId, needed, signal, named), contextText, needed, true);
  } catch (err) {
    if (notOurs(err)) return null;
    throw err;
  }
}

/**
 * A claim the heartbeat renews: timed by the configured TTL (or the task's, when shorter), renewed up to
 * the task's max runtime + safety — else the longest TTL — from the claim.
 */
function renewable(board: Board, claim: Acquired, contextText: string | null, needed: number, s: ClaimSettings, seat: LeaseSeat): HeldLease {
  const ttl = Math.min(s.ttlSeconds, needed);
  const clock = LeaseClock.renewable(claim.lease.claimedAt, s.timing(ttl), {
    taskTtlSeconds: maxRuntimeOf(contextText) !== null ? needed : null,
    maxTtlSeconds: s.maxTtlSeconds,
  });
  return HeldLease.of(board, claim, seat, clock, { contextText, reclaimed: false });
}
