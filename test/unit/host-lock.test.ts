// The host's lock (agent-files/host-lock.ts): one holder at a time among a user's processes; a claim's wait is
// bounded — past it, the waiter gives up naming the holder as it noted itself — and a wait without a bound
// gets the lock once it is let go.
import { describe, expect, it } from "vitest";
import { HostLockTimeout, withHostLock } from "../../src/agent-files/host-lock.js";
import { scratchDir } from "../helpers/tmp.js";

/** Holds the lock of `dir` until the returned `let go` is called; resolves once it is held. */
async function hold(dir: string, what: string): Promise<{ letGo: () => void; done: Promise<void> }> {
  let letGo: () => void = () => {};
  let held: () => void = () => {};
  const isHeld = new Promise<void>((r) => {
    held = r;
  });
  const done = withHostLock(
    dir,
    () =>
      new Promise<void>((r) => {
        letGo = r;
        held();
      }),
    { what },
  );
  await isHeld;
  return { letGo, done };
}

describe("the host's lock", () => {
  it("a bounded wait gives up with HostLockTimeout naming the holder; nothing ran under it", async () => {
    const dir = scratchDir("hkb-host-lock-");
    const first = await hold(dir, "a workspace's claim");
    let ran = false;
    const err = await withHostLock(
      dir,
      async () => {
        ran = true;
      },
      { maxWaitMs: 50 },
    ).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(HostLockTimeout);
    expect((err as Error).message).toMatch(
      new RegExp(`was held by another process for more than \\d+ s \\(pid ${process.pid}, since 20\\d\\d-.*, a workspace's claim\\)`),
    );
    expect(ran).toBe(false);
    first.letGo();
    await first.done;
  });

  it("a wait without a bound gets the lock once its holder lets go, and runs after it", async () => {
    const dir = scratchDir("hkb-host-lock-");
    const order: string[] = [];
    const first = await hold(dir, "first");
    const second = withHostLock(dir, async () => {
      order.push("second");
    });
    order.push("first lets go");
    first.letGo();
    await Promise.all([first.done, second]);
    expect(order).toEqual(["first lets go", "second"]);
  });
});
