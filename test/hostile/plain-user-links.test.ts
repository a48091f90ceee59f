// A plain-user bridge (a non-root uid, made here with setpriv) runs its agent as itself: it can hand nothing
// over, and a workspace's hard links out of it — a local `git clone`'s objects, a pnpm-style store linked
// into node_modules — are that user's own, so the agent could rewrite them in place (in the jail too: its
// user namespace maps it to the same uid), reaching the source repository and the store (issue 50's finding
// 1: a `done` task and a source repository whose `git fsck` failed). By default each such name gets a
// private copy before the agent starts: its rewrite stays in the workspace, and the card says what was
// copied. `agent.isolation.sharedFiles: keep` leaves them linked, and the card says they were writable.
import { execFileSync } from "node:child_process";
import { chmodSync, linkSync, mkdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { probeBwrap } from "../../src/jail/policy.js";
import { runProcess } from "../../src/process/runner.js";
import { AGENT, SEAT } from "../helpers/bridge.js";
import { CLI_BIN, Emu } from "../helpers/emulator.js";
import { ROOT, blockedWhy } from "../helpers/jail-doors.js";
import { PLAIN_USER, chownTree } from "../helpers/plain-user.js";

const BWRAP = (await probeBwrap("bwrap", process.env)).ok;
const STORED = "module.exports = 'left-pad';\n";
const git = (cwd: string, ...args: string[]) =>
  execFileSync("git", ["-c", "user.name=t", "-c", "user.email=t@e", "-c", "init.defaultBranch=main", ...args], {
    cwd,
    encoding: "utf8",
    stdio: ["ignore", "pipe", "pipe"],
  });

let emu: Emu | undefined;
afterEach(() => {
  emu?.cleanup();
  emu = undefined;
});

/**
 * A local clone with a store's file linked into its node_modules, a task whose agent rewrites that file and
 * an object of the clone in place, and one `run --once` of a plain-user seat with `isolation` on top of bwrap.
 */
async function plainUserRun(isolation: Record<string, unknown>) {
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
  writeFileSync(join(store, "index.js"), STORED, { mode: 0o444 });
  mkdirSync(join(ws, "node_modules", "left-pad"), { recursive: true });
  linkSync(join(store, "index.js"), join(ws, "node_modules", "left-pad", "index.js"));
  // a package's folder its user may not write, with two names from the store (copied one at a time)
  writeFileSync(join(store, "package.json"), "{}\n", { mode: 0o444 });
  linkSync(join(store, "package.json"), join(ws, "node_modules", "left-pad", "package.json"));
  chmodSync(join(ws, "node_modules", "left-pad"), 0o555);
  const id = await e.createTask("clone and store", { assignee: SEAT, body: "MODE:jail-probe", workspace: `dir:${ws}` });
  const stateDir = join(e.dir, "state");
  mkdirSync(stateDir, { mode: 0o700 });
  const cfg = join(e.dir, "seat.json");
  // the store's file, and every object of the clone, rewritten in place
  const probe = [
    'p=node_modules/left-pad/index.js; chmod u+w "$p"; echo pwned >> "$p" && echo STORE-WRITTEN || echo STORE-REFUSED',
    'for o in $(find .git/objects -type f); do chmod u+w "$o"; echo x >> "$o"; done; echo OBJECTS-DONE',
  ].join("\n");
  writeFileSync(
    cfg,
    JSON.stringify({
      boards: [e.slug],
      assignee: SEAT,
      hermes: { command: e.command, home: e.home, callServer: "on" },
      stateDir,
      agent: {
        kind: "command",
        command: [process.execPath, AGENT],
        passEnv: ["FIXTURE_PROBE"],
        killGraceSeconds: 1,
        isolation: { mode: "bwrap", ...isolation },
      },
      workspace: { allowedRoots: [join(e.dir, "projects")] },
      gate: { allowDirty: true },
      discovery: { watch: false },
    }),
  );
  chownTree(e.dir);
  const env = { PATH: process.env.PATH ?? "", HOME: e.dir, FIXTURE_PROBE: `exec 2>&1\n${probe}` };
  const r = await runProcess({ argv: [process.execPath, CLI_BIN, "run", "--config", cfg, "--once"], env, ...PLAIN_USER, timeoutMs: 120_000 });
  const d = await e.show(id);
  expect(d.task.status, `${blockedWhy(d)}\n${r.stderr.slice(-2000)}`).toBe("done");
  const fsck = (() => {
    try {
      git(source, "-c", "safe.directory=*", "fsck", "--full"); // (the source is the plain user's now)
      return "clean";
    } catch (err) {
      return `broken: ${(err as { stderr?: string }).stderr ?? ""}`;
    }
  })();
  return { d, seen: d.runs.at(-1)?.summary ?? "", store: readFileSync(join(store, "index.js"), "utf8"), fsck };
}

describe.skipIf(!ROOT || (!BWRAP && !process.env.HKB_REQUIRE_BWRAP))("a plain-user bridge: hard links out of the workspace", () => {
  it("by default they get private copies first: the agent's rewrites stay in the workspace, the source and the store are intact, the card names the copies", async () => {
    const { d, seen, store, fsck } = await plainUserRun({});
    // the agent rewrote what it had: its own copies
    expect(seen).toContain("STORE-WRITTEN");
    expect(seen).toContain("OBJECTS-DONE");
    // … and nothing outside the workspace changed
    expect(store).toBe(STORED);
    expect(fsck).toBe("clean");
    expect(statSync(join(emu?.dir ?? "", "pnpm-store", "package.json")).nlink).toBe(1);
    expect(seen).toMatch(
      /workspace: \d+ file\(s\) that shared their data with a name outside the workspace .*were given private copies \(\d+ KiB\) before the agent started/,
    );
    expect(seen).toMatch(/"node_modules\/left-pad\/index\.js"|"\.git\/objects\//);
    expect(d.runs.at(-1)?.metadata).toMatchObject({ bridge: { workspace: { kept: { copied: expect.any(Number), copied_bytes: expect.any(Number) } } } });
  }, 150_000);

  it("sharedFiles: keep leaves them linked: the agent's rewrite reaches the store and the source, and the card says they were writable", async () => {
    const { d, seen, store, fsck } = await plainUserRun({ sharedFiles: "keep" });
    expect(seen).toContain("STORE-WRITTEN");
    // nothing keeps a file of its own user from it
    expect(store).toContain("pwned");
    expect(fsck).toMatch(/^broken: .*(corrupt|mismatch|inflate|bad object|unable to unpack)/is);
    expect(seen).toMatch(
      /workspace: \d+ file\(s\) with a name outside the workspace too \(hard links: a clone's objects, a package store\) — e\.g\. .*were writable by the agent/,
    );
    expect(seen).toContain("git clone --no-hardlinks");
    expect(d.runs.at(-1)?.metadata).toMatchObject({ bridge: { workspace: { kept: { writable: true, links: expect.any(Number) } } } });
  }, 150_000);
});
