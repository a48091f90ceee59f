// A scope (the seat's start, a run's work phase) gives back what it took: last-in-first-out, each guarded, the first error kept.
import { describe, expect, it } from "vitest";
import { Releasers } from "../../src/log/releasers.js";

describe("releasers", () => {
  it("releases the last pushed first, every one even when some throw, and keeps the first error", async () => {
    const r = new Releasers();
    const order: string[] = [];
    r.push("boards", () => void order.push("boards"));
    r.push("status", () => {
      order.push("status");
      throw new Error("status first");
    });
    r.push("alerts", async () => {
      order.push("alerts");
      throw new Error("alerts later");
    });
    const failed: string[] = [];
    const err = await r.releaseAll((name) => failed.push(name));
    expect(order).toEqual(["alerts", "status", "boards"]);
    expect(failed).toEqual(["alerts", "status"]);
    expect((err as Error).message).toBe("alerts later");
    // released once: a second call has nothing left
    expect(await r.releaseAll(() => undefined)).toBeNull();
    expect(order).toHaveLength(3);
  });
});
