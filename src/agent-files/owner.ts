// Handing a tree to the agent's user and taking it back (a bridge running as root runs its agents as an
// unprivileged uid: jail/identity.ts). The boundary is by inode, not by path (agent-files/walk.ts walks it):
// - nothing whose inode also has a name outside the tree is handed over — a clone's hard-linked objects, a
//   package store's files, `cp -al` (any hard link, in a tree the agent's user held already: another seat's
//   live agent may be moving names) — nor a device node or another filesystem mounted inside: they stay as
//   they were, read-only to the agent, and the hand-over counts them (the card says so);
// - what the hand-over changed is recorded per inode (device, number, birth time) with its owner and its
//   ACLs, and the give-back restores exactly that: an inode the agent hard-linked at another user's path
//   goes back to its own owner, never to that user; what the agent made goes to the tree's owner (one that
//   also has a name outside the tree stays the agent's, never becoming anyone else's);
// - every ACL the agent added (access or default) is removed, a recorded one put back; o+w, setuid and a
//   file's setgid are taken off what the agent leaves (a directory's setgid — a shared group's — stays).
// The record is plain data (HandbackRecord): a bridge that dies mid-run restores it at its next start.
import { type BigIntStats, constants } from "node:fs";
import { lchown, lstat, open, rename } from "node:fs/promises";
import { randomBytes } from "node:crypto";
import { type AclName, aclsReadable, putAcls, readAcls } from "./acl.js";
import { LinkCount, MAX_DEPTH, TreeTooLarge, type TreeEntry, inodeKey, walkTree, WALK_LIMIT } from "./walk.js";

export { TreeTooLarge };

export interface Owner {
  uid: number;
  gid: number;
}

/** What a hand-over left as it was (its owner, read-only to the agent), by why; a few names of them. */
export interface Kept {
  /** Hard links with a name outside the tree (or any, in a tree the agent's user held already). */
  links: number;
  /** Entries of another filesystem, or of a bind mount, mounted inside (its mount point included). */
  foreign: number;
  devices: number;
  /** Names that are not UTF-8 (never a workspace's own). */
  odd: number;
  sample: string[];
  /** Nothing was handed over: the agent is the bridge's own user and owns them already (unshare.ts, keep) — it could rewrite them. */
  writable?: boolean;
  /** Names given a private copy of their own before the agent started, and their bytes (unshare.ts, copy). */
  copied?: number;
  copiedBytes?: number;
}

/** What a hand-over changed, per inode (`dev:ino:birth`): plain data, kept on disk while the run lasts. */
export interface HandbackRecord {
  root: string;
  /** The tree's owner (its root's): what the agent makes goes to it. */
  owner: Owner;
  /** The agent's user. */
  to: Owner;
  /** Inodes handed over whose owner was not the tree's: [inode, uid, gid]. */
  others: [string, number, number][];
  /** ACLs the tree had: [inode, name, value in base64]. */
  acls: [string, string, string][];
}

/** What a give-back did. */
export interface Restored {
  /** Entries given back. */
  restored: number;
  /** Entries whose ACLs were removed or put back. */
  acls: number;
  /** Entries the agent made that also have a name outside the tree: left the agent's (a few names). */
  leftAgent: string[];
  /** Entries that could not be given back, and why (a few). */
  failed: string[];
}

/** A tree handed over: `restore` gives every entry back to its owner. */
export interface Handback {
  readonly root: string;
  /** Entries handed over (0 when the tree was already the agent's). */
  readonly changed: number;
  readonly kept: Kept;
  readonly record: HandbackRecord;
  restore(): Promise<Restored>;
}

const same = (a: Owner, b: Owner) => a.uid === b.uid && a.gid === b.gid;
const ownerOf = (st: BigIntStats): Owner => ({ uid: Number(st.uid), gid: Number(st.gid) });
const NO_ACLS: ReadonlyMap<AclName, Buffer> = new Map();

/** Gives the tree `root` to `to`, but for what has a name outside it (kept); the handback restores what it changed. */
export async function handOver(root: string, to: Owner, o: { limit?: number } = {}): Promise<Handback> {
  const limit = o.limit ?? WALK_LIMIT;
  await aclsReadable();
  const top = await lstat(root, { bigint: true });
  const owner = ownerOf(top);
  const others: HandbackRecord["others"] = [];
  const acls: HandbackRecord["acls"] = [];
  const kept: Kept = { links: 0, foreign: 0, devices: 0, odd: 0, sample: [] };
  let changed = 0;
  const keep = (why: Exclude<keyof Kept, "sample" | "writable">, rel: string) => {
    kept[why] += 1;
    if (kept.sample.length < 5) kept.sample.push(rel);
  };
  const give = async (e: TreeEntry) => {
    const st = e.st;
    const key = inodeKey(st);
    if (st.isDirectory() || st.isFile()) for (const [name, value] of await readAcls(e.at.toString())) acls.push([key, name, value.toString("base64")]);
    const was = ownerOf(st);
    if (same(was, to)) return;
    if (!same(was, owner)) others.push([key, was.uid, was.gid]);
    await lchown(e.at, to.uid, to.gid);
    changed += 1;
  };
  // An inode with more than one link waits for the walk's end: handed over only if every name of it was inside.
  const links = new LinkCount();
  // Entries the agent's user held before this walk: another seat's hand-over of this tree (its agent may be
  // working in it now, moving a name from folder to folder so that the count sees it twice) or one a dead
  // bridge never gave back. Names counted then prove nothing: no inode with more than one link is handed over.
  let theirs = false;
  await walkTree(root, limit, async (e) => {
    const st = e.st;
    if (e.foreign) return keep("foreign", e.rel);
    if (st.isBlockDevice() || st.isCharacterDevice()) return keep("devices", e.rel);
    if (!e.utf8) return keep("odd", e.rel);
    if (same(ownerOf(st), to)) theirs = true;
    if (!links.note(st)) await give(e);
  });
  const inside = theirs ? new Set<string>() : links.allInside();
  if (links.size > 0)
    await walkTree(root, limit, async (e) => {
      if (e.foreign || !e.utf8 || !links.has(e.st)) return;
      if (inside.has(inodeKey(e.st))) await give(e);
      else keep("links", e.rel);
    });
  const record: HandbackRecord = { root, owner, to, others, acls };
  return { root, changed, kept, record, restore: () => (changed === 0 && same(owner, to) ? Promise.resolve(nothing()) : giveBack(record)) };
}

