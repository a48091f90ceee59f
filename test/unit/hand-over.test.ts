// A workspace handed to the agent's uid for a run comes back to its owner (a root bridge: agent-files/owner.ts),
// with nothing left that another local user could write or that runs as its owner; the boundary is by
// inode: what also has a name outside the tree is never handed over, the give-back restores per inode and
// takes off the ACLs the agent added.
import { chmodSync, chownSync, linkSync, mkdirSync, readFileSync, renameSync, statSync, symlinkSync, unlinkSync, writeFileSync } from "node:fs";
import { execFileSync } from "node:child_process";
import { join } from "node:path";
import { getAttributeSync, setAttributeSync } from "@napi-rs/xattr";
import { describe, expect, it } from "vitest";
import { handOver } from "../../src/agent-files/owner.js";
import { scratchDir } from "../helpers/tmp.js";

const AGENT = { uid: 65534, gid: 65534 };
const ACCESS = "system.posix_acl_access";
const DEFAULT = "system.posix_acl_default";

/** A POSIX ACL as the kernel keeps it (version 2; tag, permissions, id): the owner, a named user, group, mask, other. */
function acl(user: number, perms = 7): Buffer {
  const entries: [number, number, number][] = [
    [0x01, 7, 0xffffffff],
    [0x02, perms, user],
    [0x04, 5, 0xffffffff],
    [0x10, 7, 0xffffffff],
    [0x20, 5, 0xffffffff],
  ];
  const b = Buffer.alloc(4 + 8 * entries.length);
  b.writeUInt32LE(2, 0);
  entries.forEach(([tag, perm, id], i) => {
    b.writeUInt16LE(tag, 4 + 8 * i);
    b.writeUInt16LE(perm, 6 + 8 * i);
    b.writeUInt32LE(id >>> 0, 8 + 8 * i);
  });
  return b;
}

