// What a child wrote is read even when the loop stood still past the drain's wait (a loaded machine): a CLI's
// error text is what classifies its failure, and "failed without a message" was a loaded run's wrong answer.
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { startChild } from "../../src/process/spawn.js";

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** Blocks this thread (the loop stands still) until `until` holds, looking every 10 ms (20 s at most). */
function standStill(until: () => boolean): void {
  const cell = new Int32Array(new SharedArrayBuffer(4));
  const deadline = Date.now() + 20_000;
  while (!until() && Date.now() < deadline) Atomics.wait(cell, 0, 0, 10);
}

describe("a drained child's pipes", () => {
  it("keep what was written before the wait ended, though the loop stood still past it", async () => {
    const dir = mkdtempSync(join(tmpdir(), "hkb-drain-"));
    dirs.push(dir);
    const mark = join(dir, "written");
    // The shell exits at once; a child of it writes to the shared stderr afterwards, then leaves a mark.
    const started = startChild("/bin/sh", ["-c", `(read _ </dev/null; printf 'late words' >&2; : > '${mark}') & exit 0`], {
      env: { PATH: "/usr/bin:/bin" },
      stdin: "ignore",
      stdout: "pipe",
      stderr: "pipe",
      cleanup: true,
    });
    let stderr = "";
    started.child?.stderr?.setEncoding("utf8");
    started.child?.stderr?.on("data", (c: string) => {
      stderr += c;
    });
    await started.exit;
    standStill(() => existsSync(mark));
    expect(existsSync(mark)).toBe(true);
    const drained = started.drained(0);
    // The wait's timer is due before the loop looks at the pipe again.
    const due = Date.now() + 20;
    standStill(() => Date.now() >= due);
    await drained;
    expect(stderr).toBe("late words");
  });
});
