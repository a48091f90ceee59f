// The seat's pauses as runs end: a usage limit pauses claiming until its reset (and wakes the boards
// then), an auth failure until an operator fixes it. The seat state itself is seat.ts.
import type { Logger } from "../log/logger.js";
import type { RunReport } from "../run/task-run.js";
import { type Clock, sleepUnlessAborted } from "../time/clock.js";
import type { SeatState } from "./seat.js";
import { iso } from "./status.js";

export interface PauseHooks {
  paused(e: { until: string | null; reason: string | null }): void;
  resumed(): void;
}

export class SeatPauses {
  constructor(
    private readonly seat: SeatState,
    private readonly clock: Clock,
    private readonly log: Logger,
    private readonly signal: AbortSignal,
    private readonly hooks: PauseHooks,
  ) {}

  /** A run ended: its limit or auth failure pauses the seat. */
  afterRun(r: RunReport): void {
    if (r.limit) {
      this.seat.pauseUntil(r.limit.resetsAt, `usage limit (${r.limit.kind})`);
      this.log.warn({ until: iso(this.seat.pausedUntil()), reason: this.seat.reason }, "seat paused");
      this.hooks.paused({ until: iso(this.seat.pausedUntil()), reason: this.seat.reason });
      this.wakeAtEnd();
    }
    if (r.authFailed) {
      this.seat.pauseForAuth();
      this.log.error({ reason: this.seat.reason }, "seat paused until an operator fixes authentication");
      this.hooks.paused({ until: null, reason: this.seat.reason });
    }
  }

  /** Wakes the boards when a usage-limit pause ends. */
  wakeAtEnd(): void {
    const until = this.seat.pausedUntil();
    if (until === null || !Number.isFinite(until)) return;
    void sleepUnlessAborted(until - this.clock.now() + 10, this.signal).then((elapsed) => {
      if (!elapsed) return;
      this.log.info({}, "seat pause over: claiming again");
      this.hooks.resumed();
    });
  }
}
