// The call server's semantics are a process's (hermes.callServer): `auto` takes a Python launcher (and
// nothing else), the call runs with the call's own environment, the per-call timeout stops only that
// call, an install that changed on disk is picked up by a new server, a server that hangs is replaced
// and after repeated failures the calls go back to plain processes; a claim whose server died after
// it took effect is matched by the pid the server announced (daemon on the emulator's server).
import { chmodSync, cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { hostname, tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { HermesCli } from "../../src/board/cli.js";
import { buildCliEnv, type CliEnvOptions } from "../../src/board/env.js";
import { runBridge, SEAT } from "../helpers/bridge.js";
import { EMULATOR_BIN, Emu } from "../helpers/emulator.js";
import { endHubs } from "../helpers/hubs.js";

const opts = (extra: Record<string, string> = {}): CliEnvOptions => ({ parent: { PATH: process.env.PATH ?? "" }, passEnv: [], set: extra, author: "cs" });
const clis: HermesCli[] = [];
afterEach(async () => {
  for (const c of clis.splice(0)) await c.transport.close();
});

function cli(command: string[], o: { callServer?: "auto" | "on" | "off"; env?: Record<string, string>; timeoutMs?: number; share?: string } = {}) {
  const modes: string[] = [];
  const whys: string[] = [];
  const c = new HermesCli({
    slug: "b",
    command,
    env: opts(o.env),
    callServer: o.callServer ?? "auto",
    timeoutMs: o.timeoutMs ?? 20_000,
    hangGraceMs: 500,
    ...(o.share ? { share: { dir: o.share, idleMs: 10_000 } } : {}),
    onTransport: (m, why) => {
      modes.push(m);
      whys.push(why);
    },
  });
  clis.push(c);
  const run = (args: string[], fence?: { taskId: string; runId: number }, timeoutMs?: number) =>
    c.transport.run({ args, env: buildCliEnv(opts(o.env), fence), remoteEnv: {}, timeoutMs: timeoutMs ?? o.timeoutMs ?? 20_000, captureLimit: 1 << 20 });
  return { c, run, modes, whys };
}

/** A private copy of the fake Python CLI (a test may rewrite its launcher). */
function fakeHermes(): string {
  const dir = mkdtempSync(join(tmpdir(), "hkb-fake-hermes-"));
  cpSync(resolve("test/fixtures/fake-hermes"), dir, { recursive: true });
  return join(dir, "hermes");
}

describe("the call server on a Python launcher", () => {
  it("auto: a Python launcher (by its shebang) gets the server; each call has its own pid and environment", async () => {
    const { c, run, modes } = cli([fakeHermes()], { env: { SEEN: "from the call" } });
    const [a, b] = [await run(["pid"]), await run(["pid"])];
    expect(modes).toEqual(["server"]);
    expect(c.transport.mode).toBe("server");
    expect(a.stdout.trim()).not.toBe(b.stdout.trim());
    expect(a.pid).toBe(Number(a.stdout.trim()));
    expect((await run(["echo-env", "HERMES_KANBAN_RUN_ID"], { taskId: "t_1", runId: 7 })).stdout).toBe("7\n");
    expect((await run(["echo-env", "SEEN"])).stdout).toBe("from the call\n");
    const f = await run(["fail"]);
    expect([f.exitCode, f.stderr]).toEqual([3, "kanban: failing on purpose\n"]);
  });

  it("hermes.share: host with nothing to share (callServer: off, or no Python launcher under auto) says so, and runs as before", async () => {
    for (const [callServer, command, why] of [
      ["off", [fakeHermes()], /callServer is off/],
      ["auto", [process.execPath, EMULATOR_BIN], /not a Python launcher/],
    ] as const) {
      const said: string[] = [];
      const c = new HermesCli({ slug: "b", command, env: opts(), callServer, share: { dir: tmpdir() }, onTransport: (m, w) => said.push(`${m}: ${w}`) });
      clis.push(c);
      expect(said[0]).toMatch(/^process: hermes\.share: host has no effect: /);
      expect(said[0]).toMatch(why);
      expect(c.transport.mode).toBe("process");
    }
  });

  it("auto: a command that is not a Python launcher stays a plain process", async () => {
    const { c, run, modes } = cli([process.execPath, EMULATOR_BIN]);
    expect((await run(["--version"])).stdout).toMatch(/Hermes Agent v0\.20\.0/);
    expect(c.transport.mode).toBe("process");
    expect(modes).toEqual(["process"]);
  });

  it("the per-call timeout stops that call only; the server answers the next one", async () => {
    const { c, run } = cli([fakeHermes()]);
    // The server is up first: a 500 ms budget is for the call, not for a Python start on a busy machine.
    expect((await run(["pid"])).exitCode).toBe(0);
    expect(c.transport.mode).toBe("server");
    const slow = await run(["sleep", "30"], undefined, 500);
    expect(slow.reason).toBe("timeout");
    expect((await run(["pid"])).exitCode).toBe(0);
    expect(c.transport.mode).toBe("server");
  });

  it("reads run in a reused worker, each starting clean; a write is forked; a worker whose read failed or was cut is not used again", async () => {
    const { c, run } = cli([fakeHermes()], { env: { SEEN: "the call's" } });
    const read = (verb = "show") => run(["kanban", "--board=b", verb, "state"]);
    const [a, b, ctx] = [await read(), await read(), await read("context")];
    expect(c.transport.mode).toBe("server");
    expect([b.pid, ctx.pid]).toEqual([a.pid, a.pid]); // one process, read after read
    // what a read changed in its process (environment, working directory, a handler) is gone for the next
    for (const r of [a, b, ctx]) expect([r.exitCode, r.stdout, r.stderr]).toEqual([0, "- / True the call's\n", "to stderr\n"]);
    // a write has a process of its own (a claim's lock names it)
    expect((await run(["kanban", "--board=b", "claim"])).pid).not.toBe(a.pid);
    // …also one whose board is named as a read verb (`--board show claim`: the verb is claim)
    expect((await run(["kanban", "--board", "show", "claim"])).pid).not.toBe(a.pid);
    expect((await run(["kanban", "--boa", "show", "claim"])).pid).not.toBe(a.pid); // argparse's abbreviation of --board
    // a failed read: its worker is not used again
    expect((await run(["kanban", "--board=b", "list", "fail"])).exitCode).toBe(3);
    const next = await read();
    expect([next.exitCode, next.pid === a.pid]).toEqual([0, false]);
    // what a read changed and a worker can put back is put back: its own stdout (flushed into its answer),
    // signal handlers, a timer, the umask — the next read in that worker starts clean
    const swap = await run(["kanban", "--board=b", "show", "swap"]);
    expect([swap.exitCode, swap.stdout.split("\n").sort()]).toEqual([0, ["", "before", "swapped"]]);
    const sig = await run(["kanban", "--board=b", "show", "signals"]);
    expect([sig.exitCode, sig.stdout]).toEqual([0, "set\n"]);
    const clean = await read();
    expect([clean.exitCode, clean.stdout, clean.pid]).toEqual([0, "- / True the call's\n", sig.pid]);
    // a thread it started ends the worker after its answer; a process it forked never answers for it
    const thr = await run(["kanban", "--board=b", "show", "thread"]);
    const fork = await run(["kanban", "--board=b", "show", "fork"]);
    expect([thr.stdout, fork.stdout, fork.exitCode, fork.pid === thr.pid]).toEqual(["started\n", "forked\n", 0, false]);
    const later = await read();
    expect([later.exitCode, later.stdout]).toEqual([0, "- / True the call's\n"]);
    // a read that leaves its process broken is not answered as a success, nor is that worker used again
    const broke = await run(["kanban", "--board=b", "show", "break"]);
    expect(broke.exitCode).not.toBe(0);
    expect((await read()).exitCode).toBe(0);
    // a read cut by its timeout ends that worker; the next read is answered
    const slow = await run(["kanban", "--board=b", "show", "wait-for", "/nonexistent/never"], undefined, 500);
    expect(slow.reason).toBe("timeout");
    const after = await read();
    expect([after.exitCode, after.stdout, after.pid === next.pid]).toEqual([0, "- / True the call's\n", false]);
    // HKB_CALLSERVER_WORKER_CALLS=0: every read forked
    const forked = cli([fakeHermes()], { env: { HKB_CALLSERVER_WORKER_CALLS: "0" } });
    const [f1, f2] = [await forked.run(["kanban", "--board=b", "show", "state"]), await forked.run(["kanban", "--board=b", "show", "state"])];
    expect(f1.pid).not.toBe(f2.pid);
  });

  it("an idle worker ends (HKB_CALLSERVER_WORKER_IDLE_MS); the next read starts another", async () => {
    const { run } = cli([fakeHermes()], { env: { HKB_CALLSERVER_WORKER_IDLE_MS: "200" } });
    const first = await run(["kanban", "--board=b", "show", "state"]);
    expect(first.exitCode).toBe(0);
    const alive = () => {
      try {
        process.kill(first.pid ?? 0, 0);
        return true;
      } catch {
        return false;
      }
    };
    await expect.poll(alive, { timeout: 15_000, interval: 50 }).toBe(false);
    const next = await run(["kanban", "--board=b", "show", "state"]);
    expect([next.exitCode, next.pid === first.pid]).toEqual([0, false]);
  });

  it("reads at once with one environment: each answered (one at a time in the worker, the rest forked), none lost", async () => {
    const { c, run } = cli([fakeHermes()]);
    for (let round = 0; round < 8; round += 1) {
      const got = await Promise.all(
        ["show", "context", "list", "show", "context", "show"].map((v) => run(["kanban", "--board=b", v, "state"], undefined, 15_000)),
      );
      expect(got.map((r) => [r.exitCode, r.reason, r.stdout])).toEqual(got.map(() => [0, "exited", "- / True -\n"]));
    }
    expect(c.transport.mode).toBe("server");
  });

  it("calls start through a queue: with every slot taken, a heartbeat goes first, then a claim, then the rest in arrival order; a call stopped while it waits never runs", async () => {
    const gate = join(mkdtempSync(join(tmpdir(), "hkb-cs-gate-")), "open");
    // One slot, held for as long as a call runs: the order below is the queue's alone.
    const { c, run } = cli([fakeHermes()], { env: { HKB_CALLSERVER_SLOTS: "1", HKB_CALLSERVER_HOLD_MS: "600000" } });
    expect((await run(["pid"])).exitCode).toBe(0);
    expect(c.transport.mode).toBe("server");
    const call = (verb: string, o: { timeoutMs?: number; extra?: string[]; spawned?: () => void } = {}) =>
      c.transport.run({
        args: ["kanban", "--board=b", verb, ...(o.extra ?? [])],
        env: buildCliEnv(opts({ HKB_CALLSERVER_SLOTS: "1", HKB_CALLSERVER_HOLD_MS: "600000" })),
        remoteEnv: {},
        timeoutMs: o.timeoutMs ?? 20_000,
        captureLimit: 1 << 20,
        onSpawn: () => o.spawned?.(),
      });
    let holding!: () => void;
    const held = new Promise<void>((r) => {
      holding = r;
    });
    const first = call("show", { extra: ["wait-for", gate], spawned: () => holding() });
    await held;
    const read = call("context");
    const close = call("complete");
    const claim = call("claim");
    const lease = call("heartbeat");
    let ranLate = false;
    const late = await call("list", { timeoutMs: 300, spawned: () => (ranLate = true) });
    expect(late.reason).toBe("timeout");
    expect(ranLate).toBe(false);
    writeFileSync(gate, "");
    const done = await Promise.all([first, read, close, claim, lease]);
    const at = done.map((r) => {
      const [verb, ns] = r.stdout.trim().split(" ");
      return [verb, BigInt(ns ?? "0")] as const;
    });
    expect(at.map(([v]) => v)).toEqual(["show", "context", "complete", "claim", "heartbeat"]);
    const order = [...at].sort((a, b) => (a[1] < b[1] ? -1 : 1)).map(([v]) => v);
    expect(order).toEqual(["show", "heartbeat", "claim", "context", "complete"]);
    expect(c.transport.mode).toBe("server");
  });

  it("warms up on a throwaway home: what a board call imports is loaded before each call, the real home is not touched", async () => {
    const home = mkdtempSync(join(tmpdir(), "hkb-cs-home-"));
    const tmp = mkdtempSync(join(tmpdir(), "hkb-cs-tmp-")); // where the server makes its throwaway home
    const { c, run } = cli([fakeHermes()], { env: { HERMES_HOME: home, TMPDIR: tmp } });
    expect((await run(["loaded"])).stdout).toBe("fakecli.board fakecli.main\n");
    expect(c.transport.mode).toBe("server");
    expect(readdirSync(home)).toEqual([]);
    // The throwaway home is gone once the server is warm.
    expect(readdirSync(tmp)).toEqual([]);
    // A call of its own still runs on the home it is given.
    expect((await run(["kanban", "list", "--json"])).stdout).toBe("[]\n");
    expect(readdirSync(home)).toEqual(["touched-by-list"]);
  });

  it("what the server remembers per call (catalogs, the terminal's size) follows each call's environment, as a plain process does", async () => {
    const launcher = fakeHermes();
    // one server for every call (what it warmed is every call's), and plain processes to compare with
    const [server, plain] = [cli([launcher]), cli([launcher], { callServer: "off" })];
    const envs: Record<string, string>[] = [{}, { COLUMNS: "50", LINES: "7" }, { LANGUAGE: "de", LC_ALL: "de_DE.UTF-8" }, {}];
    const outs: string[] = [];
    for (const env of envs) {
      const spec = { args: ["formatted"], env: buildCliEnv(opts(env)), remoteEnv: {}, timeoutMs: 20_000, captureLimit: 1 << 20 };
      const [a, b] = [await server.c.transport.run(spec), await plain.c.transport.run(spec)];
      expect(a.stdout).toBe(b.stdout);
      outs.push(a.stdout);
    }
    expect(server.modes).toEqual(["server"]);
    // the width is the call's: a narrower COLUMNS wraps the help otherwise
    expect(outs[1]).not.toBe(outs[0]);
    expect(outs[3]).toBe(outs[0]);
  });

  it("a kanban call builds only the top level's list and `kanban`'s parser; its parse, help and errors are a plain process's", async () => {
    const launcher = fakeHermes();
    const [server, plain] = [cli([launcher]), cli([launcher], { callServer: "off" })];
    const call = (c: typeof server, args: string[]) =>
      c.c.transport.run({ args: ["kanban", "argparse", ...args], env: buildCliEnv(opts()), remoteEnv: {}, timeoutMs: 20_000, captureLimit: 1 << 20 });
    const [a, b] = [await call(server, ["--flag", "5", "show", "t_1"]), await call(plain, ["--flag", "5", "show", "t_1"])];
    expect(server.modes).toEqual(["server"]);
    const [built = "", own, parsed] = a.stdout.split(" | ");
    // the other commands' parsers are not built; every name and alias is still the top level's
    expect(built).toBe(
      "chat:_Unbuilt c-chat:_Unbuilt model:_Unbuilt c-model:_Unbuilt kanban:ArgumentParser c-kanban:ArgumentParser cron:_Unbuilt c-cron:_Unbuilt",
    );
    expect(b.stdout.split(" | ")[0]).toBe(built.replace(/_Unbuilt/g, "ArgumentParser"));
    // a parser the call builds for itself is built in full; the parse is the same
    expect([own, parsed]).toEqual(["ArgumentParser ArgumentParser", "kanban show t_1 5 show\n"]);
    expect(b.stdout.split(" | ").slice(1)).toEqual([own, parsed]);
    for (const args of [["--help"], ["show", "--help"], ["--flag", "x", "list"], ["nope"], ["--flag", "1", "show", "t_1", "extra"]]) {
      const [s, p] = [await call(server, args), await call(plain, args)];
      expect([s.exitCode, s.stdout, s.stderr]).toEqual([p.exitCode, p.stdout, p.stderr]);
      expect(`${s.stdout}${s.stderr}`).toContain("usage: hermes");
    }
  });

  it("an install that changed on disk: the stale server is replaced and the new code answers", async () => {
    const launcher = fakeHermes();
    const { run } = cli([launcher]);
    expect((await run(["version"])).stdout).toBe("v1\n");
    writeFileSync(launcher, readFileSync(launcher, "utf8").replace('VERSION = "v1"', 'VERSION = "v2"'));
    expect((await run(["version"])).stdout).toBe("v2\n");
  });
});

describe("the handshake through the host's hub (hermes.share: host)", () => {
  /** `kanban --help` calls that reached a call server's child or ran as plain processes (the fixture's log). */
  const helpCalls = (log: string) => (existsSync(log) ? readFileSync(log, "utf8").split("\n").filter(Boolean) : []);
  const shares: string[] = [];
  afterEach(() => endHubs(shares));

  it.each([
    ["answers as a plain process does: every seat uses the server", {}, "server"],
    ["answers otherwise: every seat's calls go as plain processes, saying why", { FAKE_HELP_DIFFERS: "1" }, "process"],
  ])("a hub makes it once for its seats — a CLI that %s", async (_, env, mode) => {
    const launcher = fakeHermes();
    const log = join(dirname(launcher), "help.log");
    const share = mkdtempSync(join(tmpdir(), "hkb-hubs-"));
    chmodSync(share, 0o700);
    shares.push(share);
    const seats = [cli([launcher], { env: { ...env, FAKE_HELP_LOG: log }, share }), cli([launcher], { env: { ...env, FAKE_HELP_LOG: log }, share })];
    for (const s of seats) expect((await s.run(["version"])).stdout).toBe("v1\n");
    expect(seats.map((s) => s.modes)).toEqual([[mode], [mode]]);
    if (mode === "process") expect(seats[1]?.whys[0]).toMatch(/^the handshake failed: `kanban --help` through the server differs from a plain process/);
    else expect(seats[1]?.whys[0]).toMatch(/^handshake passed; the host's hub at /);
    // one plain process: the hub's, not one per seat
    expect(helpCalls(log).filter((l) => l === "plain")).toHaveLength(1);
  });
});

describe("a call's process is named with its host's time then (a claim under its lock from before it was another process's)", () => {
  const shares: string[] = [];
  afterEach(() => endHubs(shares));

  it.each([
    ["a plain process (callServer: off)", "off"],
    ["the seat's call server", "auto"],
    ["the host's hub", "hub"],
  ] as const)("%s", async (_, how) => {
    const share = how === "hub" ? mkdtempSync(join(tmpdir(), "hkb-hubs-")) : undefined;
    if (share) {
      chmodSync(share, 0o700);
      shares.push(share);
    }
    const { c } = cli([fakeHermes()], { callServer: how === "off" ? "off" : "auto", ...(share ? { share } : {}) });
    const named: [number, string | null, number | undefined][] = [];
    const before = Math.floor(Date.now() / 1000);
    const r = await c.transport.run({
      ...{ args: ["pid"], env: buildCliEnv(opts()), remoteEnv: {}, timeoutMs: 20_000, captureLimit: 1 << 20 },
      onSpawn: (pid, host, since) => named.push([pid, host, since]),
    });
    const after = Math.ceil(Date.now() / 1000);
    expect(c.transport.mode).toBe(how === "off" ? "process" : "server"); // not a quiet fall-back to a plain process
    expect(named).toEqual([[Number(r.stdout.trim()), hostname(), expect.any(Number)]]);
    const since = named[0]?.[2] ?? 0;
    expect(since >= before && since <= after).toBe(true);
  });
});

describe("the emulator's call server (callServer: on)", () => {
  let emu: Emu;
  afterEach(() => emu?.cleanup());

  it("a server that hangs is replaced; after three failures the calls go back to plain processes", async () => {
    emu = await Emu.create();
    const { c, run, modes } = cli([process.execPath, EMULATOR_BIN], {
      callServer: "on",
      env: { HERMES_HOME: emu.home, HERMES_EMULATOR_FAULTS: "list:server-hang:3" },
    });
    const args = ["kanban", `--board=${emu.slug}`, "list", "--json"];
    for (let i = 0; i < 3; i += 1) expect((await run(args, undefined, 300)).reason).toBe("spawn_failed");
    expect(c.transport.mode).toBe("process");
    expect(modes).toEqual(["server", "process"]);
    const ok = await run(args);
    expect([ok.exitCode, ok.stdout.trim()]).toEqual([0, "[]"]);
  });

  it("the server dies after a claim took effect: the run is found by the announced pid's lock and completes", async () => {
    emu = await Emu.create();
    const id = await emu.createTask("claimed then lost", { assignee: SEAT, body: "MODE:complete" });
    const b = await runBridge(emu, { faults: "claim:kill-server:1" });
    await b.daemon.done;
    const d = await emu.show(id);
    expect(d.task.status).toBe("done");
    expect(d.runs).toHaveLength(1);
    expect(b.reports[0]).toMatchObject({ decision: "complete", close: "applied" });
  });
});

describe("the call server under a launcher that re-executes itself (Hermes 0.21.6's lazy installs)", () => {
  /** The fake launcher, made to do what 0.21.6's may on its start: exec another interpreter unless told not to. */
  function reexecing(): string {
    const launcher = fakeHermes();
    const text = readFileSync(launcher, "utf8").replace(
      'if __name__ == "__main__":\n',
      'if __name__ == "__main__":\n    import os, sys\n    if os.environ.get("HERMES_DISABLE_LAZY_INSTALLS") != "1" and not os.environ.get("FAKE_REEXECED"):\n        os.environ["FAKE_REEXECED"] = "1"\n        os.execv(sys.executable, [sys.executable, __file__] + sys.argv[1:])\n',
    );
    writeFileSync(launcher, text);
    return launcher;
  }

  it("auto: seen at the handshake — calls go as plain processes, saying why and how to keep the server", async () => {
    const { c, run, modes, whys } = cli([reexecing()]);
    const r = await run(["echo-env", "FAKE_REEXECED"]);
    // The call ran all the same (a plain process, re-executed as the launcher wants).
    expect([r.exitCode, r.stdout]).toEqual([0, "1\n"]);
    expect(modes).toEqual(["process"]);
    expect(c.transport.mode).toBe("process");
    expect(whys[0]).toMatch(
      /^the hermes launcher re-executes itself \(into \S*python\S*\) instead of running in the server's Python — a lazy install; set HERMES_DISABLE_LAZY_INSTALLS=1 in hermes\.env to keep the call server$/,
    );
  });

  it("with HERMES_DISABLE_LAZY_INSTALLS=1 in the board's environment the launcher stays put and the server is used", async () => {
    const { c, run, modes } = cli([reexecing()], { env: { HERMES_DISABLE_LAZY_INSTALLS: "1" } });
    const [a, b] = [await run(["pid"]), await run(["pid"])];
    expect(modes).toEqual(["server"]);
    expect(c.transport.mode).toBe("server");
    expect(a.stdout.trim()).not.toBe(b.stdout.trim());
    expect((await run(["echo-env", "FAKE_REEXECED"])).stdout).toBe("(unset)\n");
  });
});
