// The seat's stop gives back what its start took: last-in-first-out, each guarded, the first error kept.
import { describe, expect, it } from "vitest";
import { Releasers } from "../../src/daemon/releasers.js";
import { silentLogger } from "../../src/log/logger.js";

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
    const err = await r.releaseAll(silentLogger);
    expect(order).toEqual(["alerts", "status", "boards"]);
    expect((err as Error).message).toBe("alerts later");
    // released once: a second call has nothing left
    expect(await r.releaseAll(silentLogger)).toBeNull();
    expect(order).toHaveLength(3);
  });
});
