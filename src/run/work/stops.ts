// The run's stop ladder, first wins: what stops the agent and why, from whichever comes first — the seat's
// shutdown, the lease's polite stop (its wrap-up) and hard stop (its deadline), the board's word that the
// lease is lost, or the run itself (a cap, a budget, an unresolved heartbeat, the agent's own failed login).
// The first cause is the one the run's facts keep (decide.ts reads it); a lost lease stops the agent at
// once (the workspace is another run's now), anything else politely first, then after the kill grace.
// Opened on the work phase's release stack: its listeners and timers are released with it.
import type { Releasers } from "../../log/releasers.js";
import type { Timer, Work } from "../context.js";
import type { Stop } from "../record.js";

export class RunStops {
  /** Aborted to stop the agent now (the hard stop). */
  readonly agent = new AbortController();
  /** Aborted to ask the agent to wrap up (the polite stop). */
  readonly wrapUp = new AbortController();
  /** The run's timers (the kill grace, the cell's watches): cancelled when the scope ends. */
  readonly timers: Timer[] = [];

  private constructor(private readonly w: Pick<Work, "seat" | "record">) {}

  /** The ladder, listening to the seat's shutdown and the lease's signals until `scope` is released. */
  static open(w: Pick<Work, "seat" | "start" | "record">, scope: Releasers): RunStops {
    const s = new RunStops(w);
    const facts = w.record.facts;
    const held = w.start.held;
    const onShutdown = () => s.stop("shutdown");
    const shutdown = w.seat.shutdown;
    if (shutdown.aborted) onShutdown();
    else shutdown.addEventListener("abort", onShutdown, { once: true });
    scope.push("shutdown listener", () => shutdown.removeEventListener("abort", onShutdown));
    scope.push("timers", () => {
      for (const t of s.timers) t.cancel();
    });
    // The graceful cut: the polite stop at the lease's wrap-up (the run is being cut for its deadline), the hard stop at its deadline.
    const listen: [AbortSignal, () => void][] = [
      [
        held.wrapUp,
        () => {
          if (facts.stop === null) facts.stop = "deadline";
          s.wrapUp.abort(new Error("wrap-up before the deadline"));
        },
      ],
      [
        held.expired,
        () => {
          if (facts.stop === null) facts.stop = "deadline";
          s.agent.abort(new Error("deadline"));
        },
      ],
      [held.lost, () => s.stop("lease_lost")],
    ];
    for (const [signal, on] of listen)
      if (signal.aborted) on();
      else signal.addEventListener("abort", on, { once: true });
    scope.push("lease signals", () => {
      for (const [signal, on] of listen) signal.removeEventListener("abort", on);
    });
    return s;
  }

  /** Stops the run for `why` (the first cause is kept): at once for a lost lease, else politely, then after the kill grace. */
  readonly stop = (why: Stop, detail?: string): void => {
    const facts = this.w.record.facts;
    if (facts.stop === null) {
      facts.stop = why;
      if (detail) facts.stopDetail = detail;
    }
    if (why === "lease_lost") this.agent.abort(new Error("lease lost"));
    this.wrapUp.abort(new Error(`polite stop: ${why ?? "stopped"}`));
    const { make, clock, settings } = this.w.seat;
    this.timers.push(make.timer(clock.now() + settings.killGraceMs, () => this.agent.abort(new Error(why ?? "stopped"))));
  };
}
