// A plain-user bridge (a non-root uid, made here with setpriv) runs its agent as itself: it hands nothing
// over, so a workspace's hard links out of it — a local `git clone`'s objects, a pnpm-style store linked into
// node_modules, the bridge user's own files — are the agent's to rewrite in place, in the jail too (its own
// user namespace maps it to the same uid). Nothing can keep them from it there; the card says so, naming
// them, where it used to say nothing (the operator looked, as in issue 50's finding 1, and saw a `done` task
// and a source repository whose `git fsck` failed).
import { execFileSync } from "node:child_process";
import { chownSync, linkSync, mkdirSync, readdirSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { probeBwrap } from "../../src/jail/policy.js";
import { runProcess } from "../../src/process/runner.js";
import { AGENT, SEAT } from "../helpers/bridge.js";
import { CLI_BIN, Emu } from "../helpers/emulator.js";
import { ROOT, blockedWhy } from "../helpers/jail-doors.js";

const BWRAP = (await probeBwrap("bwrap", process.env)).ok;
const USER = { uid: 1000, gid: 1000 };
const git = (cwd: string, ...args: string[]) =>
  execFileSync("git", ["-c", "user.name=t", "-c", "user.email=t@e", "-c", "init.defaultBranch=main", ...args], { cwd, encoding: "utf8" });

let emu: Emu | undefined;
afterEach(() => {
  emu?.cleanup();
  emu = undefined;
});

const chownTree = (p: string) => {
  chownSync(p, USER.uid, USER.gid);
  if (statSync(p).isDirectory()) for (const n of readdirSync(p)) chownTree(join(p, n));
};

describe.skipIf(!ROOT || (!BWRAP && !process.env.HKB_REQUIRE_BWRAP))("a plain-user bridge: hard links out of the workspace", () => {
  it("a clone's objects and a store's file linked in are the agent's to rewrite: the task is done and its card says so, naming them", async () => {
    emu = await Emu.create();
    const e = emu;
    const source = join(e.dir, "source");
    const ws = join(e.dir, "projects", "app");
    mkdirSync(source, { recursive: true });
    git(source, "init", "-q");
    writeFileSync(join(source, "README.md"), "# app\n");
    git(source, "add", "-A");
    git(source, "commit", "-qm", "first");
    mkdirSync(join(e.dir, "projects"));
    git(e.dir, "clone", "-q", source, ws); // a local clone: its objects are hard links to the source's
    const store = join(e.dir, "pnpm-store");
    mkdirSync(store);
    writeFileSync(join(store, "index.js"), "module.exports = 'left-pad';\n", { mode: 0o444 });
    mkdirSync(join(ws, "node_modules", "left-pad"), { recursive: true });
    linkSync(join(store, "index.js"), join(ws, "node_modules", "left-pad", "index.js"));
    const id = await e.createTask("clone and store", { assignee: SEAT, body: "MODE:jail-probe", workspace: `dir:${ws}` });
    const stateDir = join(e.dir, "state");
    mkdirSync(stateDir, { mode: 0o700 });
    const cfg = join(e.dir, "seat.json");
    const probe = 'p=node_modules/left-pad/index.js; chmod u+w "$p"; echo pwned >> "$p" && echo STORE-WRITTEN || echo STORE-REFUSED';
    writeFileSync(
      cfg,
      JSON.stringify({
        boards: [e.slug],
        assignee: SEAT,
        hermes: { command: e.command, home: e.home, callServer: "on" },
        stateDir,
        agent: { kind: "command", command: [process.execPath, AGENT], passEnv: ["FIXTURE_PROBE"], killGraceSeconds: 1, isolation: { mode: "bwrap" } },
        workspace: { allowedRoots: [join(e.dir, "projects")] },
        gate: { allowDirty: true },
        discovery: { watch: false },
      }),
    );
    chownTree(e.dir);
    const env = { PATH: process.env.PATH ?? "", HOME: e.dir, FIXTURE_PROBE: `exec 2>&1\n${probe}` };
    const r = await runProcess({ argv: [process.execPath, CLI_BIN, "run", "--config", cfg, "--once"], env, ...USER, timeoutMs: 120_000 });
    const d = await e.show(id);
    expect(d.task.status, `${blockedWhy(d)}\n${r.stderr.slice(-2000)}`).toBe("done");
    const seen = d.runs.at(-1)?.summary ?? "";
    // the agent could: nothing keeps a file of its own user from it
    expect(seen).toContain("STORE-WRITTEN");
    // … and the card says which files were exposed, and what to do
    expect(seen).toMatch(
      /workspace: \d+ file\(s\) with a name outside the workspace too \(hard links: a clone's objects, a package store\) — e\.g\. .*were writable by the agent/,
    );
    expect(seen).toMatch(/"node_modules\/left-pad\/index\.js"|"\.git\/objects\//);
    expect(seen).toContain("git clone --no-hardlinks");
    expect(d.runs.at(-1)?.metadata).toMatchObject({ bridge: { workspace: { kept: { writable: true, links: expect.any(Number) } } } });
  }, 150_000);
});
