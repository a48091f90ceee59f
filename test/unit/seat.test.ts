import { describe, expect, it } from "vitest";
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
