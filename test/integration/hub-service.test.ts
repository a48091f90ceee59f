// The host's hub service (`hermes-bridge hubs`, deploy/hermes-bridge-hubs.service): with it, a hub is the
// service's child, not the child of the seat that needed it first — so stopping that seat the way its systemd
// unit does (every process it started, killed at once: its control group) cuts no other seat's calls or watch.
// Without an answering service a seat starts the hub itself (a service socket left by a stopped service is
// waited for, then passed over); a request that is not a hub of the service's directory is refused.
import { readFileSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { launchOf } from "../../src/board/hub-service.js";
import { runProcess } from "../../src/process/runner.js";
import { AGENT, type Bridge, bridgeConfig, runBridge } from "../helpers/bridge.js";
import { CLI_BIN, Emu } from "../helpers/emulator.js";
import { alive, untilHost } from "../helpers/steering.js";

let emu: Emu | undefined;
const bridges: Bridge[] = [];
const pids: number[] = [];
afterEach(async () => {
  for (const b of bridges.splice(0)) await b.daemon.stop();
  for (const p of pids.splice(0)) if (alive(p)) process.kill(p, "SIGTERM");
  if (emu) for (const h of procs("hub.mjs", emu.dir)) process.kill(h.pid, "SIGTERM");
  emu?.cleanup();
  emu = undefined;
});

/** The processes whose command line has every one of `parts`. */
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

/** `pid` and every process it started, while they live (what a systemd unit's control group holds of it). */
function tree(pid: number): number[] {
  const all = procs("");
  const out = [pid];
  for (let i = 0; i < out.length; i += 1) for (const p of all) if (p.ppid === out[i]) out.push(p.pid);
  return out;
}

const env = () => Object.fromEntries(Object.entries(process.env).filter((e): e is [string, string] => e[1] !== undefined));

/** The hub service of `dir`, as a process; resolves once it answers. */
async function service(dir: string): Promise<number> {
  let pid = 0;
  void runProcess({ argv: [process.execPath, CLI_BIN, "hubs", "--share-dir", dir], env: env(), onSpawn: (p) => (pid = p) });
  const ready = await runProcess({ argv: [process.execPath, CLI_BIN, "hubs", "--share-dir", dir, "--wait", "20"], env: env() });
  expect(ready.stderr).toBe("");
  pids.push(pid);
  return pid;
}

describe("the host's hub service", () => {
  it("starts the hub a seat needs as its own child: the seat's unit stopped (its processes killed) cuts no other seat's calls or watch", async () => {
    emu = await Emu.create();
    const dir = join(emu.dir, "hubs");
    const svc = await service(dir);
    // seat A: the CLI as a process, the first to need the hub (its claim), working a task that runs until told
    const ta = await emu.createTask("a's long task", { assignee: "seat-a", body: "MODE:wait-file" });
    const cfg = bridgeConfig(emu, { seat: "seat-a", stateName: "a" });
    const file = join(emu.dir, "a.json");
    writeFileSync(
      file,
      JSON.stringify({
        boards: [emu.slug],
        assignee: "seat-a",
        hermes: { ...cfg.hermes, share: "host", shareDir: dir },
        agent: { kind: "command", command: [process.execPath, AGENT] },
        heartbeat: { intervalSeconds: 1 },
        discovery: { watch: false },
        stateDir: cfg.stateDir,
      }),
    );
    let aPid = 0;
    const a = runProcess({ argv: [process.execPath, CLI_BIN, "run", "--config", file], env: env(), onSpawn: (p) => (aPid = p) });
    await untilHost("seat A claimed its task", async () => (await emu?.show(ta))?.task.status === "running");
    const hubs = procs("hub.mjs", dir);
    expect(hubs).toHaveLength(1);
    const hub = hubs[0]?.pid ?? 0;
    // the hub is the service's, not seat A's
    expect(hubs[0]?.ppid).toBe(svc);
    // seat B on the same hub, working its own task through it
    const base = bridgeConfig(emu, { seat: "seat-b", stateName: "b" });
    const b = await runBridge(emu, {
      seat: "seat-b",
      stateName: "b",
      once: false,
      base: { hermes: { ...base.hermes, share: "host", shareDir: dir }, discovery: { watch: true, sweepSeconds: 3600, debounceMs: 20 } },
    });
    bridges.push(b);
    await b.monitor.next("watch:up");
    const tb = await emu.createTask("b's task", { assignee: "seat-b", body: "MODE:wait-file" });
    await b.monitor.phase(tb, "working");
    // seat A's unit stops: every process A started, killed at once
    const unit = tree(aPid);
    expect(unit).not.toContain(hub);
    for (const p of unit) if (alive(p)) process.kill(p, "SIGKILL");
    await a;
    // B goes on through the same hub: its watch never went down, its heartbeats land, its task closes
    const beats = b.monitor.all("heartbeat").length;
    await b.monitor.next("heartbeat", () => true, { nth: beats + 2 });
    writeFileSync(join((await emu.show(tb)).task.workspace_path ?? "", "go"), "");
    await b.monitor.closed(tb);
    expect((await emu.show(tb)).task.status).toBe("done");
    expect(b.monitor.all("watch:down")).toEqual([]);
    expect(procs("hub.mjs", dir).map((p) => p.pid)).toEqual([hub]);
    const next = await emu.createTask("b's next task", { assignee: "seat-b", body: "MODE:complete" });
    await b.monitor.closed(next);
    expect((await emu.show(next)).task.status).toBe("done");
  });

  it("a second service on the same directory is refused; a socket a stopped service left is waited for, then the seat starts the hub itself", async () => {
    emu = await Emu.create();
    const dir = join(emu.dir, "hubs");
    const svc = await service(dir);
    const second = await runProcess({ argv: [process.execPath, CLI_BIN, "hubs", "--share-dir", dir], env: env(), timeoutMs: 20_000 });
    expect(second.exitCode).toBe(1);
    expect(second.stderr).toContain(`another hub service serves ${dir}`);
    // stopped (SIGTERM): its socket is left for its restart
    process.kill(svc, "SIGTERM");
    await untilHost("the service stopped", () => !alive(svc));
    expect(readdirSync(dir)).toContain("hubs.sock");
    const board = emu.board({ callServer: "on", share: { dir, idleMs: 1000, serviceWaitMs: 300 } });
    await board.listReady({ assignee: "x" });
    const hubs = procs("hub.mjs", dir);
    expect(hubs).toHaveLength(1);
    expect(hubs[0]?.ppid).toBe(process.pid);
  });

  it("refuses a request that is not a hub of its directory", () => {
    const dir = "/srv/hubs";
    const launch = {
      socket: `${dir}/0123456789abcdef0123.sock`,
      lock: `${dir}/0123456789abcdef0123.sock.lock`,
      server: ["python3", "x"],
      watch: ["w"],
      idleMs: 1000,
    };
    expect(launchOf(dir, { op: "start", launch, env: { PATH: "/bin" } })).toEqual({ launch, env: { PATH: "/bin" } });
    expect(launchOf(dir, { op: "start", launch: { ...launch, socket: "/tmp/0123456789abcdef0123.sock" }, env: {} })).toMatch(
      /launch.socket: not a hub's socket in \/srv\/hubs/,
    );
    expect(launchOf(dir, { op: "start", launch: { ...launch, socket: `${dir}/../x/0123456789abcdef0123.sock` }, env: {} })).toMatch(/launch.socket/);
    expect(launchOf(dir, { op: "start", launch: { ...launch, lock: `${dir}/other.lock` }, env: {} })).toMatch(/launch.lock/);
    expect(launchOf(dir, { op: "start", launch: { ...launch, server: ["python3", 1] }, env: {} })).toMatch(/argvs of strings/);
    expect(launchOf(dir, { op: "start", launch: { ...launch, watch: [] }, env: {} })).toMatch(/argvs of strings/);
    expect(launchOf(dir, { op: "start", launch, env: { X: 1 } })).toMatch(/env: a map of strings/);
    expect(launchOf(dir, { op: "run", launch, env: {} })).toMatch(/not \{"op":"start"/);
    expect(launchOf(dir, null)).toBe("not a JSON object");
  });
});
