// HeldLease: one claim, held from its sizing to its release — the one object a run asks about its lease.
// It owns the claim's fenced view of the board (every write of the run goes through it), its clock and
// its deadline (moved by renewals, copied nowhere), the heartbeat (the keeper) and its ownership checks,
// and says what happens to the claim in signals — `wrapUp` (the polite stop, deadline − wrap-up),
// `expired` (the deadline), `lost` (its reason: the board's own LeaseLost, who holds the task now) — and
// in typed events (`heartbeat`, `heartbeat_failed`, `renewed`, `lost`, `unresolved`). It is made by
// `take` (take.ts: sizing, the claim, its read, a give-back and re-claim) or `resume` (a stored lease:
// restart recovery, outbox replay), each given the seat's part (`LeaseSeat`: how it writes, its clock,
// timers and keeper — daemon/leases.ts builds it once per seat). `giveBack` is the one way a claim is given back (never retried
// blindly: fenced.ts reads before any retry); `stop` is idempotent.
import type { Board, TaskDetail } from "../board/port.js";
import type { Timing } from "../config/timing.js";
import { LeaseLost, NotClaimable, type Rejected, type Transient } from "../errors/board.js";
import { Events } from "../log/emit.js";
import type { Clock } from "../time/clock.js";
import type { Acquired } from "./acquire.js";
import { LeaseClock } from "./clock.js";
import { FencedBoard, type FencedOptions } from "./fenced.js";
import { type Keeper, LeaseKeeper, type LeaseKeeperDeps } from "./keeper.js";
import { type Lease, type LeaseRecord, leaseOf } from "./lease.js";

/** What a held lease tells its run and its seat. */
export interface LeaseEvents {
  /** A heartbeat landed and the run still owns the task. */
  heartbeat: [{ at: number }];
  /** One heartbeat failed (the keeper tries again before it gives up: `unresolved`). */
  heartbeat_failed: [{ err: unknown }];
  /** The claim was renewed: the run's deadline moved later. */
  renewed: [{ deadline: number; expiresAt: number }];
  /** The board says the task is no longer this run's: the reason is its own LeaseLost. */
  lost: [LeaseLost];
  /** Heartbeats could not be confirmed: whether the lease holds is unknown. */
  unresolved: [unknown];
}

export interface Timer {
  cancel(): void;
}

/** What holding a lease needs besides the lease itself (injected: tests fire timers by hand). */
export interface HoldDeps {
  clock: Clock;
  /** Calls `fire` at epoch ms `at` unless cancelled first: the polite stop, the deadline and every wait of the heartbeat. */
  timer(at: number, fire: () => void): Timer;
  /** The heartbeat loop (default: LeaseKeeper). */
  keeper?: ((d: LeaseKeeperDeps) => Keeper) | undefined;
  /** Re-checks of a failed heartbeat before it is unresolved. */
  recheck?: { attempts: number; delayMs: number } | undefined;
}

/** What the seat gives every lease it takes or resumes: how it writes (fenced.ts) and how it is held. */
export interface LeaseSeat {
  fencing: FencedOptions;
  hold: HoldDeps;
}

/** What the claim's own read gave (nothing more is read for it). */
export interface ClaimRead {
  /** The claim's `show` (null when it could not be read: the run id is settled before any write). */
  detail: TaskDetail | null;
  /** `context`, read with the claim (the TTL needed it), or null to read it later. */
  contextText: string | null;
  /** The claim took effect although the CLI failed (acquire.ts): a definitive error closes the task at once. */
  claimFailure?: Transient | Rejected | undefined;
  /** The claim was given back and taken again with the task's max runtime. */
  reclaimed: boolean;
}

/** A lease as a state file keeps it, with the deadline it last had (the active-run journal). */
export interface StoredLease extends LeaseRecord {
  ttlSeconds: number;
  deadline: number;
}

/** A wait of the heartbeat on the lease's own timers: true once `ms` passed, false when `signal` ended it first. */
const waitOn =
  (d: HoldDeps) =>
  (ms: number, signal: AbortSignal): Promise<boolean> =>
    new Promise((resolve) => {
      if (signal.aborted) return resolve(false);
      const t = d.timer(d.clock.now() + ms, () => {
        signal.removeEventListener("abort", stop);
        resolve(true);
      });
      const stop = () => {
        t.cancel();
        resolve(false);
      };
      signal.addEventListener("abort", stop, { once: true });
    });

export class HeldLease {
  readonly fenced: FencedBoard;
  private deadlineAt: number;
  private readonly events = new Events<LeaseEvents>();
  private readonly wrapAc = new AbortController();
  private readonly expiryAc = new AbortController();
  private readonly lostAc = new AbortController();
  private keeper: Keeper | null = null;
  private cut: Timer[] = [];
  private stopping: Promise<void> | null = null;
  /** A board event came before the lease was held: checked as soon as it is. */
  private checkPending = false;

  private readonly holding: HoldDeps;

  private constructor(
    board: Board,
    lease: Lease,
    seat: LeaseSeat,
    /** The claim's timing (heartbeat, wrap-up, renewals). */
    readonly clock: LeaseClock,
    readonly read: ClaimRead,
  ) {
    this.fenced = new FencedBoard(board, lease, seat.fencing);
    this.holding = seat.hold;
    this.deadlineAt = clock.deadline;
  }

  /** A claim just taken (take.ts), timed by `clock`. */
  static of(board: Board, claim: Acquired, seat: LeaseSeat, clock: LeaseClock, read: Omit<ClaimRead, "detail" | "claimFailure">): HeldLease {
    return new HeldLease(board, claim.lease, seat, clock, { ...read, detail: claim.detail, claimFailure: claim.claimFailure });
  }

