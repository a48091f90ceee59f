import { chmodSync, linkSync, mkdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { probeBwrap } from "../../src/jail/policy.js";
import { runProcess } from "../../src/process/runner.js";
import { SEAT } from "../helpers/bridge.js";
import { CLI_BIN, Emu } from "../helpers/emulator.js";
import { ROOT, blockedWhy, probeAgent } from "../helpers/jail-doors.js";
import { git, localClone } from "../helpers/local-clone.js";
import { PLAIN_USER, chownTree, seatConfigFile } from "../helpers/plain-user.js";

const BWRAP = (await probeBwrap("bwrap", process.env)).ok;
const STORED = "module.exports = 'left-pad';\n";

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
  const { source, ws } = localClone(e.dir);
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
  // the store's file, and every object of the clone, rewritten in place
  const probe = [
    'p=node_modules/left-pad/index.js; chmod u+w "$p"; echo pwned >> "$p" && echo STORE-WRITTEN || echo STORE-REFUSED',
    'for o in $(find .git/objects -type f); do chmod u+w "$o"; echo x >> "$o"; done; echo OBJECTS-DONE',
  ].join("\n");
  const cfg = seatConfigFile(e, stateDir, probeAgent({ mode: "bwrap", ...isolation }), {
    workspace: { allowedRoots: [join(e.dir, "projects")] },
    gate: { allowDirty: true },
  });
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
  return { d, seen: d.runs.at(-1)?.summary ?? "", store: readFileSync(join(store, "index.js"), "utf8"), fsck, log: r.stderr + r.stdout };
}

describe.skipIf(!ROOT || (!BWRAP && !process.env.HKB_REQUIRE_BWRAP))("a plain-user bridge: hard links out of the workspace", () => {
  it("by default they get private copies first: the agent's rewrites stay in the workspace, the source and the store are intact, the card names the copies", async () => {
    const { d, seen, store, fsck, log } = await plainUserRun({});
    expect(log).not.toContain("AGENTS MAY REWRITE FILES HARD-LINKED");
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
    const { d, seen, store, fsck, log } = await plainUserRun({ sharedFiles: "keep" });
    // said at the start too, as a jail's other openings are
    expect(log).toContain("AGENTS MAY REWRITE FILES HARD-LINKED OUT OF THEIR WORKSPACE (agent.isolation.sharedFiles: keep");
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
