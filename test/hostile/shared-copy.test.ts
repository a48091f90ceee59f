// An attacker's look at the private copies a plain-user bridge makes before its agent starts
// (agent-files/unshare.ts): what the copy skipped stayed shared with the names outside the workspace — the
// agent, the bridge's own user, could then rewrite the source repository or the package store in place —
// and what a name turned into between the look and the copy was copied in its place. Each case here was
// open before its fix: a name that is not UTF-8, a folder deeper than the walk goes, a tree larger than
// it counts, a mount inside the workspace (each skipped without a word), and a name swapped for a link to
// a file of the bridge user's between the look and the copy (its target's bytes copied into the workspace).
import { execFileSync } from "node:child_process";
import { chmodSync, linkSync, lstatSync, mkdirSync, readFileSync, readlinkSync, statSync, symlinkSync, unlinkSync, writeFileSync } from "node:fs";
import { lstat } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { SharedCopyRefused, privateCopy, sharedLinks } from "../../src/agent-files/unshare.js";
import { MAX_DEPTH } from "../../src/agent-files/walk.js";
import { keptLine } from "../../src/run/close/close-text.js";
import { scratchDir } from "../helpers/tmp.js";

/** A workspace and a store outside it, the store's file `index.js` made. */
function tree() {
  const base = scratchDir("hkb-shared-attack-");
  const store = join(base, "store");
  const ws = join(base, "ws");
  mkdirSync(store);
  mkdirSync(ws);
  writeFileSync(join(store, "index.js"), "module.exports = 1;\n", { mode: 0o644 });
  return { base, store, ws };
}

const refusal = (p: Promise<unknown>) => p.then(() => null).catch((e: unknown) => e);

describe("a plain-user bridge's private copies, attacked", () => {
  it("a name that is not UTF-8 linked out of the workspace gets its copy too (it was skipped: the store stayed the agent's to rewrite)", async () => {
    const { store, ws } = tree();
    const odd = Buffer.concat([Buffer.from(`${ws}/`), Buffer.from([0x66, 0xff, 0xfe, 0x2e, 0x6a, 0x73])]);
    linkSync(join(store, "index.js"), odd);
    const back = await sharedLinks(ws);
    expect(statSync(join(store, "index.js")).nlink).toBe(1);
    expect(lstatSync(odd).nlink).toBe(1);
    expect(readFileSync(odd, "utf8")).toBe("module.exports = 1;\n");
    expect(back.kept).toMatchObject({ copied: 1 });
  });

  it(`a link out of the workspace below ${MAX_DEPTH} folders is refused, not left shared without a word`, async () => {
    const { store, ws } = tree();
    let deep = ws;
    for (let i = 0; i <= MAX_DEPTH; i += 1) deep = join(deep, "d");
    mkdirSync(deep, { recursive: true });
    linkSync(join(store, "index.js"), join(deep, "index.js"));
    const err = await refusal(sharedLinks(ws));
    expect(err).toBeInstanceOf(SharedCopyRefused);
    expect(err).toMatchObject({ why: "unwalkable", code: "workspace_shared" });
    expect((err as Error).message).toMatch(/deeper than 256 folders .*d\/d\/d/);
    // keep (the operator's choice to leave them): the walk's limit is not the run's business
    await expect(sharedLinks(ws, { mode: "keep", maxBytes: 0 })).resolves.toBeDefined();
  });

  it("a workspace with more entries than the walk counts is refused in copy mode (its shared files would stay shared)", async () => {
    const { store, ws } = tree();
    mkdirSync(join(ws, "node_modules"));
    linkSync(join(store, "index.js"), join(ws, "node_modules", "index.js"));
    for (let i = 0; i < 5; i += 1) writeFileSync(join(ws, `f${i}`), "");
    const err = await refusal(sharedLinks(ws, { mode: "copy", maxBytes: 1 << 30 }, { limit: 4 }));
    expect(err).toBeInstanceOf(SharedCopyRefused);
    expect(err).toMatchObject({ why: "unwalkable" });
    expect((err as Error).message).toMatch(/more than 4 entries/);
    expect(statSync(join(store, "index.js")).nlink).toBe(2);
  });

  it("a folder mounted inside the workspace is refused in copy mode, and counted as writable in keep mode", async (ctx) => {
    const { base, ws } = tree();
    const outside = join(base, "vendor-store");
    mkdirSync(outside);
    writeFileSync(join(outside, "lib.js"), "original\n");
    mkdirSync(join(ws, "vendor"));
    try {
      execFileSync("mount", ["--bind", outside, join(ws, "vendor")], { stdio: "ignore" });
    } catch {
      return ctx.skip(); // no mounts here
    }
    try {
      const err = await refusal(sharedLinks(ws));
      expect(err).toBeInstanceOf(SharedCopyRefused);
      expect(err).toMatchObject({ why: "mounted" });
      expect((err as Error).message).toMatch(/mounted inside it \("vendor"\)/);
      const kept = (await sharedLinks(ws, { mode: "keep", maxBytes: 0 })).kept;
      expect(kept).toMatchObject({ foreign: 1, writable: true });
      expect(keptLine(kept)).toMatch(/1 mounted inside it .* were writable by the agent/);
    } finally {
      execFileSync("umount", [join(ws, "vendor")]);
    }
  });

  it("a name swapped for a link between the look and the copy: the link's target is never copied into the workspace", async () => {
    const { base, store, ws } = tree();
    const secret = join(base, "bridge-secret.key");
    writeFileSync(secret, "sk-THE-SEATS-KEY\n", { mode: 0o600 });
    const name = join(ws, "index.js");
    linkSync(join(store, "index.js"), name);
    const st = await lstat(name, { bigint: true });
    // what the walk looked at, then (another seat's live agent, writing here through a shared mount) swapped
    unlinkSync(name);
    symlinkSync(secret, name);
    await expect(privateCopy(Buffer.from(name), ws, st, "index.js")).rejects.toThrow(/index\.js.*(changed|not a regular file)/);
    expect(readlinkSync(name)).toBe(secret);
    expect(execFileSync("ls", ["-A", ws], { encoding: "utf8" }).trim()).toBe("index.js");
  });

  it("a setuid or setgid file linked out of the workspace is copied without those bits (the copy is the bridge user's, and would run as it)", async () => {
    const { store, ws } = tree();
    writeFileSync(join(store, "tool"), "#!/bin/sh\n", { mode: 0o755 });
    chmodSync(join(store, "tool"), 0o6755);
    linkSync(join(store, "tool"), join(ws, "tool"));
    await sharedLinks(ws);
    expect(statSync(join(ws, "tool")).nlink).toBe(1);
    expect(statSync(join(ws, "tool")).mode & 0o7777).toBe(0o755);
  });
});
