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
import type { SeatTell } from "./events.js";
import type { Claim, ClaimCheck } from "../agents/probe.js";
import { DEFAULT_MAX_PAUSE_MS, boundReset } from "../result/limits.js";
import { iso } from "../observe/status.js";

const REACH_FIRST_MS = 60_000;
const REACH_MAX_MS = 15 * 60_000;

const Parked = z
  .array(z.object({ board: z.string().max(200), taskId: z.string().max(200), runId: z.number().int().nullable(), at: z.string().max(100) }))
  .max(1000);
type ParkedTask = z.output<typeof Parked>[number];

export class SeatPauses {
  private parked: ParkedTask[] = [];
  /** The pause is for a claim the seat's own check did not confirm: checked again when it ends. */
  private recheck: Claim | null = null;
  /** The pause after an unreachable API, doubled each time the seat's own check does not get through. */
  private reachPauseMs = 0;

  constructor(
    private readonly seat: SeatState,
    private readonly clock: Clock,
    private readonly log: Logger,
    private readonly signal: AbortSignal,
    /** Where the seat is told it paused and resumed (events.ts). */
    private readonly tellSeat: SeatTell,
    private readonly o: {
      stateDir?: string;
      seatName?: string;
      boards?: ReadonlyMap<string, Board>;
      /** The seat's own check of a claim (run/work/claims.ts), asked again when an unconfirmed pause ends. */
      check?: ((claim: Claim) => Promise<ClaimCheck>) | undefined;
      /** The longest pause a reset time may make (seat.maxLimitPauseHours). */
      maxPauseMs?: number;
      /** The first pause after an unreachable API (seat.unreachablePauseSeconds). */
      reachPauseMs?: number;
    } = {},
  ) {}

  private get file(): string | null {
    return this.o.stateDir ? statePath(this.o.stateDir, "parked") : null;
  }

  /** A run ended: its limit or auth failure pauses the seat; a task it parked is kept to continue after. */
  afterRun(r: RunReport, board?: string): void {
    if (r.limit) {
      this.recheck = r.claimCheck && r.claimCheck.verdict !== "confirmed" ? r.claimCheck.claim : null;
      this.seat.pauseUntil(r.limit.resetsAt, `usage limit (${r.limit.kind})${r.limit.note ? `; ${r.limit.note}` : ""}`);
      this.log.warn({ until: iso(this.seat.pausedUntil()), reason: this.seat.reason }, "seat paused");
      this.tellSeat.tell("seat:paused", { until: iso(this.seat.pausedUntil()), reason: this.seat.reason });
      if (r.handedOff === "wait" && board) {
        this.parked.push({ board, taskId: r.taskId, runId: r.runId, at: new Date(this.clock.now()).toISOString() });
        this.save();
      }
      this.wakeAtEnd();
    }
    if (r.unreachable) {
      this.recheck = "unreachable";
      this.pauseUnreachable(r.unreachable);
    }
    if (r.authFailed) {
      this.seat.pauseForAuth();
      this.log.error({ reason: this.seat.reason }, "seat paused until an operator fixes authentication");
      this.tellSeat.tell("seat:paused", { until: null, reason: this.seat.reason });
    }
  }

  /** Its API out of reach: the seat claims nothing for a while (1 min, doubling to 15), then checks. */
  private pauseUnreachable(what: string): void {
    this.reachPauseMs = Math.min(Math.max(this.o.reachPauseMs ?? REACH_FIRST_MS, this.reachPauseMs * 2), REACH_MAX_MS);
    this.seat.pauseUntil(
      this.clock.now() + this.reachPauseMs,
      `the agent could not reach its API (${what.slice(0, 200)}): claiming again once the seat's own check gets through`,
    );
    this.log.warn({ until: iso(this.seat.pausedUntil()), reason: this.seat.reason }, "seat paused");
    this.tellSeat.tell("seat:paused", { until: iso(this.seat.pausedUntil()), reason: this.seat.reason });
    this.wakeAtEnd();
  }

  /** Wakes the boards when a usage-limit pause ends (the parked tasks first). */
  wakeAtEnd(): void {
    const until = this.seat.pausedUntil();
    if (until === null || !Number.isFinite(until)) return;
    void sleepUnlessAborted(until - this.clock.now() + 10, this.signal)
      .then(async (elapsed) => {
        if (!elapsed) return;
        if (await this.stillLimited()) return;
        await this.continueParked();
        this.log.info({}, "seat pause over: claiming again");
        this.tellSeat.tell("seat:resumed");
      })
      .catch((err: unknown) => this.log.error({ err: describeError(err) }, "resuming after the pause failed"));
  }

  /** An unconfirmed pause ends with the seat's own check: what it confirms pauses the seat as a confirmed claim would. */
  private async stillLimited(): Promise<boolean> {
    const claim = this.recheck;
    this.recheck = null;
    if (!claim || !this.o.check) return false;
    const v = await this.o.check(claim);
    if (claim === "unreachable") {
      if (v.verdict === "refuted") {
        this.reachPauseMs = 0;
        this.log.info({ detail: v.detail }, "the seat's own check got through to its API: claiming again");
        return false;
      }
      this.recheck = "unreachable";
      this.pauseUnreachable(v.detail);
      return true;
    }
    if (v.verdict !== "confirmed") {
      this.log.info({ claim, verdict: v.verdict, detail: v.detail }, "the unconfirmed claim was checked again: not confirmed, claiming again");
      return false;
    }
    if (claim === "auth") {
      this.seat.pauseForAuth(v.detail);
      this.log.error({ reason: this.seat.reason }, "seat paused until an operator fixes authentication (confirmed by the seat's own check)");
      this.tellSeat.tell("seat:paused", { until: null, reason: this.seat.reason });
      return true;
    }
    const b = boundReset(v.resetsAt ?? null, this.clock.now(), this.o.maxPauseMs ?? DEFAULT_MAX_PAUSE_MS);
    this.seat.pauseUntil(b.resetsAt, `usage limit (confirmed by the seat's own check: ${v.detail})${b.note ? `; ${b.note}` : ""}`);
    this.log.warn({ until: iso(this.seat.pausedUntil()), reason: this.seat.reason }, "seat paused");
    this.tellSeat.tell("seat:paused", { until: iso(this.seat.pausedUntil()), reason: this.seat.reason });
    this.wakeAtEnd();
    return true;
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
