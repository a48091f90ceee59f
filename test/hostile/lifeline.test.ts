// The jail's lifeline (jail/jail.ts, jail/relay.mts): a jail ends once its bridge is gone, however the bridge
// ended and whenever. Bubblewrap's own --die-with-parent is armed only once the jail's namespaces exist: a
// bridge SIGKILLed while a jail is still being set up left the jail's init running under host init, with the
// relay and the agent in it (containers/bubblewrap#633). Here the jail's bubblewrap never gets that flag at all
// (a wrapper drops it), which turns that race into the rule: only the lifeline can end the jail.
import { type ChildProcess, spawn } from "node:child_process";
import { chmodSync, existsSync, mkdtempSync, readFileSync, readdirSync, readlinkSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import type { Socket } from "node:net";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { probeBwrap } from "../../src/jail/policy.js";
import { NODE_RELAY, PYTHON_RELAY } from "../../src/jail/relay.js";
import { jailTree } from "../../src/process/terminate.js";
import { SEAT } from "../helpers/bridge.js";
import { activeRunDir, startDaemon, started, stopDaemons } from "../helpers/daemon-process.js";
import { Emu } from "../helpers/emulator.js";
import { untilHost } from "../helpers/steering.js";

/** Both relays (jail/relay.ts): the same contract. */
const RELAYS = [["Node", NODE_RELAY], ...(existsSync(PYTHON_RELAY[0] ?? "") ? [["Python", PYTHON_RELAY] as const] : [])] as const;
const BWRAP = await probeBwrap("bwrap", process.env);

let emu: Emu | undefined;
const relays: ChildProcess[] = [];
afterEach(() => {
  stopDaemons();
  for (const r of relays.splice(0)) r.kill("SIGKILL");
  emu?.cleanup();
  emu = undefined;
});

/** Whether `pid` runs (a zombie waiting for its reaper does not). */
function alive(pid: number): boolean {
  try {
    return !/^\d+ \(.*\) Z /.test(readFileSync(`/proc/${pid}/stat`, "utf8"));
  } catch {
    return false;
  }
}

/** The relay with a lifeline on descriptor 3, running `script`; its first line of output, and how it ends. */
async function relayWith(argv: readonly string[], script: string) {
  const relay = spawn(argv[0] ?? "", [...argv.slice(1), "--no-network", "--lifeline", "3", "--", "/bin/sh", "-c", script], {
    stdio: ["pipe", "pipe", "pipe", "pipe"],
  });
  relays.push(relay);
  // (a relay that ends with bytes of ours unread resets the lifeline: its end, not an error of the test's)
  (relay.stdio[3] as Socket).on("error", () => undefined);
  const ended = new Promise<{ code: number | null; signal: string | null }>((r) => relay.once("exit", (code, signal) => r({ code, signal })));
  // as the runner does: one byte says the bridge is there
  (relay.stdio[3] as Socket).write("\n");
  const first = await new Promise<string>((r) => relay.stdout?.once("data", (d) => r(String(d).trim())));
  return { relay, stdin: relay.stdin, lifeline: relay.stdio[3] as Socket, first, ended };
}

describe.each(RELAYS)("the relay's lifeline (%s)", (_, RELAY) => {
  it("when its other end closes, the relay kills its child and exits; the child never holds the lifeline", async () => {
    const { relay, lifeline, first, ended } = await relayWith(RELAY, "echo $$; exec sleep 600");
    const pid = Number(first);
    const links = (p: number) => readdirSync(`/proc/${p}/fd`).map((fd) => readlinkSync(`/proc/${p}/fd/${fd}`));
    const held = readlinkSync(`/proc/${relay.pid}/fd/3`);
    expect(held).toMatch(/^socket:/);
    expect(links(pid)).not.toContain(held);
    expect(alive(pid)).toBe(true);
    lifeline.destroy();
    expect(await ended).toEqual({ code: 137, signal: null });
    await untilHost("the relay's child is gone", () => !alive(pid));
  });

  it("a bridge gone before its first byte (killed while the jail was being set up): the program never starts", async () => {
    const dir = mkdtempSync(join(tmpdir(), "hkb-lifeline-"));
    try {
      const relay = spawn(RELAY[0] ?? "", [...RELAY.slice(1), "--no-network", "--lifeline", "3", "--", "/bin/sh", "-c", `touch ${dir}/started`], {
        stdio: ["ignore", "ignore", "pipe", "pipe"],
      });
      relays.push(relay);
      const ended = new Promise((r) => relay.once("exit", (code, signal) => r({ code, signal })));
      (relay.stdio[3] as Socket).destroy();
      expect(await ended).toEqual({ code: 137, signal: null });
      expect(existsSync(join(dir, "started"))).toBe(false);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("the operator's NODE_OPTIONS (kept aside by the jail) are the child's; the carrier is not", async () => {
    const relay = spawn(
      RELAY[0] ?? "",
      [...RELAY.slice(1), "--no-network", "--", "/bin/sh", "-c", 'env | grep -q ^HKB_RELAY_CHILD_NODE_OPTIONS= && c=set || c=unset; echo "$NODE_OPTIONS|$c"'],
      {
        env: { PATH: process.env.PATH, HKB_RELAY_CHILD_NODE_OPTIONS: "--max-old-space-size=99" },
        stdio: ["ignore", "pipe", "inherit"],
      },
    );
    relays.push(relay);
    const out = await new Promise<string>((r) => relay.stdout?.once("data", (d) => r(String(d).trim())));
    expect(out).toBe("--max-old-space-size=99|unset");
  });

  it("a lifeline that is not one descriptor above 2 is refused, naming it", async () => {
    /** The relay with `--lifeline <fd>`: how it ends and what it says. */
    const withLifeline = async (fd: string) => {
      const relay = spawn(RELAY[0] ?? "", [...RELAY.slice(1), "--no-network", "--lifeline", fd, "--", "/bin/true"], { stdio: ["ignore", "ignore", "pipe"] });
      relays.push(relay);
      let err = "";
      relay.stderr?.on("data", (d) => (err += String(d)));
      const code = await new Promise((r) => relay.once("close", (c) => r(c)));
      return { code, err };
    };
    const low = await withLifeline("1");
    expect(low.code).toBe(125);
    expect(low.err).toContain("hkb-relay: --lifeline takes one descriptor above 2, not 1");
    // a descriptor that is not open (no socket of the bridge's): refused too, nothing started
    const closed = await withLifeline("999");
    expect(closed.code).toBe(125);
    expect(closed.err).toContain("hkb-relay: --lifeline 999 is no socket of the bridge's");
  });

  it("a child killed by a signal ends the relay by the same signal (SIGKILL too: no handler to reset there)", async () => {
    for (const sig of ["KILL", "TERM", "SEGV"]) {
      const { first, ended } = await relayWith(RELAY, `echo up; kill -${sig} $$`);
      expect(first).toBe("up");
      expect(await ended).toEqual({ code: null, signal: `SIG${sig}` });
    }
  });

  it("the child gets what Node's spawn gives: only stdio, every signal at its default, the environment as given", async () => {
    // the relay started with signals ignored and a descriptor it does not know of (as a careless parent might)
    const script = "ls /proc/self/fd | tr '\\n' ' '; echo; grep ^SigIgn /proc/self/status; env | grep -c ^LC_CTYPE= || true";
    const relay = spawn("/bin/sh", ["-c", `trap '' USR1 CHLD TSTP; exec "$@" 9</dev/null`, "sh", ...RELAY, "--no-network", "--", "/bin/sh", "-c", script], {
      env: { PATH: process.env.PATH },
      stdio: ["ignore", "pipe", "pipe"],
    });
    relays.push(relay);
    let out = "";
    relay.stdout?.on("data", (d) => (out += String(d)));
    const code = await new Promise((r) => relay.once("close", (c) => r(c)));
    expect(code).toBe(0);
    const [fds, ign, lc] = out.trim().split("\n");
    // not the descriptor it was started with (9); 0-2 and the one ls opened to list them
    expect(fds?.trim().split(" ")).not.toContain("9");
    expect(fds?.trim().split(" ").slice(0, 3)).toEqual(["0", "1", "2"]);
    expect(ign).toMatch(/^SigIgn:\s+0+$/);
    expect(lc).toBe("0");
  });

  it("SIGUSR1 and the polite stops do not end the relay (the agent, in its process group, gets its own)", async () => {
    const { relay, stdin, first, ended } = await relayWith(RELAY, "echo up; read -r line; exit 4");
    expect(first).toBe("up");
    // (sent before the child is told to go on: a relay they ended would end by one of them)
    for (const sig of ["SIGUSR1", "SIGTERM", "SIGINT", "SIGHUP"] as const) relay.kill(sig);
    stdin?.end("go on\n");
    expect(await ended).toEqual({ code: 4, signal: null });
  });

  it("control: while its other end is open, what comes on it is dropped, and the relay ends as its child ends", async () => {
    const { stdin, lifeline, first, ended } = await relayWith(RELAY, "echo up; read -r line; exit 3");
    expect(first).toBe("up");
    lifeline.write("anything on the lifeline is dropped\n");
    stdin?.end("go on\n");
    expect(await ended).toEqual({ code: 3, signal: null });
  });
});

describe.skipIf(!BWRAP.ok)("a jail whose bridge was SIGKILLed", () => {
  it("ends with everything in it, also when bubblewrap never armed --die-with-parent", async () => {
    const e = await Emu.create();
    emu = e;
    const wrapper = join(e.dir, "bwrap-without-die-with-parent");
    writeFileSync(
      wrapper,
      `#!/bin/sh\nfor a in "$@"; do shift; [ "$a" = --die-with-parent ] || set -- "$@" "$a"; done\nexec ${BWRAP.ok ? BWRAP.path : "bwrap"} "$@"\n`,
    );
    chmodSync(wrapper, 0o755);
    const cfg = join(e.dir, "seat.json");
    writeFileSync(cfg, JSON.stringify({ agent: { kind: "command", passEnv: ["FIXTURE_PROBE"], isolation: { mode: "bwrap", bwrap: wrapper } } }));
    // the agent leaves a process in a session of its own, then works until told to stop
    const probe = "setsid sleep 607 </dev/null >/dev/null 2>&1 & while [ ! -e go ]; do sleep 0.2; done";
    const id = await e.createTask("long", { assignee: SEAT, body: "MODE:jail-probe" });
    const d = startDaemon(e, [], cfg, { FIXTURE_PROBE: probe });
    await d.waitFor(started);
    const runDir = activeRunDir(e);
    // the jail runs, its bubblewrap without the flag
    const cmdline = (p: number) => {
      try {
        return readFileSync(`/proc/${p}/cmdline`, "utf8");
      } catch {
        return ""; // ended meanwhile
      }
    };
    const bwraps = () => jailTree(runDir).filter((p) => cmdline(p).startsWith(`${BWRAP.ok ? BWRAP.path : "bwrap"}\0`));
    // the jail runs (its bubblewrap, inside and outside its pid namespace, without the flag) with the agent in it
    const tree = await untilHost("the agent runs in its jail", () => {
      const pids = jailTree(runDir);
      return pids.some((p) => cmdline(p).includes("agent.mjs")) && pids.some((p) => cmdline(p) === "sleep\x00607\x00") && bwraps().length === 2 ? pids : null;
    });
    const inJail = bwraps().map(cmdline);
    expect(inJail.every((c) => c.includes("\0--unshare-pid\0") && !c.includes("--die-with-parent"))).toBe(true);
    expect((await e.show(id)).task.status).toBe("running");
    process.kill(d.pid, "SIGKILL");
    await d.result;
    await untilHost("nothing of the jail is left", () => tree.every((p) => !alive(p)) && jailTree(runDir).length === 0);
  });
});
