// Admission: whether a task may be claimed now (not stopping, not in flight, a free slot, the seat not
// paused), the lease taken with the TTL it needs (the seat's leases: leases.ts), the claim's metrics and log line, and
// the launch. Each board's capabilities are read once at start (readCapabilities).
import { randomUUID } from "node:crypto";
import type { AgentAdapter } from "../agents/port.js";
import type { Board, Capabilities } from "../board/port.js";
import type { Config } from "../config/schema.js";
import type { HeldLease } from "../lease/held.js";
import type { Logger } from "../log/logger.js";
import type { Metrics } from "../observe/metrics.js";
import type { Clock } from "../time/clock.js";
import type { DaemonHealth } from "./health.js";
import { RunLauncher } from "./launcher.js";
import { pickupLatencySeconds } from "../observe/pickup.js";
import type { SeatState } from "./seat.js";

export interface AdmissionDeps {
  config: Config;
  agent: AgentAdapter;
  launcher: RunLauncher;
  seat: SeatState;
  health: DaemonHealth;
  clock: Clock;
  log: Logger;
  metrics?: Metrics | undefined;
  signal: AbortSignal;
  capabilities(board: string): Capabilities | null;
  stopping(): boolean;
  onClaimed(e: { board: string; taskId: string; runId: number | null; traceId: string; ttlSeconds: number }): void;
}

/** Claims one task with the TTL it needs and starts its run. False when it was not ours (or not now) to take. */
export async function admit(d: AdmissionDeps, board: Board, taskId: string): Promise<boolean> {
  const { launcher, config: c } = d;
  if (d.stopping() || launcher.inflight.has(RunLauncher.key(board.slug, taskId)) || c.concurrency - launcher.inflight.size <= 0 || d.seat.paused())
    return false;
  if (launcher.dailyBudgetSpent()) return false;
  launcher.reserve(board.slug, taskId);
  const traceId = randomUUID();
  let held: HeldLease | null;
  try {
    held = await launcher.leases.take(board, taskId, { traceId, caps: d.capabilities(board.slug), signal: d.signal });
  } catch (err) {
    launcher.release(board.slug, taskId);
    throw err;
  }
  if (!held) {
    launcher.release(board.slug, taskId);
    return false;
  }
  d.health.boardAnswered(board.slug);
  const { lease } = held;
  const { detail } = held.read;
  const ttl = held.clock.timing.ttlSeconds;
  d.metrics?.claims.inc({ board: board.slug });
  const pickup = detail ? pickupLatencySeconds(detail, lease.claimedAt) : null;
  if (pickup !== null) d.metrics?.pickupLatency.observe({ board: board.slug }, pickup);
  d.log.info({ board: board.slug, task_id: taskId, run_id: lease.runId, trace_id: traceId, ttl_s: ttl, pickup_s: pickup }, "claimed");
  d.onClaimed({ board: board.slug, taskId, runId: lease.runId, traceId, ttlSeconds: ttl });
  launcher.launch({ held, board, agent: d.agent, traceId, activePrGuard: d.capabilities(board.slug)?.authorizeExistingPr === true });
  return true;
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
