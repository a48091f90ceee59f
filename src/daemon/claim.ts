// Claiming one task with the TTL it needs: its max runtime (0.20.0 shows it only in `context`, so
// that is read before the claim and handed to the run), the claim itself, and the run's timing —
// its deadline, and where the CLI renews claims on heartbeat, how far that deadline may move.
import { type Board, type Capabilities, type Lease, NotClaimable, type TaskDetail, TaskNotFound, maxRuntimeFromContext } from "../board/index.js";
import { type Timing, timingFor, ttlForTask } from "../config/timing.js";
import type { Config } from "../config/schema.js";

export interface Claimed {
  lease: Lease;
  detail: TaskDetail | null;
  contextText: string | null;
  ttl: number;
  timing: Timing;
  deadline: number;
  extend: { ttlSeconds: number; latest: number } | undefined;
}

/** Null when the task was not ours to take (a lost race, gone); other failures throw. */
export async function claimTask(board: Board, taskId: string, c: Config, caps: Capabilities | null, signal: AbortSignal): Promise<Claimed | null> {
  let contextText: string | null;
  try {
    contextText = await board.context(taskId, signal).catch((err: unknown) => {
      if (err instanceof TaskNotFound) throw err;
      return null;
    });
    const maxRuntime = contextText === null ? null : maxRuntimeFromContext(contextText);
    const ttl = ttlForTask(c, maxRuntime);
    const { lease, detail } = await board.claim(taskId, ttl, signal);
    const timing = timingFor(c, ttl);
    const deadline = lease.claimedAt + timing.runSeconds * 1000;
    // A renewable claim still ends: at the task's own max runtime, else at claim.maxTtlSeconds.
    const extend =
      caps?.heartbeatExtends && maxRuntime === null
        ? { ttlSeconds: ttl, latest: Math.max(deadline, lease.claimedAt + (c.claim.maxTtlSeconds - timing.safetySeconds) * 1000) }
        : undefined;
    return { lease, detail, contextText, ttl, timing, deadline, extend };
  } catch (err) {
    if (err instanceof NotClaimable || err instanceof TaskNotFound) return null;
    throw err;
  }
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
