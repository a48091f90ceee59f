// LeaseKeeper: heartbeats every interval with the latest progress note, then checks ownership.
// A fenced failure, a non-running status or another open run = lease lost → onLost (abort the run).
// Failures it cannot resolve after a short re-check → onUnresolved (a corrupt board is no such failure:
// the beat is skipped). Where the CLI can renew a claim
// (`extend`), every confirmed heartbeat renews it and reports the new expiry (onExtended). Sees the
// board through the run's fenced view (2 verbs), owns its AbortController, and stops (idempotently)
// with every wait interrupted. `checkNow()` is the same ownership check at once (a board event said the
// task changed: stopped in seconds, not at the next heartbeat); every check hands the task it read to
// `onDetail` (new comments for the agent), so with no events the heartbeat's read is the fallback.
// Beats keep a fixed rate: each is due one interval after the previous one began, so the time a
// beat spends in the CLI (two Python processes on real Hermes) does not push every later beat back.
import type { TaskDetail } from "../board/port.js";
import { BoardCorrupt, LeaseLost } from "../errors/board.js";
import { describeError } from "../errors/index.js";
import { type Clock, sleepUnlessAborted, systemClock } from "../time/clock.js";
import type { FencedBoard } from "./fenced.js";

export interface LeaseKeeperDeps {
  fenced: Pick<FencedBoard, "heartbeat" | "checkOwned">;
  intervalMs: number;
  /**
   * When the first beat is due after `start()` (default: one interval: the claim's own read was the run's
   * first ownership check, and a claim — on 0.21.4+ — sets `last_heartbeat_at` itself). 0 for a lease
   * held without a read since its claim (lease/held.ts): the run learns at once whether it still owns it.
   */
  firstBeatMs?: number;
  /** Times the beats (default: the system clock). */
  clock?: Clock;
  /** Waits `ms` unless `signal` ends first (false then): the beats' and re-checks' waits (default: a real sleep). */
  wait?: ((ms: number, signal: AbortSignal) => Promise<boolean>) | undefined;
  /** Extra attempts (after the board's own retries) before a failure counts as unresolved. */
  recheckAttempts?: number;
  recheckDelayMs?: number;
  note: () => string | undefined;
  onLost: (err: LeaseLost) => void;
  onUnresolved: (err: unknown) => void;
  onHeartbeat?: () => void;
  onFailure?: (err: unknown) => void;
  /** The task as each ownership check read it (no extra call). */
  onDetail?: (detail: TaskDetail) => void;
  /** Renew the claim by `ttlSeconds()` from each heartbeat (capability `heartbeatExtends`); `now` times it. */
  extend?: { ttlSeconds: () => number; now: () => number; onExtended: (expiresAt: number) => void };
}

/** What a TaskRun needs of a keeper (tests inject their own). */
export interface Keeper {
  start(): void;
  stop(): Promise<void>;
  /** An ownership check now (one read); a loss is reported like a heartbeat's. */
  checkNow(): void;
}

export class LeaseKeeper implements Keeper {
  private readonly ac = new AbortController();
  private loop: Promise<void> | undefined;
  private lastNote: string | undefined;
  private checking: Promise<void> | null = null;
  private again = false;

  private readonly wait: (ms: number, signal: AbortSignal) => Promise<boolean>;

  constructor(private readonly d: LeaseKeeperDeps) {
    this.wait = d.wait ?? sleepUnlessAborted;
  }

  start(): void {
    this.loop ??= this.run();
  }

  /** Idempotent. Resolves once no heartbeat (or check) is in flight. */
  async stop(): Promise<void> {
    this.ac.abort(new Error("lease keeper stopped"));
    await this.loop;
    await this.checking;
  }

  checkNow(): void {
    if (this.ac.signal.aborted) return;
    if (this.checking) {
      this.again = true;
      return;
    }
    this.checking = (async () => {
      do {
        this.again = false;
        try {
          const detail = await this.d.fenced.checkOwned(this.ac.signal);
          this.d.onDetail?.(detail);
        } catch (err) {
          if (this.ac.signal.aborted) return;
          if (err instanceof LeaseLost) {
            this.stopFor(err);
            return;
          }
          // Anything else is left to the heartbeat's own re-checks.
        }
      } while (this.again && !this.ac.signal.aborted);
    })().finally(() => {
      this.checking = null;
    });
  }

  private stopFor(err: LeaseLost): void {
    if (this.ac.signal.aborted) return;
    this.ac.abort(new Error("lease lost"));
    this.d.onLost(err);
  }

  private async run(): Promise<void> {
    const signal = this.ac.signal;
    const clock = this.d.clock ?? systemClock;
    let due = clock.now() + (this.d.firstBeatMs ?? this.d.intervalMs);
    for (;;) {
      const wait = due - clock.now();
      if (wait > 0 ? !(await this.wait(wait, signal)) : signal.aborted) return;
      const began = clock.now();
      if ((await this.beatWithRecheck(signal)) === "stop") return;
      // A beat that overran its interval is followed by the next one at once, never by a burst.
      due = Math.max(began + this.d.intervalMs, clock.now());
    }
  }

  private async beatWithRecheck(signal: AbortSignal): Promise<"ok" | "stop"> {
    const attempts = 1 + (this.d.recheckAttempts ?? 2);
    let lastErr: unknown;
    for (let i = 0; i < attempts; i += 1) {
      if (signal.aborted) return "stop";
      try {
        await this.beat(signal);
        return "ok";
      } catch (err) {
        if (signal.aborted) return "stop";
        if (err instanceof LeaseLost) {
          this.stopFor(err);
          return "stop";
        }
        // A corrupt board answers nobody (daemon/board-health.ts pauses it): the agent keeps working, the
        // next beat asks again, and the claim's own deadline still ends the run.
        if (err instanceof BoardCorrupt) {
          this.d.onFailure?.(err);
          return "ok";
        }
        lastErr = err;
        this.d.onFailure?.(err);
        if (!(await this.wait(this.d.recheckDelayMs ?? 1000, signal))) return "stop";
      }
    }
    this.d.onUnresolved(new Error(`heartbeat could not be confirmed: ${describeError(lastErr)}`, { cause: lastErr }));
    return "stop";
  }

  private async beat(signal: AbortSignal): Promise<void> {
    const note = this.d.note();
    const ext = this.d.extend;
    // Taken before the call: the renewed expiry is never later than the board's.
    const sentAt = ext?.now();
    const ttl = ext?.ttlSeconds();
    // Hermes stores every note as an event: skip repeating an unchanged one.
    await this.d.fenced.heartbeat(note !== this.lastNote ? note : undefined, ttl !== undefined ? { ttlSeconds: ttl } : {}, signal);
    this.lastNote = note;
    this.d.onHeartbeat?.();
    // Exit 0 is not proof (it succeeds after the claim expired): read the task and compare the open run.
    const detail = await this.d.fenced.checkOwned(signal);
    this.d.onDetail?.(detail);
    if (ext && sentAt !== undefined && ttl !== undefined) ext.onExtended(sentAt + ttl * 1000);
  }
}
