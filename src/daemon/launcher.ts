// RunLauncher: starts TaskRuns with the seat's shared services, keeps the in-flight table (a slot per
// task: taken before the claim, holding its run once there is one — the run's state is its own record),
// the active-run journal (restart recovery) and the run metrics. A run that fails outside its protocol
// is still reported (and its slot freed).
import { rm } from "node:fs/promises";
import type { Board } from "../board/port.js";
import type { RetryPolicy } from "../board/retry.js";
import type { Config } from "../config/schema.js";
import { describeError } from "../errors/index.js";
import type { Logger } from "../log/logger.js";
import type { Metrics } from "../observe/metrics.js";
import type { Closer } from "../outbox/closer.js";
import type { RunStart, SeatRun, SeatServices } from "../run/context.js";
import type { HeldLease } from "../lease/held.js";
import { type RunReport, TaskRun } from "../run/task-run.js";
import type { Hours, Spend, UsageLedger } from "../state/ledger.js";
import type { ActiveRuns } from "./active-runs.js";
import { account, dailyBudgetSpent, hoursOf, spentSince, spentToday } from "./accounting.js";
import type { SeatTell } from "./events.js";
import { wireRun } from "./run-wiring.js";
import { SeatLeases } from "./leases.js";
import type { SeatSettings } from "./seat-settings.js";

/** The window of a seat's recent spend in status and the fleet: a usage limit's window. */
const FIVE_HOURS_MS = 5 * 60 * 60_000;

/** A task this seat is claiming or running: its run (and the run's own record) once there is one. */
export interface RunSlot {
  board: string;
  taskId: string;
  startedAt: number;
  adopted: boolean;
  run: TaskRun | null;
  /** The run's lease, once claimed: a board event before the run works is checked as soon as it holds it. */
  held?: HeldLease | undefined;
}

/** What every run of the seat shares: the run's own services, and the seat's books, journal and log. */
export interface RunServices extends SeatServices {
  config: Config;
  /** The seat's own half of its settings (seat-settings.ts). */
  seatSettings: SeatSettings;
  closer: Closer;
  log: Logger;
  active: ActiveRuns;
  retry: RetryPolicy;
  metrics?: Metrics | undefined;
  /** The seat's usage ledger (today's spend, the daily budget). */
  ledger?: UsageLedger | undefined;
}

export class RunLauncher {
  readonly inflight = new Map<string, RunSlot>();
  readonly promises = new Set<Promise<void>>();
  /** The seat's leases: every claim it takes or takes up again is made there (leases.ts). */
  readonly leases: SeatLeases;
  /** The seat's part of every run it starts (run/context.ts), built once. */
  private readonly seatRun: SeatRun;
  private readonly drainWaiters: Array<() => void> = [];

  constructor(
    private readonly s: RunServices,
    shutdown: AbortSignal,
    /** Where the seat's events are told (run-wiring.ts: what each run and lease tells becomes one). */
    private readonly seat: SeatTell,
  ) {
    this.leases = new SeatLeases(s);
    this.seatRun = { ...s, shutdown, seatToday: () => spentToday(s) };
  }

  static key(board: string, taskId: string): string {
    return `${board}/${taskId}`;
  }

  /** Reserves a slot before the claim call so concurrent claims cannot exceed the seat limit. */
  reserve(board: string, taskId: string): RunSlot {
    const slot: RunSlot = { board, taskId, startedAt: this.s.clock.now(), adopted: false, run: null };
    this.inflight.set(RunLauncher.key(board, taskId), slot);
    return slot;
  }

  release(board: string, taskId: string): void {
    this.free(RunLauncher.key(board, taskId));
  }

  /** Why this seat claims nothing more today (agent.budget.seatDaily spent), or null. */
  dailyBudgetSpent(): string | null {
    return dailyBudgetSpent(this.s);
  }

  /** The seat's spend today and in the last 5 hours (status, fleet). */
  spend(): { today: Spend; window5h: Spend; budget: string | null; hours: Hours | null } {
    const s = this.s;
    return { today: spentToday(s), window5h: spentSince(s, s.clock.now() - FIVE_HOURS_MS), budget: dailyBudgetSpent(s), hours: hoursOf(s) };
  }

  /** Settles once nothing is in flight — claims under way included (they launch a run or give their slot back). */
  drained(): Promise<void> {
    if (this.inflight.size === 0) return Promise.resolve();
    return new Promise((resolve) => this.drainWaiters.push(resolve));
  }

  private free(key: string): void {
    this.inflight.delete(key);
    if (this.inflight.size === 0) for (const w of this.drainWaiters.splice(0)) w();
  }

  /** A board event about a task in flight (watch): the run checks its lease and reads new notes now. */
  boardEvent(board: string, taskId: string, kind: string): void {
    const slot = this.inflight.get(RunLauncher.key(board, taskId));
    const live = slot?.run?.record.live ?? slot?.held;
    if (!live) return;
    this.s.log.debug({ board, task_id: taskId, run_id: slot?.run?.record.runId ?? null, event: kind }, "board event for a running task: checking");
    live.checkNow();
  }

  launch(o: RunStart & { board: Board }): void {
    const { board, traceId, held } = o;
    const taskId = held.lease.taskId;
    const key = RunLauncher.key(board.slug, taskId);
    const slot = this.inflight.get(key) ?? this.reserve(board.slug, taskId);
    slot.adopted = o.adopted !== undefined;
    // The run's lease owns its fenced view (a run id read late is on it at once): logs read it there.
    const fenced = held.fenced;
    const ids = () => ({ board: board.slug, task_id: taskId, run_id: fenced.lease.runId, trace_id: traceId });
    const run = new TaskRun(this.seatRun, o);
    wireRun(this.s, this.seat, run, held, { board: board.slug, taskId, traceId, agent: o.agent.name, adopted: o.adopted !== undefined });
    slot.run = run;
    slot.held = held;
    let kept = false;
    // Exactly one report per run, whatever a listener or a state write throws while it is handed on.
    const p = run
      .run()
      .catch((err: unknown): RunReport => {
        this.s.log.fatal({ ...ids(), err: describeError(err) }, "run failed outside the protocol");
        return {
          taskId,
          agent: o.agent.name,
          runId: fenced.lease.runId,
          traceId,
          decision: "block",
          close: "not_attempted",
          resumed: false,
          usage: null,
          durationMs: this.s.clock.now() - slot.startedAt,
        };
      })
      .then((report) => {
        // A claim kept for the restart keeps its journal entry: the next start continues the run (continue.ts).
        kept = report.close === "kept";
        for (const [what, step] of [
          ["accounting", () => account(this.s, board.slug, report)],
          ["the close report", () => this.seat.tell("run:closed", { ...report, board: board.slug })],
        ] as const)
          try {
            step();
          } catch (err) {
            this.s.log.error({ ...ids(), err: describeError(err) }, `after the close, ${what} failed (the run is closed)`);
          }
      })
      .finally(async () => {
        if (kept) this.s.active.markKept(board.slug, taskId);
        else this.s.active.remove(board.slug, taskId);
        if (o.adopted) await rm(o.adopted.runDir, { recursive: true, force: true }).catch(() => undefined);
        this.promises.delete(p);
        this.free(key);
        this.seat.tell("slot:freed", { board: board.slug, taskId });
      });
    this.promises.add(p);
  }
}
