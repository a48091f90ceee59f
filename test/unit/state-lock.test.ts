// The state dir's lock (state/lock.ts): held until released, the second taker refused naming the
// holder, free again at once after a release; its name depends on the state dir's own key, which only
// the bridge's user can read.
import { mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { StateDirLocked, lockHolder, lockStateDir } from "../../src/state/lock.js";

const dirs: string[] = [];
const stateDir = () => {
  const d = mkdtempSync(join(tmpdir(), "hkb-lock-"));
  dirs.push(d);
  return d;
};
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

describe("the state dir's lock", () => {
  it("one holder at a time; the refusal names it; free again after release", async () => {
    const dir = stateDir();
    expect(await lockHolder(dir)).toBe("free");
    const lock = await lockStateDir(dir, { config: "/etc/seat.yaml", now: Date.parse("2026-12-02T10:00:00Z") });
    expect(statSync(join(dir, "lock.key")).mode & 0o777).toBe(0o600);
    expect(await lockHolder(dir)).toEqual(expect.objectContaining({ pid: process.pid, config: "/etc/seat.yaml", startedAt: "2026-12-02T10:00:00.000Z" }));
    const second = await lockStateDir(dir, { config: null, now: 0 }).catch((e: unknown) => e);
    expect(second).toBeInstanceOf(StateDirLocked);
    expect((second as StateDirLocked).holder?.pid).toBe(process.pid);
    expect((second as Error).message).toContain(`is in use by another hermes-bridge daemon: pid ${process.pid} on `);
    await lock.release();
    expect(await lockHolder(dir)).toBe("free");
    const again = await lockStateDir(dir, { config: null, now: 0 });
    await again.release();
  });

  it("two state dirs do not share a lock", async () => {
    const a = await lockStateDir(stateDir(), { config: null, now: 0 });
    const b = await lockStateDir(stateDir(), { config: null, now: 0 });
    await a.release();
    await b.release();
  });
});