describe.skipIf(process.getuid?.() !== 0)("the hand-back (as root)", () => {
  it("gives back what the agent made, without o+w, setuid or a file's setgid; a shared dir's setgid stays", async () => {
    const root = scratchDir("hkb-handback-");
    writeFileSync(join(root, "kept.txt"), "x");
    const back = await handOver(root, AGENT);
    // what the agent's uid leaves behind
    writeFileSync(join(root, "open.sh"), "#!/bin/sh\n");
    chownSync(join(root, "open.sh"), 65534, 65534);
    chmodSync(join(root, "open.sh"), 0o6777);
    mkdirSync(join(root, "shared"));
    chownSync(join(root, "shared"), 65534, 65534);
    chmodSync(join(root, "shared"), 0o2777);
    await back.restore();
    const mode = (p: string) => statSync(join(root, p)).mode & 0o7777;
    expect(statSync(join(root, "open.sh")).uid).toBe(0);
    expect(mode("open.sh")).toBe(0o775);
    expect(mode("shared")).toBe(0o2775);
    expect(statSync(join(root, "kept.txt")).uid).toBe(0);
  });

  it("never hands over an inode with a name outside the tree (a store's file); hard links all inside are handed over", async () => {
    const base = scratchDir("hkb-handback-links-");
    const store = join(base, "store");
    const ws = join(base, "ws");
    mkdirSync(store);
    mkdirSync(join(ws, "node_modules", "a"), { recursive: true });
    writeFileSync(join(store, "index.js"), "module.exports = 1;\n", { mode: 0o444 });
    linkSync(join(store, "index.js"), join(ws, "node_modules", "a", "index.js"));
    writeFileSync(join(ws, "one"), "1");
    linkSync(join(ws, "one"), join(ws, "two")); // both names inside
    symlinkSync(join(store, "index.js"), join(ws, "link"));
    const back = await handOver(ws, AGENT);
    expect(back.kept).toMatchObject({ links: 1, sample: ["node_modules/a/index.js"] });
    expect(statSync(join(store, "index.js")).uid).toBe(0);
    expect(statSync(join(ws, "one")).uid).toBe(65534);
    expect(statSync(join(ws, "node_modules", "a")).uid).toBe(65534);
    await back.restore();
    expect(statSync(join(ws, "one")).uid).toBe(0);
    expect(statSync(join(store, "index.js")).mode & 0o777).toBe(0o444);
  });

  it("a tree already the agent's user's (another seat's hand-over, its agent live) hands over no inode with more than one link", async () => {
    // Two seats claim one dir: at once; the first's agent starts while the second still counts names. It
    // moves a store file (root's, a name outside) from folder to folder: counted twice, it looked "all
    // inside" and was handed over (seen with a mover as uid 65534: the store file became 65534's). A walk
    // that meets the agent's user's entries it did not hand over itself counts no name as proof.
    const ws = scratchDir("hkb-handback-busy-");
    mkdirSync(join(ws, "d1"));
    mkdirSync(join(ws, "d2"));
    writeFileSync(join(ws, "d1", "one"), "1");
    linkSync(join(ws, "d1", "one"), join(ws, "d2", "one")); // the names a mover would have made it look like
    writeFileSync(join(ws, "single"), "s");
    for (const p of [".", "d1", "d2"]) chownSync(join(ws, p), AGENT.uid, AGENT.gid); // the first seat's hand-over
    const back = await handOver(ws, AGENT);
    expect(statSync(join(ws, "d1", "one")).uid).toBe(0);
    expect(statSync(join(ws, "single")).uid).toBe(AGENT.uid);
    expect(back.kept.links).toBe(2);
  });

  it("restores per inode: root's file hard-linked at another user's path goes back to root, never to that user", async () => {
    const ws = scratchDir("hkb-handback-inode-");
    writeFileSync(join(ws, "deploy.sh"), "#!/bin/sh\n", { mode: 0o755 });
    writeFileSync(join(ws, "theirs.txt"), "theirs");
    chownSync(join(ws, "theirs.txt"), 1000, 1000);
    const back = await handOver(ws, AGENT);
    // the agent: theirs.txt removed, root's deploy.sh linked in its place (both are its own now)
    unlinkSync(join(ws, "theirs.txt"));
    linkSync(join(ws, "deploy.sh"), join(ws, "theirs.txt"));
    unlinkSync(join(ws, "deploy.sh"));
    await back.restore();
    expect(statSync(join(ws, "theirs.txt")).uid).toBe(0);
    expect(readFileSync(join(ws, "theirs.txt"), "utf8")).toBe("#!/bin/sh\n");
  });

  it("takes off the ACLs the agent added (access and default), puts back one the tree had", async () => {
    const ws = scratchDir("hkb-handback-acl-");
    writeFileSync(join(ws, "build.sh"), "#!/bin/sh\n", { mode: 0o755 });
    writeFileSync(join(ws, "team.txt"), "t", { mode: 0o640 });
    mkdirSync(join(ws, "out"));
    setAttributeSync(join(ws, "team.txt"), ACCESS, acl(1000, 6)); // the owner's own, before the run
    const back = await handOver(ws, AGENT);
    setAttributeSync(join(ws, "build.sh"), ACCESS, acl(65534));
    setAttributeSync(join(ws, "out"), DEFAULT, acl(65534));
    setAttributeSync(join(ws, "team.txt"), ACCESS, acl(65534));
    // a name that is not UTF-8, with an ACL of its own
    const odd = Buffer.concat([Buffer.from(`${ws}/`), Buffer.from([0xff, 0x2e, 0x73, 0x68])]);
    writeFileSync(odd, "x");
    chownSync(odd, 65534, 65534);
    const r = await back.restore();
    expect(getAttributeSync(join(ws, "build.sh"), ACCESS)).toBeNull();
    expect(getAttributeSync(join(ws, "out"), DEFAULT)).toBeNull();
    expect(getAttributeSync(join(ws, "team.txt"), ACCESS)).toEqual(acl(1000, 6));
    expect(statSync(odd).uid).toBe(0);
    expect(r.failed).toEqual([]);
  });

  it("never hands over a bind mount of the tree's own filesystem (its device is the tree's: its place in the mount table tells it)", async (ctx) => {
    const base = scratchDir("hkb-handback-bind-");
    const root = join(base, "ws");
    const outside = join(base, "shared-lib");
    mkdirSync(join(root, "vendor"), { recursive: true });
    mkdirSync(join(outside, "sub"), { recursive: true });
    writeFileSync(join(outside, "lib.sh"), "echo root's\n");
    writeFileSync(join(outside, "sub", "deep.txt"), "x");
    writeFileSync(join(root, "main.c"), "x");
    writeFileSync(join(root, "one.txt"), "x");
    writeFileSync(join(outside, "file-bound.txt"), "x");
    try {
      execFileSync("mount", ["--bind", outside, join(root, "vendor")], { stdio: "ignore" });
    } catch {
      return ctx.skip(); // no mounts here
    }
    execFileSync("mount", ["--bind", join(outside, "file-bound.txt"), join(root, "one.txt")]);
    try {
      const back = await handOver(root, AGENT);
      for (const p of ["lib.sh", "sub", "sub/deep.txt", "file-bound.txt", "."]) expect(statSync(join(outside, p)).uid, p).toBe(0);
      expect(statSync(join(root, "main.c")).uid).toBe(AGENT.uid);
      expect(back.kept.foreign).toBe(2);
      await back.restore();
      expect(statSync(join(root, "main.c")).uid).toBe(0);
    } finally {
      execFileSync("umount", [join(root, "one.txt")]);
      execFileSync("umount", [join(root, "vendor")]);
    }
  });

  it("a directory swapped for a link to another tree leads the give-back nowhere", async () => {
    const base = scratchDir("hkb-handback-swap-");
    const ws = join(base, "ws");
    const outside = join(base, "outside");
    mkdirSync(join(ws, "d"), { recursive: true });
    mkdirSync(outside);
    writeFileSync(join(outside, "secret"), "s");
    chownSync(join(outside, "secret"), 65534, 65534);
    const back = await handOver(ws, AGENT);
    renameSync(join(ws, "d"), join(ws, "d-away"));
    symlinkSync(outside, join(ws, "d"));
    await back.restore();
    expect(statSync(join(outside, "secret")).uid).toBe(65534);
  });

  it("a tree too deep to walk is said, never given back in silence; what is above it is given back", async () => {
    const ws = scratchDir("hkb-handback-deep-");
    const back = await handOver(ws, AGENT);
    const deep = join(ws, ...Array.from({ length: 258 }, () => "a"));
    mkdirSync(deep, { recursive: true });
    writeFileSync(join(ws, "top.txt"), "t");
    chownSync(join(ws, "top.txt"), 65534, 65534);
    const r = await back.restore();
    expect(r.failed.join("\n")).toMatch(/more than 256 folders deep, not entered/);
    expect(statSync(join(ws, "top.txt")).uid).toBe(0);
  });
});
