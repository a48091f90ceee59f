// Claiming one task with the TTL it needs. Hermes 0.20 shows a task's max runtime only in `context`,
// and a claim's TTL cannot change once taken, so there are two ways to size it:
// - claim first (the default): `claim --ttl claim.ttlSeconds` at once (pickup is one CLI call), with
//   `context` read alongside; a task whose max runtime needs a longer TTL is given back (`reclaim`, with
//   a reason) and claimed again with it — only such tasks pay the two extra calls;
// - context first, where a reclaim would count against the task (capability `reclaimCountsAsFailure`).
// The `context` text is handed to the run (no second read). Where the CLI renews claims on heartbeat
// (upstream), neither is needed: the claim is taken with claim.ttlSeconds at once and every heartbeat
// renews it to min(now + ttl, claim + the task's max runtime, else claim.maxTtlSeconds) — the run's
// deadline follows. Where claims are named, each claim gets a claimer of its own (lease/lease.ts).
import {
  type Board,
  type Capabilities,
  NotClaimable,
  type Rejected,
  type TaskDetail,
  TaskNotFound,
  type Transient,
  maxRuntimeFromContext,
} from "../board/index.js";
import type { Config } from "../config/schema.js";
import { timingFor, ttlForTask } from "../config/timing.js";
import { type Acquired, acquire, reacquire } from "../lease/acquire.js";
import { LeaseClock } from "../lease/clock.js";
import { type Lease, newClaimer } from "../lease/lease.js";

export interface Claimed {
  lease: Lease;
  detail: TaskDetail | null;
  /** The claim took effect although the CLI failed (lease/acquire.ts). */
  claimFailure?: Transient | Rejected | undefined;
  contextText: string | null;
  /** The TTL the run is timed by (at most the claim's). */
  ttl: number;
  /** The run's deadline, polite stop, heartbeat and renewals. */
  leaseClock: LeaseClock;
  /** The claim was given back and taken again with the task's max runtime. */
  reclaimed: boolean;
}

/** `context`, or null when it cannot be read (the default TTL applies); a vanished task is thrown. */
const readContext = (board: Board, taskId: string, signal: AbortSignal) =>
  board.context(taskId, signal).catch((err: unknown) => {
    if (err instanceof TaskNotFound) throw err;
    return null;
  });

const notOurs = (err: unknown) => err instanceof NotClaimable || err instanceof TaskNotFound;

/** Null when the task was not ours to take (a lost race, gone); other failures throw. */
export async function claimTask(board: Board, taskId: string, c: Config, caps: Capabilities | null, signal: AbortSignal): Promise<Claimed | null> {
  const named = { claimer: caps?.namedClaims ? newClaimer(c.assignee) : undefined };
  try {
    if (caps?.reclaimCountsAsFailure && !caps.heartbeatExtends) {
      const contextText = await readContext(board, taskId, signal);
      const ttl = ttlForTask(c, contextText === null ? null : maxRuntimeFromContext(contextText));
      return timed(await acquire(board, taskId, ttl, signal, named), contextText, ttl, c, caps, false);
    }
    const contextP = readContext(board, taskId, signal);
    contextP.catch(() => undefined); // awaited below; a claim failure must not leave it unhandled
    let claim: Acquired;
    try {
      claim = await acquire(board, taskId, c.claim.ttlSeconds, signal, named);
    } finally {
      await contextP.catch(() => null);
    }
    const contextText = await contextP.catch(() => null);
    const needed = ttlForTask(c, contextText === null ? null : maxRuntimeFromContext(contextText));
    if (caps?.heartbeatExtends) return renewable(claim, contextText, needed, c);
    if (needed <= c.claim.ttlSeconds || claim.claimFailure) return timed(claim, contextText, needed, c, caps, false);
    const again = await reacquire(
      board,
      claim.lease,
      needed,
      `hermes-kanban-bridge: claiming again with the task's max runtime (--ttl ${needed})`,
      signal,
      named,
    );
    return timed(again, contextText, needed, c, caps, true);
  } catch (err) {
    if (notOurs(err)) return null;
    throw err;
  }
}

function timed(claim: Acquired, contextText: string | null, ttl: number, c: Config, _caps: Capabilities | null, reclaimed: boolean): Claimed {
  const { lease, detail, claimFailure } = claim;
  return { lease, detail, contextText, ttl, leaseClock: LeaseClock.of(lease.claimedAt, timingFor(c, ttl)), reclaimed, claimFailure };
}

/**
 * A claim the heartbeat renews: timed by the configured TTL (or the task's, when shorter), renewed up to
 * the task's max runtime + safety — else claim.maxTtlSeconds — from the claim.
 */
function renewable(claim: Acquired, contextText: string | null, needed: number, c: Config): Claimed {
  const { lease, detail, claimFailure } = claim;
  const ttl = Math.min(c.claim.ttlSeconds, needed);
  const maxRuntime = contextText === null ? null : maxRuntimeFromContext(contextText);
  const leaseClock = LeaseClock.renewable(lease.claimedAt, timingFor(c, ttl), {
    taskTtlSeconds: maxRuntime !== null ? needed : null,
    maxTtlSeconds: c.claim.maxTtlSeconds,
  });
  return { lease, detail, contextText, ttl, leaseClock, reclaimed: false, claimFailure };
}

/** Each board's capabilities, read once at start; a board that cannot say is left at null (read again on use). */
export async function readCapabilities(
  boards: readonly Board[],
  signal: AbortSignal,
  onError: (board: string, err: unknown) => void,
): Promise<Map<string, Capabilities | null>> {
  const entries = await Promise.all(
    boards.map(async (b) => {
      try {
        return [b.slug, await b.capabilities(signal)] as const;
      } catch (err) {
        onError(b.slug, err);
        return [b.slug, null] as const;
      }
    }),
  );
  return new Map(entries);
}
