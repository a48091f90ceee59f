// hermes.share: host — the seats of one host on one board share one call server and one watch (the hub,
// src/board/hub.mts): two seats work their own tasks through one hub, each seeing only its own watch lines;
// a seat killed mid-run takes nothing of the other's with it; a hub killed is started again by the next call
// and the watch comes back; a share directory others can enter is refused, naming it.
import { chmodSync, mkdirSync, readFileSync, readdirSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { hubDir } from "../../src/board/hub-client.js";
import { runProcess } from "../../src/process/runner.js";
import { AGENT, type Bridge, bridgeConfig, runBridge } from "../helpers/bridge.js";
import { CLI_BIN, Emu } from "../helpers/emulator.js";
import { untilHost } from "../helpers/steering.js";

let emu: Emu;
const bridges: Bridge[] = [];
afterEach(async () => {
  for (const b of bridges.splice(0)) await b.daemon.stop();
  // the hubs would end by themselves once idle; the test's end them now (SIGTERM: the hub's own way out)
  if (emu) for (const h of procs("hub.mjs", emu.dir)) process.kill(h.pid, "SIGTERM");
  emu?.cleanup();
});

/** The processes whose command line has every one of `parts` (hubs, their servers and watches). */
function procs(...parts: string[]): { pid: number; ppid: number; cmd: string }[] {
  const out: { pid: number; ppid: number; cmd: string }[] = [];
  for (const d of readdirSync("/proc")) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const cmd = readFileSync(`/proc/${d}/cmdline`, "utf8").replace(/\0/g, " ");
      const ppid = Number(/^PPid:\s+(\d+)/m.exec(readFileSync(`/proc/${d}/status`, "utf8"))?.[1]);
      if (parts.every((p) => cmd.includes(p))) out.push({ pid: Number(d), ppid, cmd });
    } catch {
      // gone
    }
  }
  return out;
}

/** Does process `pid` work on the board at `home` (its HERMES_HOME)? */
function ofHome(pid: number, home: string): boolean {
  try {
    return readFileSync(`/proc/${pid}/environ`, "utf8").split("\0").includes(`HERMES_HOME=${home}`);
  } catch {
    return false;
  }
}

const shared = (o: { seat: string; stateName: string; watch?: boolean; once?: boolean; hermesEnv?: Record<string, string> }) => {
  const base = bridgeConfig(emu, o);
  return runBridge(emu, {
    ...o,
    base: {
      hermes: { ...base.hermes, share: "host", shareDir: join(emu.dir, "hubs") },
      discovery: { watch: o.watch ?? false, sweepSeconds: 3600, debounceMs: 20 },
    },
  }).then((b) => {
    bridges.push(b);
    return b;
  });
};

