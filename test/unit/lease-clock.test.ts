// The lease clock (lease/clock.ts): one claim's deadline, polite stop, heartbeat and renewals.
import { describe, expect, it } from "vitest";
import { timingFor } from "../../src/config/timing.js";
import { LeaseClock } from "../../src/lease/clock.js";

const T0 = 1_800_000_000_000;
const timing = timingFor({ claim: { ttlSeconds: 900, maxTtlSeconds: 14400 }, heartbeat: {} }, 900);

describe("the lease clock", () => {
  it("a claim that lives one TTL: its deadline is the expiry less the safety margin; the polite stop comes wrap-up before it", () => {
    const c = LeaseClock.of(T0, timing);
    expect(c.deadline).toBe(T0 + (900 - 60) * 1000);
    expect(c.wrapUpAt(c.deadline)).toBe(c.deadline - timing.wrapUpSeconds * 1000);
    expect(c.heartbeatMs).toBe(120_000);
    expect(c.renewal).toBeUndefined();
    expect(c.renewalTtl(T0)).toBe(900);
  });

  it("a renewable claim: each renewal asks for the TTL until the claim's limit is near; the deadline follows, never past the latest", () => {
    const c = LeaseClock.renewable(T0, timing, { taskTtlSeconds: 1500, maxTtlSeconds: 14400 });
    expect(c.renewal).toEqual({ ttlSeconds: 900, limitAt: T0 + 1_500_000, latest: T0 + 1_440_000 });
    expect(c.renewalTtl(T0 + 840_000)).toBe(660);
    expect(c.renewalTtl(T0 + 1_600_000)).toBe(1);
    expect(c.deadlineAfterRenewal(T0 + 1_200_000)).toBe(T0 + 1_140_000);
    expect(c.deadlineAfterRenewal(T0 + 9_000_000)).toBe(T0 + 1_440_000);
  });

  it("a limit before the first deadline never pulls the latest deadline in", () => {
    const c = LeaseClock.renewable(T0, timing, { taskTtlSeconds: 60, maxTtlSeconds: 14400 });
    expect(c.renewal?.latest).toBe(c.deadline);
  });

  it("without a max runtime, a renewable claim is bounded by claim.maxTtlSeconds", () => {
    const c = LeaseClock.renewable(T0, timing, { taskTtlSeconds: null, maxTtlSeconds: 14400 });
    expect(c.renewal?.limitAt).toBe(T0 + 14_400_000);
  });
});
