// The seat's pauses as runs end: a usage limit pauses claiming until its reset (and wakes the boards
// then), an auth failure until an operator fixes it. The seat state itself is seat.ts. A task this seat
// parked at its limit (seat.onLimit: wait — `schedule`d) is journaled (<stateDir>/parked.json) and
// unblocked by this seat when the pause is over (also after a restart), so it continues it without an
// operator; the scan that follows claims it.
import { z } from "zod";
import type { Board } from "../board/port.js";
import { describeError } from "../errors/index.js";
import type { Logger } from "../log/logger.js";
import type { RunReport } from "../run/task-run.js";
import { writeStateFile } from "../state/atomic.js";
import { statePath } from "../state/layout.js";
import { readSmallFile } from "../state/read.js";
import { quarantine } from "../state/quarantine.js";
import { type Clock, sleepUnlessAborted } from "../time/clock.js";
import type { SeatState } from "./seat.js";
import { iso } from "./status.js";

export interface PauseHooks {
  paused(e: { until: string | null; reason: string | null }): void;
  resumed(): void;
}

const Parked = z
  .array(z.object({ board: z.string().max(200), taskId: z.string().max(200), runId: z.number().int().nullable(), at: z.string().max(100) }))
  .max(1000);
type ParkedTask = z.output<typeof Parked>[number];

export class SeatPauses {
  private parked: ParkedTask[] = [];

  constructor(
    private readonly seat: SeatState,
    private readonly clock: Clock,
    private readonly log: Logger,
    private readonly signal: AbortSignal,
    private readonly hooks: PauseHooks,
    private readonly o: { stateDir?: string; seatName?: string; boards?: ReadonlyMap<string, Board> } = {},
  ) {}

  private get file(): string | null {
    return this.o.stateDir ? statePath(this.o.stateDir, "parked") : null;
  }

  /** A run ended: its limit or auth failure pauses the seat; a task it parked is kept to continue after. */
  afterRun(r: RunReport, board?: string): void {
    if (r.limit) {
      this.seat.pauseUntil(r.limit.resetsAt, `usage limit (${r.limit.kind})${r.limit.note ? `; ${r.limit.note}` : ""}`);
      this.log.warn({ until: iso(this.seat.pausedUntil()), reason: this.seat.reason }, "seat paused");
      this.hooks.paused({ until: iso(this.seat.pausedUntil()), reason: this.seat.reason });
      if (r.handedOff === "wait" && board) {
        this.parked.push({ board, taskId: r.taskId, runId: r.runId, at: new Date(this.clock.now()).toISOString() });
        this.save();
      }
      this.wakeAtEnd();
    }
    if (r.authFailed) {
      this.seat.pauseForAuth();
      this.log.error({ reason: this.seat.reason }, "seat paused until an operator fixes authentication");
      this.hooks.paused({ until: null, reason: this.seat.reason });
    }
  }

  /** Wakes the boards when a usage-limit pause ends (the parked tasks first). */
  wakeAtEnd(): void {
    const until = this.seat.pausedUntil();
    if (until === null || !Number.isFinite(until)) return;
    void sleepUnlessAborted(until - this.clock.now() + 10, this.signal)
      .then(async (elapsed) => {
        if (!elapsed) return;
        await this.continueParked();
        this.log.info({}, "seat pause over: claiming again");
        this.hooks.resumed();
      })
      .catch((err: unknown) => this.log.error({ err: describeError(err) }, "resuming after the pause failed"));
  }

  /** At start: the parked tasks of an earlier process, continued now when the seat is not paused. */
  async load(): Promise<void> {
    const f = this.file;
    if (!f) return;
    const r = await readSmallFile(f, 256 * 1024);
    if ("error" in r) return quarantine(f, r.error);
    if (r.text === null) return;
    try {
      const parsed = Parked.safeParse(JSON.parse(r.text));
      if (!parsed.success) return quarantine(f, "not a list of parked tasks");
      this.parked = parsed.data;
    } catch {
      return quarantine(f, "not JSON");
    }
    if (!this.seat.paused()) await this.continueParked();
  }

  /**
   * Unblocks every parked task that is still where this seat left it: re-read first — a task someone
   * else moved meanwhile (unblocked, blocked, completed, scheduled again by another run) is not touched
   * and is dropped from the list.
   */
  private async continueParked(): Promise<void> {
    for (const p of [...this.parked]) {
      const board = this.o.boards?.get(p.board);
      if (!board) continue;
      try {
        const d = await board.show(p.taskId, this.signal);
        const lastRun = d.runs.at(-1);
        if (d.task.status !== "scheduled" || (p.runId !== null && lastRun?.id !== p.runId)) {
          this.log.info({ board: p.board, task_id: p.taskId, status: d.task.status }, "parked task was moved meanwhile: left as it is");
          this.drop(p);
          continue;
        }
        await board.unblock(
          p.taskId,
          `the usage limit of seat ${this.o.seatName ?? "?"} has reset: this seat continues the task (seat.onLimit: wait)`,
          this.signal,
        );
        this.log.info({ board: p.board, task_id: p.taskId }, "parked task unblocked: continuing it");
      } catch (err) {
        if (this.signal.aborted) return;
        this.log.warn({ board: p.board, task_id: p.taskId, err: describeError(err) }, "parked task could not be unblocked (moved meanwhile?): left as it is");
      }
      this.drop(p);
    }
  }

  private drop(p: ParkedTask): void {
    this.parked = this.parked.filter((x) => x !== p);
    this.save();
  }

  /** Never throws: the list holds in memory; a failed write is logged. */
  private save(): void {
    const f = this.file;
    if (!f) return;
    try {
      writeStateFile(f, JSON.stringify(this.parked));
    } catch (err) {
      this.log.error({ err: describeError(err) }, "could not save the parked tasks (they are continued by this process)");
    }
  }
}
