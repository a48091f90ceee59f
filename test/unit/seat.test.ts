import { describe, expect, it } from "vitest";
import { boundedLimit } from "../../src/run/work/claims.js";
import { SeatState } from "../../src/daemon/seat.js";

describe("SeatState", () => {
  it("pauses until the reset plus the margin, then resumes", () => {
    let now = 1_000_000;
    const seat = new SeatState({ now: () => now }, { marginMs: 60_000 });
    expect(seat.paused()).toBe(false);
    seat.pauseUntil(now + 300_000, "usage limit (usage)");
    expect(seat.paused()).toBe(true);
    now += 300_000 + 59_999;
    expect(seat.paused()).toBe(true);
    now += 2;
    expect(seat.paused()).toBe(false);
    expect(seat.pausedUntil()).toBeNull();
  });
  it("a reset bounded when the agent named it, passed during the close, pauses the margin from now — not 15 more minutes", () => {
    let now = 1_000_000;
    const seat = new SeatState({ now: () => now }, { marginMs: 1_000 });
    const named = boundedLimit({ type: "limit", kind: "five_hour", resetsAt: now + 5_000, message: "limited" }, now, 3600_000);
    expect(named.note).toBeUndefined();
    now += 7_000; // the agent's exit, the jail's teardown and the close took longer than the reset was away
    seat.pauseUntil(named.resetsAt, "usage limit (five_hour)");
    expect(seat.pausedUntil()).toBe(now + 1_000);
    expect(seat.paused()).toBe(true);
    now += 1_001;
    expect(seat.paused()).toBe(false);
    expect(seat.reason).toBeNull();
  });
  it("without a reset time pauses 15 minutes; auth pauses until restart", () => {
    let now = 0;
    const seat = new SeatState({ now: () => now }, { marginMs: 0 });
    seat.pauseUntil(null, "rate limit");
    now = 15 * 60_000 - 1;
    expect(seat.paused()).toBe(true);
    now += 2;
    expect(seat.paused()).toBe(false);
    seat.pauseForAuth();
    now += 10 ** 9;
    expect(seat.paused()).toBe(true);
    expect(seat.reason).toMatch(/doctor/);
  });
});
