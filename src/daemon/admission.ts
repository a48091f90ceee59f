// Admission: whether a task may be claimed now (not stopping, not in flight, a free slot, the seat not
// paused), the claim with the TTL it needs (claim.ts), the claim's metrics and log line, and the launch.
import { randomUUID } from "node:crypto";
import type { AgentAdapter } from "../agents/port.js";
import type { Board, Capabilities } from "../board/port.js";
import type { Config } from "../config/schema.js";
import type { Logger } from "../log/logger.js";
import type { Metrics } from "../observe/metrics.js";
import type { Clock } from "../time/clock.js";
import { type Claimed, claimTask } from "./claim.js";
import type { DaemonHealth } from "./health.js";
import { RunLauncher } from "./launcher.js";
import { pickupLatencySeconds } from "./pickup.js";
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
  let got: Claimed | null;
  try {
    got = await claimTask(board, taskId, c, d.capabilities(board.slug), d.signal);
  } catch (err) {
    launcher.release(board.slug, taskId);
    throw err;
  }
  if (!got) {
    launcher.release(board.slug, taskId);
    return false;
  }
  d.health.boardAnswered(board.slug);
  const { lease, detail, ttl } = got;
  const traceId = randomUUID();
  d.metrics?.claims.inc({ board: board.slug });
  const pickup = detail ? pickupLatencySeconds(detail, lease.claimedAt) : null;
  if (pickup !== null) d.metrics?.pickupLatency.observe({ board: board.slug }, pickup);
  d.log.info({ board: board.slug, task_id: taskId, run_id: lease.runId, trace_id: traceId, ttl_s: ttl, pickup_s: pickup }, "claimed");
  d.onClaimed({ board: board.slug, taskId, runId: lease.runId, traceId, ttlSeconds: ttl });
  launcher.launch({ ...got, board, agent: d.agent, traceId, activePrGuard: d.capabilities(board.slug)?.authorizeExistingPr === true });
  return true;
}