/** A handback from a kept record (a run adopted after its bridge died): what it restores is what the record says. */
export const fromRecord = (record: HandbackRecord): Handback => ({
  root: record.root,
  changed: record.others.length,
  kept: { links: 0, foreign: 0, devices: 0, odd: 0, sample: [] },
  record,
  restore: () => giveBack(record),
});

const nothing = (): Restored => ({ restored: 0, acls: 0, leftAgent: [], failed: [] });

/** Gives back what `record` handed over (a run's end, or a start after a bridge that died mid-run). */
export async function giveBack(record: HandbackRecord): Promise<Restored> {
  // No limit on the way back: the agent chose how much it made, and all of it goes back.
  const limit = Number.POSITIVE_INFINITY;
  await aclsReadable();
  const { to } = record;
  const others = new Map(record.others.map(([k, uid, gid]) => [k, { uid, gid }]));
  const acls = new Map<string, Map<AclName, Buffer>>();
  for (const [k, name, value] of record.acls) {
    const m = acls.get(k) ?? new Map<AclName, Buffer>();
    m.set(name as AclName, Buffer.from(value, "base64"));
    acls.set(k, m);
  }
  const out = nothing();
  const fail = (e: TreeEntry, err: unknown) => {
    if (out.failed.length < 5) out.failed.push(`${e.rel}: ${(err as Error).message}`);
  };
  const chown = async (e: TreeEntry, want: Owner) => {
    if (!same(ownerOf(e.st), want)) await lchown(e.at, want.uid, want.gid);
    out.restored += 1;
  };
  // What the agent made with more than one link goes to the tree's owner only if every name of it is inside.
  const links = new LinkCount();
  const deep = (rel: string) => {
    if (out.failed.length < 5) out.failed.push(`${rel}: more than ${MAX_DEPTH} folders deep, not entered`);
  };
  await walkTree(
    record.root,
    limit,
    async (e) => {
      // Only what the agent's user owns now goes back (what it made, what was handed over): an entry of anyone
      // else — a kept hard link, a file of another filesystem — is left as it is.
      if (e.foreign || Number(e.st.uid) !== to.uid) return;
      const key = inodeKey(e.st);
      try {
        const was = others.get(key);
        if (was) await chown(e, was);
        else if (!links.note(e.st)) await chown(e, record.owner);
        await safeMode(e);
        if (e.st.isDirectory() || e.st.isFile()) if ((await withStringPath(e, (p) => putAcls(p, acls.get(key) ?? NO_ACLS))).length) out.acls += 1;
      } catch (err) {
        fail(e, err);
      }
    },
    deep,
  );
  if (links.size > 0) {
    const inside = links.allInside();
    await walkTree(
      record.root,
      limit,
      async (e) => {
        if (e.foreign || Number(e.st.uid) !== to.uid || others.has(inodeKey(e.st)) || !links.has(e.st)) return;
        if (!inside.has(inodeKey(e.st))) {
          if (out.leftAgent.length < 5) out.leftAgent.push(e.rel);
          return;
        }
        await chown(e, record.owner).catch((err: unknown) => fail(e, err));
      },
      deep,
    );
  }
  return out;
}

/**
 * Nothing the agent leaves is another local user's to write or runs as its owner: o+w, setuid and a file's
 * setgid go — through a descriptor opened without following a link, checked to be the inode looked at.
 */
async function safeMode(e: TreeEntry): Promise<void> {
  const st = e.st;
  const unsafe = st.isDirectory() ? 0o4002 : st.isFile() ? 0o6002 : 0;
  const mode = Number(st.mode) & 0o7777;
  if ((mode & unsafe) === 0) return;
  const flags = constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK | constants.O_NOCTTY | (st.isDirectory() ? constants.O_DIRECTORY : 0);
  const h = await open(e.at, flags);
  try {
    const now = await h.stat({ bigint: true });
    if (now.dev === st.dev && now.ino === st.ino) await h.chmod(mode & ~unsafe);
  } finally {
    await h.close();
  }
}

/**
 * `f` on a string path to the entry (the ACL library takes no bytes): its own, or — a name that is not
 * UTF-8, which only the agent makes — a UTF-8 name it is renamed to for the moment, in its own directory.
 */
async function withStringPath<T>(e: TreeEntry, f: (path: string) => Promise<T>): Promise<T> {
  if (e.utf8 || e.dir === null) return f(e.at.toString());
  const tmp = `${e.dir}/.hkb-giveback-${randomBytes(6).toString("hex")}`;
  await rename(e.at, tmp);
  try {
    return await f(tmp);
  } finally {
    await rename(tmp, e.at);
  }
}