  /** A claim taken before this bridge process (the active-run journal, the outbox): its deadline as it was last kept. */
  static resume(board: Board, r: StoredLease, seat: LeaseSeat, timing: (ttl: number) => Timing, read?: Partial<ClaimRead>): HeldLease {
    const clock = new LeaseClock(timing(r.ttlSeconds), r.deadline);
    return new HeldLease(board, leaseOf(r), seat, clock, { detail: null, contextText: null, reclaimed: false, ...read });
  }

  get lease(): Lease {
    return this.fenced.lease;
  }

  /** Epoch ms by which the run must have finished: the claim's, moved later by each renewal. */
  get deadline(): number {
    return this.deadlineAt;
  }

  /** Aborted at the polite stop (deadline − wrap-up) once held. */
  get wrapUp(): AbortSignal {
    return this.wrapAc.signal;
  }

  /** Aborted at the deadline once held. */
  get expired(): AbortSignal {
    return this.expiryAc.signal;
  }

  /** Aborted when the board says the task is another's; its reason is the board's LeaseLost. */
  get lost(): AbortSignal {
    return this.lostAc.signal;
  }

  on<K extends keyof LeaseEvents>(event: K, listener: (...args: LeaseEvents[K]) => void): this {
    this.events.on(event, listener as never);
    return this;
  }

  /** Every listener hears it; one that throws is kept from the others and from the keeper (log/emit.ts). */
  private tell<K extends keyof LeaseEvents & string>(event: K, ...args: LeaseEvents[K]): void {
    this.events.tell(event, ...args);
  }

  /**
   * Holds the claim: heartbeats (every interval from now — at once for a lease not read since its claim; renewing where the CLI can), the
   * ownership checks, the polite stop and the deadline. `note` is the progress the heartbeat carries;
   * `onDetail` gets the task as each check read it (new comments for the agent).
   */
  hold(o: { note: () => string | undefined; onDetail?: (detail: TaskDetail) => void }): void {
    if (this.keeper || this.stopping) return;
    const d = this.holding;
    this.arm(d, this.deadlineAt);
    const lc = this.clock;
    const make = d.keeper ?? ((k: LeaseKeeperDeps) => new LeaseKeeper(k));
    this.keeper = make({
      fenced: this.fenced,
      intervalMs: lc.heartbeatMs,
      // A claim just read (its `show` is the run's first ownership check) beats one interval on — a short
      // task costs no heartbeat and no second `show`; a lease taken over unread (a restart, a failed read)
      // beats, and is checked, at once.
      ...(this.read.detail === null ? { firstBeatMs: 0 } : {}),
      clock: d.clock,
      wait: waitOn(d),
      ...(d.recheck ? { recheckAttempts: d.recheck.attempts, recheckDelayMs: d.recheck.delayMs } : {}),
      note: o.note,
      ...(o.onDetail ? { onDetail: o.onDetail } : {}),
      onLost: (err) => {
        if (!this.lostAc.signal.aborted) this.lostAc.abort(err);
        this.tell("lost", err);
      },
      onUnresolved: (err) => this.tell("unresolved", err),
      onHeartbeat: () => this.tell("heartbeat", { at: d.clock.now() }),
      onFailure: (err) => this.tell("heartbeat_failed", { err }),
      ...(lc.renewal ? { extend: { ttlSeconds: () => lc.renewalTtl(d.clock.now()), now: () => d.clock.now(), onExtended: (at) => this.renewed(d, at) } } : {}),
    });
    this.keeper.start();
    if (this.checkPending) this.keeper.checkNow();
  }

  /** The polite stop and the hard stop for `deadline` (earlier timers cancelled). */
  private arm(d: HoldDeps, deadline: number): void {
    for (const t of this.cut) t.cancel();
    this.deadlineAt = deadline;
    this.cut = [
      d.timer(this.clock.wrapUpAt(deadline), () => this.wrapAc.abort(new Error("wrap-up before the deadline"))),
      d.timer(deadline, () => this.expiryAc.abort(new Error("deadline"))),
    ];
  }

  /** A renewal moved the claim's expiry: the deadline follows (never earlier, never past the latest, never after the polite stop). */
  private renewed(d: HoldDeps, expiresAt: number): void {
    const next = this.clock.deadlineAfterRenewal(expiresAt);
    if (next <= this.deadlineAt || this.wrapAc.signal.aborted || this.stopping) return;
    this.arm(d, next);
    this.tell("renewed", { deadline: next, expiresAt });
  }

  /**
   * An ownership check now (a board event said the task changed); a loss is told like a heartbeat's. Before
   * the lease is held (the run still preparing), the check goes as soon as it is.
   */
  checkNow(): void {
    if (this.keeper) this.keeper.checkNow();
    else this.checkPending = true;
  }

  /**
   * Gives the claim back (`reclaim` with the reason: the task is ready again). Never retried blindly: a
   * failed attempt is read back first (fenced.ts). The task being another's already is NotClaimable.
   */
  async giveBack(reason: string, signal?: AbortSignal): Promise<void> {
    try {
      await this.fenced.release({ reason }, signal);
    } catch (err) {
      if (err instanceof LeaseLost)
        throw new NotClaimable({ verb: "reclaim", board: this.lease.board, taskId: this.lease.taskId, cause: err }, err.currentStatus, null);
      throw err;
    }
  }

  /** Stops the heartbeat and the timers. Idempotent; resolves once no heartbeat is in flight. */
  stop(): Promise<void> {
    this.stopping ??= (async () => {
      for (const t of this.cut.splice(0)) t.cancel();
      await this.keeper?.stop();
    })();
    return this.stopping;
  }
}
