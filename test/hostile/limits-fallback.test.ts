// Caps never fail open silently (issue 50, finding 2): a plain-user bridge (a non-root uid, here made with
// setpriv) on a host where it can make no cgroup and has no systemd caps its runs per process (prlimit in
// the jail's first process: the jail's processes, each one's memory, a file's size) — a fork bomb and a
// memory hog are cut — and says so everywhere isolation is said: the start log, status.json, the fleet row,
// doctor, the card; `auto` with caps the operator set that nothing here can honour does not start.
import { existsSync, mkdirSync, readFileSync, statSync } from "node:fs";
import { join, resolve } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { probeBwrap } from "../../src/jail/policy.js";
import { localSeats } from "../../src/observe/fleet.js";
import { runProcess } from "../../src/process/runner.js";
import { SEAT } from "../helpers/bridge.js";
import { CLI_BIN, Emu } from "../helpers/emulator.js";
import { ROOT, blockedWhy, probeAgent } from "../helpers/jail-doors.js";
import { PLAIN_USER, chownTree, seatConfigFile } from "../helpers/plain-user.js";
import { untilHost } from "../helpers/steering.js";

const BWRAP = (await probeBwrap("bwrap", process.env)).ok;
const USER = PLAIN_USER;
const LIMITS_JS = resolve("dist/jail/limits.js");

let emu: Emu | undefined;
afterEach(() => {
  emu?.cleanup();
  emu = undefined;
});

/** Can this plain user make a cgroup here? (Then the fallback is not what is tested.) */
const userCgroups = () => {
  const mem = readFileSync("/proc/self/mounts", "utf8").includes("/sys/fs/cgroup/memory ") ? "/sys/fs/cgroup/memory" : "/sys/fs/cgroup";
  try {
    return (statSync(mem).mode & 0o002) !== 0 || statSync(mem).uid === USER.uid || existsSync("/run/systemd/system");
  } catch {
    return false;
  }
};

// The probe: forks until refused (each child sleeps, then all are reaped), then asks for 400 MiB in one piece.
const BOMB = [
  "import os, time",
  "n = 0",
  "for i in range(300):",
  "    try:",
  "        pid = os.fork()",
  "    except OSError:",
  "        break",
  "    if pid == 0:",
  "        time.sleep(2); os._exit(0)",
  "    n += 1",
  "while True:",
  "    try: os.wait()",
  "    except ChildProcessError: break",
  "print('FORKED', n)",
  "try:",
  "    b = bytearray(400 << 20); print('MEM-GRANTED')",
  "except MemoryError:",
  "    print('MEM-REFUSED')",
].join("\n");

describe.skipIf(!ROOT || userCgroups() || (!BWRAP && !process.env.HKB_REQUIRE_BWRAP))("caps on a plain-user bridge without cgroups", () => {
  it("rlimit: a fork bomb and a memory hog are cut; limits shown in the start log, status.json, the fleet row, doctor and the card", async () => {
    emu = await Emu.create();
    const e = emu;
    const id = await e.createTask("bomb", { assignee: SEAT, body: "MODE:jail-probe" });
    const stateDir = join(e.dir, "state");
    mkdirSync(stateDir, { mode: 0o700 });
    const agent = probeAgent({ mode: "bwrap" }, { limits: { pids: 64, memoryMiB: 256 } });
    const cfg = seatConfigFile(e, stateDir, agent);
    chownTree(e.dir);
    const env = { PATH: process.env.PATH ?? "", HOME: e.dir, FIXTURE_PROBE: `python3 -c "${BOMB}"` };
    const lines: Record<string, unknown>[] = [];
    let pid = 0;
    const daemon = runProcess({
      argv: [process.execPath, CLI_BIN, "run", "--config", cfg, "--log-format", "json"],
      env,
      ...USER,
      timeoutMs: 120_000,
      onSpawn: (p) => {
        pid = p;
      },
      onStdoutLine: (l) => {
        try {
          lines.push(JSON.parse(l) as Record<string, unknown>);
        } catch {
          // not a log line
        }
      },
    });
    try {
      await untilHost("the task closed", async () => ["done", "blocked"].includes((await e.show(id)).task.status), 90_000);
      const d = await e.show(id);
      expect(d.task.status, blockedWhy(d)).toBe("done");
      const seen = d.runs.at(-1)?.summary ?? "";
      const forked = Number(/FORKED (\d+)/.exec(seen)?.[1]);
      expect(forked).toBeLessThan(64);
      expect(forked).toBeGreaterThan(0);
      expect(seen).toContain("MEM-REFUSED");
      expect(d.runs.at(-1)?.metadata).toMatchObject({ bridge: { limits: { mode: "rlimit" } } });
      // status.json, written every few seconds while the seat runs: the limits as the seat decided them
      const status = await untilHost("status.json with the seat's limits", () => {
        try {
          return (JSON.parse(readFileSync(join(stateDir, "status.json"), "utf8")) as { seat?: { limits?: { mode: string; why: string } } }).seat?.limits;
        } catch {
          return undefined;
        }
      });
      expect(status.mode).toBe("rlimit");
      expect(status.why).toMatch(/^64 processes and threads, 256 MiB of private memory a process, .* per-process limits only/);
      const [row] = await localSeats(e.dir, Date.now());
      expect(row?.limits).toMatch(/^rlimit \(64 processes and threads, 256 MiB/);
    } finally {
      if (pid) process.kill(pid, "SIGTERM");
      await daemon;
    }
    const started = lines.find((l) => l.limits === "rlimit");
    expect(started?.msg).toMatch(/RUNS ARE CAPPED PER PROCESS ONLY/);
    // doctor, as the same plain user: the limits line says rlimit, and weaker
    const doctor = await runProcess({ argv: [process.execPath, CLI_BIN, "doctor", "--config", cfg], env, ...USER, timeoutMs: 60_000 });
    expect(doctor.stdout).toMatch(/limits\s.*rlimit — weaker: 64 processes and threads, .* per-process limits only/);
  }, 150_000);

  it("auto with caps the operator set, where nothing can honour them, does not start (a plain user, no cgroup, no prlimit)", async () => {
    const script = `import(${JSON.stringify(LIMITS_JS)}).then((m) => m.resolveLimits({ mode: "auto", memoryMiB: 256, pids: 64, tmpMiB: 64 }, process.env, { explicit: ["pids"], prlimit: null })).then((p) => console.log("STARTED", p.mode), (e) => console.log("REFUSED", e.message))`;
    const r = await runProcess({ argv: [process.execPath, "-e", script], env: { PATH: process.env.PATH ?? "" }, ...USER, timeoutMs: 30_000 });
    expect(r.stdout).toMatch(
      /^REFUSED agent\.limits\.mode is auto and nothing here can cap a run: .*prlimit \(util-linux\) is not installed, yet agent\.limits sets pids: 64: the seat does not start uncapped/,
    );
  });
});
