// Handing a tree to the agent's user and taking it back (a bridge running as root runs its agents as an
// unprivileged uid: jail/identity.ts). The tree is walked without ever following a link — every entry is
// lstat'ed and changed with lchown, a directory is entered only when it is still a directory of the same
// filesystem — so a link the agent planted hands over, or takes back, nothing outside the tree. What the
// tree held of other owners is remembered and restored exactly; what the agent made comes back owned by
// the tree's own owner; an entry the agent's user does not own (a hard link to someone else's file) is
// never changed on the way back.
import type { Dirent, Stats } from "node:fs";
import { chmod, lchown, lstat, readdir } from "node:fs/promises";
import { join } from "node:path";
import { PermanentError } from "../errors/index.js";

export interface Owner {
  uid: number;
  gid: number;
}

/** A tree handed over: `restore` gives every entry back to its owner. */
export interface Handback {
  readonly root: string;
  /** Entries handed over (0 when the tree was already the agent's). */
  readonly changed: number;
  restore(): Promise<void>;
}

/** More entries than a workspace should have: the walk stops, the run does not start. */
export class TreeTooLarge extends PermanentError {
  constructor(
    readonly root: string,
    readonly limit: number,
  ) {
    super("tree_too_large", `${root} has more than ${limit} entries: too many to hand to the agent's user`);
  }
}

const same = (a: Owner, b: Owner) => a.uid === b.uid && a.gid === b.gid;

/** Every entry of the tree (the root first), never through a link, never onto another filesystem. */
async function walk(root: string, limit: number, visit: (p: string, st: Stats) => Promise<void>): Promise<void> {
  const top = await lstat(root);
  let n = 0;
  const go = async (p: string, st: Stats): Promise<void> => {
    n += 1;
    if (n > limit) throw new TreeTooLarge(root, limit);
    await visit(p, st);
    if (!st.isDirectory() || st.dev !== top.dev) return;
    let entries: Dirent[];
    try {
      entries = await readdir(p, { withFileTypes: true });
    } catch {
      return; // gone or unreadable meanwhile
    }
    for (const e of entries) {
      const child = join(p, e.name);
      let cst: Stats;
      try {
        cst = await lstat(child);
      } catch {
        continue;
      }
      // A directory is entered only as what lstat saw: a link in its place is changed itself, never followed.
      await go(child, cst);
    }
  };
  await go(root, top);
}

/** Gives every entry of `root` to `to`; the handback restores the owners it had. */
export async function handOver(root: string, to: Owner, o: { limit?: number } = {}): Promise<Handback> {
  const limit = o.limit ?? 500_000;
  const top = await lstat(root);
  const owner: Owner = { uid: top.uid, gid: top.gid };
  /** Entries of another owner than the root's, to be restored as they were. */
  const others = new Map<string, Owner>();
  let changed = 0;
  await walk(root, limit, async (p, st) => {
    if (same(st, to)) return;
    if (!same(st, owner)) others.set(p, { uid: st.uid, gid: st.gid });
    await lchown(p, to.uid, to.gid);
    changed += 1;
  });
  return {
    root,
    changed,
    restore: async () => {
      if (changed === 0 && same(owner, to)) return;
      await walk(root, limit, async (p, st) => {
        // Only what the agent's user owns now goes back (what it made, what was handed over): an entry of
        // anyone else — a hard link to a file that was never the tree's — is left as it is.
        const was = others.get(p);
        if (st.uid !== to.uid && !was) return;
        const want = was ?? owner;
        if (!same(st, want)) await lchown(p, want.uid, want.gid);
        // Nothing the agent leaves is another local user's to write or runs as its owner: o+w, setuid and a
        // file's setgid go (a directory's setgid — a shared group's — stays). Only after the run: no process of it is left.
        const unsafe = st.isDirectory() ? 0o4002 : st.isFile() ? 0o6002 : 0;
        if (st.mode & unsafe) await chmod(p, st.mode & 0o7777 & ~unsafe);
      });
    },
  };
}
