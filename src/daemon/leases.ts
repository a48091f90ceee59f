// The seat's leases: every claim this seat takes (admission) or takes up again after a restart (recovery,
// continuation) is made here, with the seat's part of a lease built once — how its writes are fenced
// (the seat's retries, clock and author; a retry logged with the run's ids), how it is held (the seat's
// clock, timers and heartbeat loop) and how a claim is sized and timed (claim.*, config/timing.ts). Nothing
// else in the seat reaches into lease/ to make one.
import type { Board, Capabilities, TaskDetail } from "../board/port.js";
import type { RetryPolicy } from "../board/retry.js";
import type { Config } from "../config/schema.js";
import { type Timing, timingFor, ttlForTask } from "../config/timing.js";
import type { FencedOptions } from "../lease/fenced.js";
import { type ClaimRead, HeldLease, type HoldDeps, type StoredLease } from "../lease/held.js";
import { openRun } from "../lease/lease.js";
import { type ClaimSettings, take } from "../lease/take.js";
import type { Logger } from "../log/logger.js";
import type { RunFactories } from "../run/context.js";
import type { Clock } from "../time/clock.js";

/** What the seat's leases are made with (its services: build.ts). */
export interface SeatLeasesDeps {
  config: Config;
  retry: RetryPolicy;
  clock: Clock;
  log: Logger;
  /** The seat's timers and heartbeat loop (run/work/factories.ts). */
  make: Pick<RunFactories, "timer" | "keeper">;
}

/** A lease taken up again from its stored record (the active-run journal). */
export interface ResumedFrom extends Omit<StoredLease, "taskId"> {
  task: string;
  board: string;
  traceId: string;
}

/** How this seat sizes its claims, from its config. */
export function claimSettings(c: Config): ClaimSettings {
  return {
    assignee: c.assignee,
    ttlSeconds: c.claim.ttlSeconds,
    maxTtlSeconds: c.claim.maxTtlSeconds,
    timing: (ttl) => timingFor(c, ttl),
    ttlForTask: (maxRuntime) => ttlForTask(c, maxRuntime),
  };
}

export class SeatLeases {
  private readonly hold: HoldDeps;
  private readonly timing: (ttl: number) => Timing;
  private readonly claims: ClaimSettings;

  constructor(private readonly d: SeatLeasesDeps) {
    this.hold = { clock: d.clock, timer: (at, fire) => d.make.timer(at, fire), keeper: (k) => d.make.keeper(k) };
    this.timing = (ttl) => timingFor(d.config, ttl);
    this.claims = claimSettings(d.config);
  }

  /** The task, held with the TTL it needs (lease/take.ts); null when it was not ours to take. */
  take(board: Board, taskId: string, o: { traceId: string; caps: Capabilities | null; signal: AbortSignal }): Promise<HeldLease | null> {
    let held: HeldLease | null = null;
    const seat = { fencing: this.fencing(board.slug, taskId, o.traceId, () => held?.lease.runId ?? null), hold: this.hold };
    return take(board, taskId, this.claims, o.caps, seat, o.signal).then((h) => {
      held = h;
      return h;
    });
  }

  /** A claim this seat took before it restarted, with the deadline the journal last had (renewals moved it). */
  resume(board: Board, r: ResumedFrom, o: { traceId?: string; read?: Partial<ClaimRead> } = {}): HeldLease {
    const fencing = this.fencing(r.board, r.task, o.traceId ?? r.traceId, () => r.runId);
    return HeldLease.resume(board, { ...r, taskId: r.task }, { fencing, hold: this.hold }, this.timing, o.read);
  }

  /** Whether the task, as `detail` shows it, still runs on run `runId` (its open run is that one). */
  stillOurs(detail: TaskDetail, runId: number | null): boolean {
    return runId !== null && detail.task.status === "running" && openRun(detail).runId === runId;
  }

  /** Less than this left on a claim of `ttlSeconds` is no run worth starting: the task goes back for a fresh claim. */
  minimumLeftMs(ttlSeconds: number): number {
    const t = this.timing(ttlSeconds);
    return Math.max(120, 2 * t.wrapUpSeconds + t.heartbeatSeconds) * 1000;
  }

  /** How a lease writes to its board (lease/fenced.ts): the seat's retries, clock and author; retries logged with the run's ids. */
  private fencing(board: string, taskId: string, traceId: string, runId: () => number | null): FencedOptions {
    const { retry, clock, log } = this.d;
    return {
      retry,
      clock,
      author: this.d.config.author,
      onRetry: (verb, err, attempt) =>
        log.warn({ board, task_id: taskId, run_id: runId(), trace_id: traceId, verb, attempt, err: err.message }, "board call failed; retrying"),
    };
  }
}
