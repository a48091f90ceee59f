// The lease clock of one claim, in one place: the run's deadline (the claim's expiry minus the safety
// margin), its polite stop (deadline − wrap-up), the heartbeat interval, and — where the CLI renews
// claims on heartbeat — how long each renewal asks for and where the deadline then moves, never past
// the claim's limit (the task's max runtime + safety, else claim.maxTtlSeconds). Pure arithmetic on
// times the caller gives (epoch ms); the timing values come from config/timing.ts.
import type { Timing } from "../config/timing.js";

/** How far a renewable claim may be renewed: each heartbeat asks for min(ttl, limitAt − now); the deadline stops at `latest`. */
export interface Renewal {
  ttlSeconds: number;
  /** Epoch ms: the claim never reaches past this. */
  limitAt: number;
  /** Epoch ms: the run's deadline never moves past this. */
  latest: number;
}

/** The deadline of a claim that expires at `expiresAt`: the safety margin before it. */
const deadlineFor = (expiresAt: number, t: Pick<Timing, "safetySeconds">) => expiresAt - t.safetySeconds * 1000;

export class LeaseClock {
  constructor(
    readonly timing: Timing,
    /** Epoch ms by which the agent must have finished (before any renewal). */
    readonly deadline: number,
    /** Set where the CLI renews the claim on heartbeat. */
    readonly renewal?: Renewal,
  ) {}

  /** A claim taken at `claimedAt` that lives one TTL. */
  static of(claimedAt: number, timing: Timing): LeaseClock {
    return new LeaseClock(timing, deadlineFor(claimedAt + timing.ttlSeconds * 1000, timing));
  }

  /**
   * A claim the heartbeat renews, never past its limit: the task's max runtime + safety (`taskTtlSeconds`,
   * when the task has a max runtime), else claim.maxTtlSeconds — counted from the claim.
   */
  static renewable(claimedAt: number, timing: Timing, limit: { taskTtlSeconds: number | null; maxTtlSeconds: number }): LeaseClock {
    const limitAt = claimedAt + (limit.taskTtlSeconds ?? limit.maxTtlSeconds) * 1000;
    const first = LeaseClock.of(claimedAt, timing);
    return new LeaseClock(timing, first.deadline, { ttlSeconds: timing.ttlSeconds, limitAt, latest: Math.max(first.deadline, deadlineFor(limitAt, timing)) });
  }

  get heartbeatMs(): number {
    return this.timing.heartbeatSeconds * 1000;
  }

  /** When a run with this deadline gets its polite stop. */
  wrapUpAt(deadline: number): number {
    return deadline - this.timing.wrapUpSeconds * 1000;
  }

  /** The TTL a renewal at `now` asks for: the configured one, never past the claim's limit. */
  renewalTtl(now: number): number {
    const r = this.renewal;
    if (!r) return this.timing.ttlSeconds;
    return Math.max(1, Math.min(r.ttlSeconds, Math.floor((r.limitAt - now) / 1000)));
  }

  /** The run's deadline once the claim was renewed to `expiresAt`, never past the latest. */
  deadlineAfterRenewal(expiresAt: number): number {
    return Math.min(deadlineFor(expiresAt, this.timing), this.renewal?.latest ?? expiresAt);
  }
}
