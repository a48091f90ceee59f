// A bridge that runs its agent as its own user (not root) hands nothing over: the workspace's files that also
// have a name outside it (a local clone's objects, a package store's files) get private copies before the
// agent starts (agent.isolation.sharedFiles: copy, the default), or are counted and said (keep).
import { chmodSync, linkSync, mkdirSync, readFileSync, statSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { SharedCopyRefused, sharedLinks } from "../../src/agent-files/unshare.js";
import { keptLine } from "../../src/run/close/close-text.js";
import { scratchDir } from "../helpers/tmp.js";

/** A workspace with a store's file and a clone's object linked in, and two names of one file inside it. */
function sharedTree() {
  const base = scratchDir("hkb-shared-links-");
  const store = join(base, "store");
  const ws = join(base, "ws");
  mkdirSync(store);
  mkdirSync(join(ws, "node_modules", "a"), { recursive: true });
  mkdirSync(join(ws, ".git", "objects", "ab"), { recursive: true });
  writeFileSync(join(store, "index.js"), "module.exports = 1;\n", { mode: 0o444 });
  utimesSync(join(store, "index.js"), 1_000_000, 1_000_000);
  linkSync(join(store, "index.js"), join(ws, "node_modules", "a", "index.js"));
  writeFileSync(join(store, "object"), "blob", { mode: 0o444 });
  linkSync(join(store, "object"), join(ws, ".git", "objects", "ab", "cdef"));
  writeFileSync(join(ws, "one"), "1");
  linkSync(join(ws, "one"), join(ws, "two"));
  return { store, ws };
}

describe("a bridge that runs its agent as its own user", () => {
  it("copy (the default): each name linked out of the workspace gets a private copy — same bytes, mode, times; the outside names keep theirs", async () => {
    const { store, ws } = sharedTree();
    const outside = statSync(join(store, "index.js"));
    // A package's folder the user may not write: the copy is renamed in all the same, the folder's mode put back.
    chmodSync(join(ws, "node_modules", "a"), 0o555);
    const back = await sharedLinks(ws);
    chmodSync(join(ws, "node_modules", "a"), 0o755);
    expect(back.changed).toBe(0);
    expect(back.kept).toMatchObject({ links: 0, copied: 2, copiedBytes: 20 + 4 });
    expect(back.kept.writable).toBeUndefined();
    expect([...back.kept.sample].sort()).toEqual([".git/objects/ab/cdef", "node_modules/a/index.js"]);
    const inside = statSync(join(ws, "node_modules", "a", "index.js"));
    expect(inside.ino).not.toBe(outside.ino);
    expect(inside.nlink).toBe(1);
    expect(statSync(join(store, "index.js")).nlink).toBe(1);
    expect(inside.mode).toBe(outside.mode);
    expect(inside.mtimeMs).toBe(outside.mtimeMs);
    expect(readFileSync(join(ws, "node_modules", "a", "index.js"), "utf8")).toBe("module.exports = 1;\n");
    // a rewrite in place reaches the workspace's copy only
    chmodSync(join(ws, "node_modules", "a", "index.js"), 0o644);
    writeFileSync(join(ws, "node_modules", "a", "index.js"), "pwned");
    expect(readFileSync(join(store, "index.js"), "utf8")).toBe("module.exports = 1;\n");
    // links all inside the workspace are its own: left linked
    expect(statSync(join(ws, "one")).ino).toBe(statSync(join(ws, "two")).ino);
    const line = keptLine(back.kept);
    expect(line).toMatch(/^workspace: 2 file\(s\) that shared their data with a name outside the workspace .* — e\.g\. /);
    expect(line).toContain("were given private copies (1 KiB) before the agent started");
    // done once: the next run's look finds nothing shared
    expect((await sharedLinks(ws)).kept).toMatchObject({ links: 0, sample: [] });
  });

  it("copy: more than the cap is refused before anything is copied, naming how much and the setting", async () => {
    const { store, ws } = sharedTree();
    const err = await sharedLinks(ws, { mode: "copy", maxBytes: 10 }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(SharedCopyRefused);
    const refused = err as SharedCopyRefused;
    expect(refused).toMatchObject({ files: 2, bytes: 24, why: "too_large", code: "workspace_shared" });
    expect(refused.message).toMatch(/2 file\(s\) of the task's workspace .* also have a name outside it .*more than agent\.isolation\.sharedCopyMaxMiB/);
    expect(statSync(join(store, "index.js")).nlink).toBe(2);
    expect(statSync(join(store, "object")).nlink).toBe(2);
  });

  it("keep: counts what has a name outside the workspace and says it was the agent's to rewrite; links all inside are not counted", async () => {
    const { store, ws } = sharedTree();
    const owner = statSync(ws);
    const back = await sharedLinks(ws, { mode: "keep", maxBytes: 0 });
    expect(back.changed).toBe(0);
    expect(back.kept).toMatchObject({ links: 2, writable: true });
    expect([...back.kept.sample].sort()).toEqual([".git/objects/ab/cdef", "node_modules/a/index.js"]);
    // nothing changed hands, nothing copied, nothing to give back
    expect(statSync(join(store, "index.js")).uid).toBe(owner.uid);
    expect(statSync(join(store, "index.js")).nlink).toBe(2);
    expect((await back.restore()).restored).toBe(0);
    const line = keptLine(back.kept);
    expect(line).toMatch(/^workspace: 2 file\(s\) with a name outside the workspace too \(hard links: a clone's objects, a package store\) — e\.g\. /);
    expect(line).toContain("were writable by the agent — this bridge runs it as its own user");
    expect(line).not.toContain("read-only to the agent (never handed");
  });

  it("a tree too large to walk: copy refuses it (its shared files would stay shared), keep leaves it as it is (nothing counted)", async () => {
    const { store, ws } = sharedTree();
    const err = await sharedLinks(ws, { mode: "copy", maxBytes: 1 << 30 }, { limit: 3 }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(SharedCopyRefused);
    expect(err).toMatchObject({ why: "unwalkable", code: "workspace_shared" });
    const back = await sharedLinks(ws, { mode: "keep", maxBytes: 0 }, { limit: 3 });
    expect(back.kept).toMatchObject({ links: 0, sample: [] });
    expect(statSync(join(store, "index.js")).nlink).toBe(2);
  });
});
