// The workspace boundary by inode (issue 50, findings 1, 3 and 4), tried from inside the jail of a root
// bridge — the agent runs as another uid, its `dir:` workspace handed to it for the run:
//   1. a real local `git clone` (hard-linked objects) with a pnpm-style store linked into node_modules: the
//      agent cannot rewrite the store's file or a source repository's object; both untouched, task done;
//   3. a workspace that holds a live run's (or an allowed root itself) is refused with a block; a run that
//      `cd`s into a folder of its own /tmp named like another workspace does not stop that one's give-back;
//      a SIGKILLed bridge's workspace comes back at its next start;
//   4. the ACLs the agent added are gone after the run; root's file hard-linked at another user's path
//      goes back to root.
import { execFileSync } from "node:child_process";
import { chownSync, existsSync, linkSync, mkdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { getAttributeSync } from "@napi-rs/xattr";
import { afterEach, describe, expect, it } from "vitest";
import { loadConfig } from "../../src/agents/kinds.js";
import { build } from "../../src/daemon/build.js";
import { probeBwrap } from "../../src/jail/policy.js";
import { silentLogger } from "../../src/log/logger.js";
import { runProcess } from "../../src/process/runner.js";
import { AGENT, type Bridge, runBridge } from "../helpers/bridge.js";
import { startDaemon, stopDaemons } from "../helpers/daemon-process.js";
import { Emu } from "../helpers/emulator.js";
import { ROOT, blockedWhy } from "../helpers/jail-doors.js";
import { localClone } from "../helpers/local-clone.js";
import { untilHost } from "../helpers/steering.js";

const BWRAP = (await probeBwrap("bwrap", process.env)).ok;

let emu: Emu | undefined;
const bridges: Bridge[] = [];
afterEach(async () => {
  for (const b of bridges.splice(0)) await b.daemon.stop();
  stopDaemons();
  emu?.cleanup();
  emu = undefined;
});

/** A seat whose command agent runs FIXTURE_PROBE in its jail, its `dir:` workspaces under `projects`. */
async function seat(e: Emu, o: { lane?: string; probe: string; once?: boolean; concurrency?: number }): Promise<Bridge> {
  const lane = o.lane ?? "test-seat";
  const b = await runBridge(e, {
    seat: lane,
    stateName: `state-${lane}`,
    once: o.once ?? true,
    env: { FIXTURE_PROBE: o.probe },
    base: {
      assignee: lane,
      concurrency: o.concurrency ?? 1,
      agent: { kind: "command", command: [process.execPath, AGENT], passEnv: ["FIXTURE_PROBE"], isolation: "bwrap", killGraceSeconds: 1 },
      workspace: { allowedRoots: [join(e.dir, "projects")] },
      gate: { allowDirty: true },
    },
  });
  bridges.push(b);
  return b;
}

const probeTask = (e: Emu, title: string, ws: string, lane = "test-seat") =>
  e.createTask(title, { assignee: lane, body: "MODE:jail-probe", workspace: `dir:${ws}` });

describe.skipIf(!ROOT || (!BWRAP && !process.env.HKB_REQUIRE_BWRAP))("the workspace boundary by inode (a root bridge, in the jail)", () => {
  it("finding 1: a cloned .git and a pnpm-style store stay untouched (git fsck clean, the store's owner, mode and bytes), the task done", async () => {
    emu = await Emu.create();
    const { source, ws } = localClone(emu.dir);
    const object = execFileSync("find", [".git/objects", "-type", "f", "-path", "*/objects/??/*"], { cwd: ws, encoding: "utf8" }).trim().split("\n")[0] ?? "";
    expect(statSync(join(ws, object)).nlink).toBeGreaterThan(1);
    // a pnpm store every project shares, root's and read-only, linked into node_modules
    const store = join(emu.dir, "pnpm-store", "v3", "files", "ab");
    mkdirSync(store, { recursive: true });
    const storeFile = join(store, "cdef-index.js");
    writeFileSync(storeFile, "module.exports = 'left-pad';\n", { mode: 0o444 });
    const pkg = join(ws, "node_modules", ".pnpm", "left-pad@1.3.0", "node_modules", "left-pad");
    mkdirSync(pkg, { recursive: true });
    linkSync(storeFile, join(pkg, "index.js"));
    const probe = [
      "exec 2>&1",
      "p=node_modules/.pnpm/left-pad@1.3.0/node_modules/left-pad/index.js",
      'chmod u+w "$p"; echo pwned >> "$p" && echo STORE-WRITTEN || echo STORE-REFUSED',
      `o=${object}; chmod u+w "$o"; echo garbage > "$o" && echo OBJECT-WRITTEN || echo OBJECT-REFUSED`,
      "echo work >> README.md && echo README-WRITTEN",
      "true",
    ].join("\n");
    const id = await probeTask(emu, "clone and store", ws);
    await (await seat(emu, { probe })).daemon.done;
    const d = await emu.show(id);
    expect(d.task.status, blockedWhy(d)).toBe("done");
    const seen = d.runs.at(-1)?.summary ?? "";
    expect(seen).toContain("STORE-REFUSED");
    expect(seen).toContain("OBJECT-REFUSED");
    expect(seen).toContain("README-WRITTEN");
    // the card says what was left read-only, and why
    expect(seen).toMatch(/workspace: left as they were, read-only to the agent .*hard links: a clone's objects, a package store/);
    expect(d.runs.at(-1)?.metadata).toMatchObject({ bridge: { workspace: { kept: { links: expect.any(Number) } } } });
    const st = statSync(storeFile);
    expect([st.uid, st.gid, st.mode & 0o7777]).toEqual([0, 0, 0o444]);
    expect(readFileSync(storeFile, "utf8")).toBe("module.exports = 'left-pad';\n");
    execFileSync("git", ["fsck", "--strict"], { cwd: source, stdio: "pipe" });
    execFileSync("git", ["fsck", "--strict"], { cwd: ws, stdio: "pipe" });
    expect(statSync(ws).uid).toBe(0);
  }, 90_000);

  it("finding 4: the agent's ACLs (access and default) are gone after the run; root's file linked at another user's path stays root's", async () => {
    emu = await Emu.create();
    const ws = join(emu.dir, "projects", "acl");
    mkdirSync(join(ws, "out"), { recursive: true });
    writeFileSync(join(ws, "build.sh"), "#!/bin/sh\necho build\n", { mode: 0o755 });
    writeFileSync(join(ws, "deploy.sh"), "#!/bin/sh\necho deploy\n", { mode: 0o755 });
    writeFileSync(join(ws, "theirs.txt"), "uid 1000's\n");
    chownSync(join(ws, "theirs.txt"), 1000, 1000);
    // the agent grants its own uid rwx on build.sh and a default ACL on out/, and links deploy.sh at theirs.txt's path
    const acl = [
      "import os, struct",
      "u = os.getuid()",
      "e = [(1, 7, 0xFFFFFFFF), (2, 7, u), (4, 5, 0xFFFFFFFF), (0x10, 7, 0xFFFFFFFF), (0x20, 5, 0xFFFFFFFF)]",
      "a = struct.pack('<I', 2) + b''.join(struct.pack('<HHI', *x) for x in e)",
      "os.setxattr('build.sh', 'system.posix_acl_access', a)",
      "os.setxattr('out', 'system.posix_acl_default', a)",
      "print('ACLS-SET')",
    ].join("\n");
    const probe = ["exec 2>&1", `python3 -c "${acl}"`, "rm theirs.txt && ln deploy.sh theirs.txt && echo LINKED", "true"].join("\n");
    const id = await probeTask(emu, "acl", ws);
    await (await seat(emu, { probe })).daemon.done;
    const d = await emu.show(id);
    expect(d.task.status, blockedWhy(d)).toBe("done");
    expect(d.runs.at(-1)?.summary).toContain("ACLS-SET");
    expect(d.runs.at(-1)?.summary).toContain("LINKED");
    expect(getAttributeSync(join(ws, "build.sh"), "system.posix_acl_access")).toBeNull();
    expect(getAttributeSync(join(ws, "out"), "system.posix_acl_default")).toBeNull();
    // a host process running as the agent's uid cannot append to root's build.sh
    const append = await runProcess({
      argv: ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", "/bin/sh", "-c", `echo pwned >> "${join(ws, "build.sh")}"`],
      env: { PATH: "/usr/bin:/bin" },
      timeoutMs: 10_000,
    });
    expect(append.exitCode).not.toBe(0);
    expect(readFileSync(join(ws, "build.sh"), "utf8")).toBe("#!/bin/sh\necho build\n");
    expect(statSync(join(ws, "theirs.txt")).uid).toBe(0);
    expect(readFileSync(join(ws, "theirs.txt"), "utf8")).toContain("echo deploy");
  }, 90_000);

  it("finding 3: a workspace holding a live run's, or an allowed root itself, is refused with a block; the live run completes", async () => {
    emu = await Emu.create();
    const team = join(emu.dir, "projects", "team");
    const b = join(team, "b");
    mkdirSync(b, { recursive: true });
    const wait = `touch started; n=0; while [ ! -f ${b}/go ] && [ $n -lt 600 ]; do sleep 0.1; n=$((n+1)); done; echo B-DONE`;
    const live = await probeTask(emu, "live b", b, "lane-b");
    await seat(emu, { lane: "lane-b", probe: wait });
    await untilHost("run B working", () => existsSync(join(b, "started")), 30_000);
    const around = await probeTask(emu, "around b", team, "lane-a");
    const root = await probeTask(emu, "the root", join(emu.dir, "projects"), "lane-a");
    await (await seat(emu, { lane: "lane-a", probe: "echo SHOULD-NOT-RUN" })).daemon.done;
    const a = await emu.show(around);
    expect(a.task.status).toBe("blocked");
    expect(blockedWhy(a)).toMatch(/cause: human decision needed/);
    expect(blockedWhy(a)).toMatch(
      new RegExp(`The agent was not started: the task's workspace ${team} contains "${b}", the workspace of a run alive on this host`),
    );
    expect(blockedWhy(await emu.show(root))).toMatch(/is the allowed root .*projects itself/);
    writeFileSync(join(b, "go"), "");
    await untilHost("run B done", async () => (await emu?.show(live))?.task.status === "done", 30_000);
  }, 90_000);

  it("finding 3: a run in a folder of its own /tmp named like another workspace does not keep that one from its owner", async () => {
    emu = await Emu.create();
    const victim = join(emu.dir, "projects", "victim");
    const hostile = join(emu.dir, "projects", "hostile");
    mkdirSync(victim, { recursive: true });
    mkdirSync(hostile, { recursive: true });
    // the hostile run: cd into its own /tmp's copy of the victim's path, and stay
    const stay = `mkdir -p ${victim} && cd ${victim} && touch ${hostile}/there; n=0; while [ ! -f ${hostile}/go ] && [ $n -lt 600 ]; do sleep 0.1; n=$((n+1)); done; echo STAYED`;
    const h = await probeTask(emu, "hostile", hostile, "lane-h");
    await seat(emu, { lane: "lane-h", probe: stay });
    await untilHost("the hostile run in place", () => existsSync(join(hostile, "there")), 30_000);
    const v = await probeTask(emu, "victim", victim, "lane-v");
    await (await seat(emu, { lane: "lane-v", probe: "echo VICTIM" })).daemon.done;
    expect((await emu.show(v)).task.status).toBe("done");
    expect(statSync(victim).uid).toBe(0);
    writeFileSync(join(hostile, "go"), "");
    await untilHost("the hostile run done", async () => (await emu?.show(h))?.task.status === "done", 30_000);
  }, 90_000);

  it("finding 3: a workspace a SIGKILLed bridge left with the agent's user comes back at the seat's next start", async () => {
    emu = await Emu.create();
    const ws = join(emu.dir, "projects", "k");
    mkdirSync(ws, { recursive: true });
    writeFileSync(join(ws, "kept.txt"), "k");
    const cfg = join(emu.dir, "seat.json");
    const agent = { kind: "command", command: [process.execPath, AGENT], passEnv: ["FIXTURE_PROBE"], isolation: "bwrap", killGraceSeconds: 1 };
    writeFileSync(cfg, JSON.stringify({ agent, workspace: { allowedRoots: [join(emu.dir, "projects")] } }));
    await probeTask(emu, "killed", ws);
    const first = startDaemon(emu, [], cfg, { FIXTURE_PROBE: `touch ${ws}/started; sleep 60` }, true);
    await untilHost("the run working", () => existsSync(join(ws, "started")), 30_000);
    expect(statSync(join(ws, "kept.txt")).uid).toBe(65534);
    process.kill(first.pid, "SIGKILL");
    await first.result;
    // the seat starts again (its build is where the hand-overs left behind come back)
    const config = loadConfig({
      env: {},
      base: {
        boards: [emu.slug],
        assignee: "test-seat",
        hermes: { command: emu.command, home: emu.home },
        stateDir: join(emu.dir, "state"),
        agent,
        workspace: { allowedRoots: [join(emu.dir, "projects")] },
      },
    });
    await build(config, process.env, silentLogger);
    expect(statSync(join(ws, "kept.txt")).uid).toBe(0);
    expect(statSync(ws).uid).toBe(0);
  }, 90_000);
});
