// The live workspaces of a host (jail/live.ts), by inode: another bridge's jail is found by its marker and
// its cwd, the workspace it was started in — a real bubblewrap, never any process named `bwrap`; a
// workspace around it or inside it is refused, the same one is shared; a path string that merely names it
// (another mount's folder) is not it.
import { spawn } from "node:child_process";
import { mkdirSync, symlinkSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { WorkspaceNested, claimWorkspace, releaseWorkspace } from "../../src/jail/live.js";
import { probeBwrap } from "../../src/jail/policy.js";
import { formatOptions } from "../../src/result/template.js";
import { blockFor } from "../../src/run/blocks/table.js";
import { scratchDir } from "../helpers/tmp.js";
import { untilHost } from "../helpers/steering.js";

const BWRAP = (await probeBwrap("bwrap", process.env)).ok;
const MARKER = ["--setenv", "HKB_JAIL", "/elsewhere/runs/x"];
const hostOf = (base: string) => ({ registry: join(base, "registry"), uid: null, seat: base });

describe("the live workspaces of this host", () => {
  it.skipIf(!BWRAP)("another process's jail: its workspace shared, one around it or inside it refused (also through a link), a sibling fine", async () => {
    const base = scratchDir("hkb-live-");
    const theirs = join(base, "projects", "team", "b");
    mkdirSync(join(theirs, "src"), { recursive: true });
    mkdirSync(join(base, "projects", "team", "c"), { recursive: true });
    symlinkSync(join(base, "projects", "team"), join(base, "alias"));
    // a jail of another bridge: bubblewrap, its command line names a marker, its cwd is its workspace
    const jail = spawn("bwrap", ["--dev-bind", "/", "/", ...MARKER, "--", "/bin/sh", "-c", "sleep 30; :"], { cwd: theirs, stdio: "ignore" });
    try {
      await untilHost("the jail started", () => jail.pid !== undefined);
      const host = hostOf(base);
      const claim = (ws: string, user: object) => claimWorkspace(ws, user, { ...host, hand: null });
      const around = claim(join(base, "projects", "team"), {});
      await expect(around).rejects.toBeInstanceOf(WorkspaceNested);
      await expect(around).rejects.toThrow(/contains .*projects\/team\/b", the workspace of a run alive on this host/);
      await expect(claim(join(base, "alias"), {})).rejects.toThrow(/contains/);
      await expect(claim(join(theirs, "src"), {})).rejects.toThrow(/is inside .*team\/b/);
      const same = {};
      await expect(claim(theirs, same)).resolves.toBeNull();
      const sibling = {};
      await expect(claim(join(base, "projects", "team", "c"), sibling)).resolves.toBeNull();
      // this process's own live runs count too
      await expect(claim(join(base, "projects"), {})).rejects.toThrow(/contains/);
      await releaseWorkspace(same, host);
      await releaseWorkspace(sibling, host);
    } finally {
      jail.kill("SIGKILL");
    }
  });

  it("a process merely named bwrap, its command line holding a marker, is no jail: its folder is claimed like any other", async () => {
    const base = scratchDir("hkb-live-fake-");
    const theirs = join(base, "projects", "b");
    mkdirSync(theirs, { recursive: true });
    symlinkSync("/bin/sh", join(base, "bwrap"));
    const fake = spawn(join(base, "bwrap"), ["-c", "sleep 30; :", "hkb", ...MARKER], { cwd: theirs, stdio: "ignore" });
    try {
      await untilHost("the fake started", () => fake.pid !== undefined);
      const host = hostOf(base);
      const run = {};
      await expect(claimWorkspace(join(base, "projects"), run, { ...host, hand: null })).resolves.toBeNull();
      await releaseWorkspace(run, host);
    } finally {
      fake.kill("SIGKILL");
    }
  });

  it("a refusal names whose run holds the other workspace (its seat's state dir and pid), and its block says how out — never to edit the task's workspace, which Hermes cannot", async () => {
    const base = scratchDir("hkb-live-who-");
    const b = join(base, "projects", "b");
    mkdirSync(join(b, "sub"), { recursive: true });
    const host = hostOf(base);
    const runB = {};
    await expect(claimWorkspace(b, runB, { ...host, hand: null })).resolves.toBeNull();
    const inside = claimWorkspace(join(b, "sub"), {}, { ...host, hand: null });
    await expect(inside).rejects.toThrow(new RegExp(`is inside .*projects/b", the workspace of a run alive on this host \\(pid ${process.pid} of ${base}\\)`));
    const why = await inside.then(
      () => "",
      (e: Error) => e.message,
    );
    const block = blockFor("workspace_nested", why);
    expect(block.type).toBe("block");
    const t = block.type === "block" ? block.template : null;
    expect(formatOptions(t?.options ?? "")).toMatch(
      /^A\) wait for the other run to end, then unblock; B\) create the task again with a folder of its own, beside the other run's \(not above or below it\) \(hermes kanban create … --workspace dir:<folder>\) and archive this one/,
    );
    expect(JSON.stringify(t)).not.toMatch(/change the task's --workspace|give the task a workspace of its own .* and unblock/i);
    await releaseWorkspace(runB, host);
  });

  it("a path through a live run's workspace is refused — a link there is its agent's to turn (toward /etc) between the check and the hand-over", async () => {
    const base = scratchDir("hkb-live-through-");
    const a = join(base, "projects", "a");
    mkdirSync(join(a, "d", "victim"), { recursive: true });
    mkdirSync(join(base, "host", "victim"), { recursive: true });
    const host = hostOf(base);
    const runA = {};
    await expect(claimWorkspace(a, runA, { ...host, hand: null })).resolves.toBeNull();
    // A's agent: a link in its workspace, toward its own folder when the task's path is checked (inside the
    // allowed root), turned toward the host's folder before the claim
    symlinkSync(join(base, "host"), join(a, "link"));
    const handed: string[] = [];
    const through = join(a, "link", "victim");
    const claimB = claimWorkspace(
      through,
      {},
      {
        hand: async () => {
          handed.push(through);
          return null;
        },
        ...host,
      },
    );
    await expect(claimB).rejects.toBeInstanceOf(WorkspaceNested);
    await expect(claimB).rejects.toThrow(/passes through .*projects\/a", the workspace of a run alive on this host/);
    expect(handed).toEqual([]);
    // the same path once A is over is a path like any other
    await releaseWorkspace(runA, host);
    const runB = {};
    await expect(claimWorkspace(through, runB, { ...host, hand: null })).resolves.toBeNull();
    await releaseWorkspace(runB, host);
  });
});
