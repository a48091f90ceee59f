// Hostile files: an outcome "file" that is a FIFO, a symlink to /dev/zero or to a host file is never
// read (a regular file only, size-capped, bounded in time): the task is blocked as a protocol
// violation, nothing of the host file reaches the board, and the daemon's shutdown stays bounded.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { hasAllFields } from "../../src/result/template.js";
import { runProcess } from "../../src/process/runner.js";
import { AGENT, runArgv, runBridge, SEAT } from "../helpers/bridge.js";
import { CLI_BIN, Emu } from "../helpers/emulator.js";

let emu: Emu;
afterEach(() => emu?.cleanup());

const reasonOf = async (id: string) => String((await emu.show(id)).events.findLast((e) => e.kind === "blocked")?.payload?.reason ?? "");

describe("outcome files that are not regular files", () => {
  it.each([
    ["fifo", /is not a regular file \(a FIFO\)/],
    ["zero", /is a symbolic link/],
  ])("%s: a protocol-violation block, at once", async (mode, why) => {
    emu = await Emu.create();
    const id = await emu.createTask(mode, { assignee: SEAT, body: `MODE:${mode}` });
    const t0 = performance.now();
    const b = await runBridge(emu);
    await b.daemon.done;
    expect(performance.now() - t0).toBeLessThan(30_000);
    const r = await reasonOf(id);
    expect(hasAllFields(r)).toBe(true);
    expect(r).toMatch(/protocol violation/);
    expect(r).toMatch(why);
  });

  it("a symlink to a host file: its content never reaches the board", async () => {
    emu = await Emu.create();
    const secret = join(emu.dir, "root-only.txt");
    writeFileSync(secret, "TOP-SECRET-CONTENT-4711\n", { mode: 0o600 });
    const id = await emu.createTask("escape", { assignee: SEAT, body: "MODE:escape" });
    await (
      await runBridge(emu, {
        env: { FIXTURE_TARGET: secret },
        base: { agent: { kind: "command", command: [process.execPath, AGENT], passEnv: ["FIXTURE_TARGET"] } },
      })
    ).daemon.done;
    const d = await emu.show(id);
    expect(d.task.status).toBe("blocked");
    expect(JSON.stringify(d)).not.toContain("TOP-SECRET-CONTENT-4711");
  });

  it("two SIGTERMs stop a daemon whose agent left a FIFO, within grace + kill grace + close time", async () => {
    emu = await Emu.create();
    const fifo = await emu.createTask("fifo", { assignee: SEAT, body: "MODE:fifo" });
    const hang = await emu.createTask("hang", { assignee: SEAT, body: "MODE:hang" });
    const argv = [process.execPath, CLI_BIN, ...runArgv(emu, join(emu.dir, "state")), "--log-format", "json", "--concurrency", "2"];
    let pid = 0;
    let resolveStarted: () => void = () => undefined;
    const agentStarted = new Promise<void>((r) => {
      resolveStarted = r;
    });
    const run = runProcess({
      argv,
      env: { PATH: process.env.PATH ?? "", HOME: emu.dir },
      onSpawn: (p) => {
        pid = p;
      },
      onStdoutLine: (l) => {
        if (l.includes('"agent started"')) resolveStarted();
      },
    });
    await agentStarted;
    const t0 = performance.now();
    // The first signal may already be enough (the agents end at once and the daemon drains before
    // the second one): a signal to a process that is gone is not a failure, the outcome is what counts.
    signalIfAlive(pid, "SIGTERM");
    await new Promise((r) => setTimeout(r, 200));
    signalIfAlive(pid, "SIGTERM");
    const res = await run;
    // grace 30 s is skipped by the second signal: kill grace (10 s) × 2 + closes
    expect(performance.now() - t0).toBeLessThan(25_000);
    expect(res.exitCode).not.toBeNull();
    // nothing is left running without a word: each task was closed, never claimed, or its claim kept for the
    // seat's restart (shutdown.inFlight: continue) with a note saying so
    for (const id of [fifo, hang]) {
      const d = await emu.show(id);
      if (d.task.status === "running")
        expect(String(d.events.findLast((e) => e.kind === "heartbeat")?.payload?.note)).toMatch(/is restarting: it continues this task/);
    }
  });
});

/** Sends `signal` unless the process already exited (ESRCH); any other failure is a real error. */
function signalIfAlive(pid: number, signal: NodeJS.Signals): boolean {
  try {
    process.kill(pid, signal);
    return true;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "ESRCH") return false;
    throw e;
  }
}