describe("seats of one host share the board's hub", () => {
  it("two seats, one hub, one call server, one watch: each works its own tasks and sees only its own lines", async () => {
    emu = await Emu.create();
    const a = await shared({ seat: "seat-a", stateName: "a", watch: true, once: false });
    const b = await shared({ seat: "seat-b", stateName: "b", watch: true, once: false });
    // each watch's first line reconciles (a scan); after that, only the watch brings work
    await Promise.all(
      [a, b].map(async (s) => {
        await s.monitor.next("watch:up");
        await s.monitor.next("scan");
      }),
    );
    const marks = [a.monitor.seen.length, b.monitor.seen.length];
    // a task of nobody's, and one of a lane no seat here works: their lines reach no seat
    const nobody = await emu.createTask("nobody's", { body: "MODE:complete" });
    const other = await emu.createTask("seat-c's", { assignee: "seat-c", body: "MODE:complete" });
    const ta = await emu.createTask("for a", { assignee: "seat-a", body: "MODE:complete" });
    const tb = await emu.createTask("for b", { assignee: "seat-b", body: "MODE:complete" });
    await Promise.all([a.monitor.closed(ta), b.monitor.closed(tb)]);
    expect((await emu.show(ta)).task.status).toBe("done");
    expect((await emu.show(tb)).task.status).toBe("done");
    // picked up off the watch line (no scan between creation and claim), each by its own seat, which heard
    // nothing of the other's task
    [a, b].forEach((s, i) => {
      const after = s.monitor.seen.slice(marks[i]);
      const claim = after.findIndex((e) => e.name === "claimed");
      expect(claim).toBeGreaterThanOrEqual(0);
      expect(after.slice(0, claim).filter((e) => e.name === "scan")).toEqual([]);
      expect(after.filter((e) => e.name === "claimed").map((e) => (e.payload as { taskId: string }).taskId)).toEqual([i === 0 ? ta : tb]);
    });
    for (const id of [nobody, other]) expect((await emu.show(id)).task.status).toBe("ready");
    for (const s of [a, b]) expect(s.monitor.all("claimed", (c) => c.taskId === nobody || c.taskId === other)).toEqual([]);
    const dir = join(emu.dir, "hubs");
    const hubs = procs("hub.mjs", dir);
    expect(hubs).toHaveLength(1);
    const hub = hubs[0]?.pid ?? 0;
    const under = procs(emu.command[1] ?? "").filter((p) => p.ppid === hub);
    expect(under.filter((p) => p.cmd.includes("--call-server"))).toHaveLength(1);
    expect(under.filter((p) => / watch /.test(p.cmd))).toHaveLength(1);
    // no seat has a server or a watch of its own (of this board's: the worker may run other files' too)
    expect(procs(emu.command[1] ?? "").filter((p) => p.ppid === process.pid && !p.cmd.includes("hub.mjs") && ofHome(p.pid, emu.home))).toEqual([]);
  });

  it("a second seat reads the install's --version and --help from the hub: the server forks them once, not per seat", async () => {
    // 0.21.5's help: capabilities that differ from the 0.20 a seat assumes when it cannot read them
    emu = await Emu.create("bridge", { env: { HERMES_EMULATOR_COMPAT: "0.21.5" } });
    const log = join(emu.dir, "calls.jsonl");
    const helpReads = () =>
      readFileSync(log, "utf8")
        .split("\n")
        .filter((l) => l.includes('"help":true')).length;
    const seat = (name: string) => shared({ seat: name, stateName: name, watch: true, once: false, hermesEnv: { HERMES_EMULATOR_CALL_LOG: log } });
    const a = await seat("seat-a");
    const first = helpReads();
    expect(first).toBeGreaterThanOrEqual(8);
    const b = await seat("seat-b");
    expect(procs("hub.mjs", emu.dir)).toHaveLength(1);
    expect(helpReads()).toBe(first);
    const caps = await Promise.all([a, b].map((s) => s.built.boards[0]?.capabilities()));
    expect(caps[0]?.review).toBe(true);
    expect(caps[1]).toEqual(caps[0]);
    expect(helpReads()).toBe(first);
    // and both seats work as before
    await Promise.all([a, b].map((s) => s.monitor.next("watch:up")));
    const ta = await emu.createTask("for a", { assignee: "seat-a", body: "MODE:complete" });
    const tb = await emu.createTask("for b", { assignee: "seat-b", body: "MODE:complete" });
    await Promise.all([a.monitor.closed(ta), b.monitor.closed(tb)]);
  });

  it("a seat killed mid-run takes nothing of another seat's with it; a killed hub is started again and the watch comes back", async () => {
    emu = await Emu.create();
    const dir = join(emu.dir, "hubs");
    const b = await shared({ seat: "seat-b", stateName: "b", watch: true, once: false });
    await b.monitor.next("watch:up");
    // seat A: the CLI as a process on the same hub (the same command and environment as B's), working a
    // task that runs until told to go on
    const ta = await emu.createTask("a's long task", { assignee: "seat-a", body: "MODE:wait-file" });
    const cfg = bridgeConfig(emu, { seat: "seat-a", stateName: "a" });
    const yaml = join(emu.dir, "a.json");
    writeFileSync(
      yaml,
      JSON.stringify({
        boards: [emu.slug],
        assignee: "seat-a",
        hermes: { ...cfg.hermes, share: "host", shareDir: dir }, // as seat B's: the same hub
        agent: { kind: "command", command: [process.execPath, AGENT] },
        heartbeat: { intervalSeconds: 1 },
        discovery: { watch: false },
        stateDir: cfg.stateDir,
      }),
    );
    let aPid = 0;
    const a = runProcess({
      argv: [process.execPath, CLI_BIN, "run", "--config", yaml],
      env: Object.fromEntries(Object.entries(process.env).filter((e): e is [string, string] => e[1] !== undefined)),
      onSpawn: (p) => (aPid = p),
    });
    await untilHost("seat A claimed its task", async () => (await emu.show(ta)).task.status === "running");
    const tb = await emu.createTask("b's task", { assignee: "seat-b", body: "MODE:wait-file" });
    await b.monitor.phase(tb, "working");
    const hub = procs("hub.mjs", dir)[0]?.pid;
    expect(hub).toBeTypeOf("number");
    process.kill(aPid, "SIGKILL");
    await a;
    // nothing of A's jail is left (its relay ends it once A is gone, also when A died while it was being set up)
    await untilHost("seat A's jail is gone", () => procs("HKB_JAIL", join(cfg.stateDir, "runs")).length === 0);
    // B's run goes on through the same hub: heartbeats, then its close
    const beats = b.monitor.all("heartbeat").length;
    await b.monitor.next("heartbeat", () => true, { nth: beats + 1 });
    writeFileSync(join((await emu.show(tb)).task.workspace_path ?? "", "go"), "");
    await b.monitor.closed(tb);
    expect((await emu.show(tb)).task.status).toBe("done");
    expect(procs("hub.mjs", dir).map((p) => p.pid)).toEqual([hub]);
    // the hub killed: B's watch goes down, and comes back on a hub started again
    const ups = b.monitor.all("watch:up").length;
    process.kill(hub ?? 0, "SIGKILL");
    await b.monitor.next("watch:down");
    await b.monitor.next("watch:up", () => true, { nth: ups + 1 });
    const again = await emu.createTask("after the hub came back", { assignee: "seat-b", body: "MODE:complete" });
    await b.monitor.closed(again);
    expect((await emu.show(again)).task.status).toBe("done");
    const now = procs("hub.mjs", dir);
    expect(now).toHaveLength(1);
    expect(now[0]?.pid).not.toBe(hub);
  });

  it("a hub whose server cannot start fails fast, saying why; after three such starts the seat's calls go as processes", async () => {
    emu = await Emu.create();
    const modes: string[] = [];
    const board = emu.board({
      command: [join(emu.dir, "no-such-hermes")],
      callServer: "on",
      share: { dir: join(emu.dir, "hubs"), idleMs: 1000 },
      retry: { retries: 0, minDelayMs: 1, maxDelayMs: 1, deadlineMs: 1000 },
      onTransport: (mode, why) => modes.push(`${mode}: ${why}`),
    });
    for (let i = 0; i < 3; i += 1) await expect(board.listReady({ assignee: "x" })).rejects.toThrow(/does not exist|not found|ENOENT/);
    expect(modes.at(-1)).toMatch(
      /^process: the call server failed 3 times in a row \(last: the host's hub could not be reached: the host's hub could not start: the call server could not be started: .*ENOENT/,
    );
    // no hub is left, and none is started again (each ended as it said why)
    await untilHost("no hub left", () => procs("hub.mjs", emu.dir).length === 0, 10_000);
  });

  it("a share directory that is not safe, or cannot hold a socket path, is refused naming it", () => {
    const base = join(process.env.TMPDIR ?? "/tmp", `hkb-hubdir-${process.pid}`);
    const open = join(base, "open");
    mkdirSync(open, { recursive: true, mode: 0o700 });
    chmodSync(base, 0o700);
    chmodSync(open, 0o770);
    expect(() => hubDir(open)).toThrow(/hermes\.shareDir: .*open can be entered by others \(mode 770\): make it 0700/);
    symlinkSync(open, join(base, "link"));
    expect(() => hubDir(join(base, "link"))).toThrow(/hermes\.shareDir: .*link is reached through a symbolic link \(it is .*open\): name that path/);
    writeFileSync(join(base, "file"), "");
    expect(() => hubDir(join(base, "file"))).toThrow(/hermes\.shareDir: .*file is not a directory/);
    expect(() => hubDir("relative/hubs")).toThrow(/hermes\.shareDir: relative\/hubs is not an absolute path/);
    expect(() => hubDir(join(base, "x".repeat(80)))).toThrow(/is too long for a unix socket path/);
    // under a directory another user could change (written by others, not sticky)
    const shared = join(base, "shared");
    mkdirSync(shared);
    chmodSync(shared, 0o777);
    expect(() => hubDir(join(shared, "hubs"))).toThrow(
      /is under a directory another user can change \(.*shared can be written by others \(mode 777, not sticky\)\)/,
    );
    chmodSync(shared, 0o1777); // sticky, like /tmp: no one else can move what is ours in it
    chmodSync(open, 0o700);
    expect(() => hubDir(join(base, "link", "hubs"))).toThrow(/hermes\.shareDir: .*link\/hubs is reached through a symbolic link/);
    expect(hubDir(open)).toBe(open);
    expect(hubDir(join(shared, "hubs"))).toBe(join(shared, "hubs"));
    rmSync(base, { recursive: true, force: true });
  });
});
