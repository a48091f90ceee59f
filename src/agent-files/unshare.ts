// A bridge that is not root runs its agent as its own user (jail/identity.ts): it can hand nothing over, and
// that user owns every file of the workspace — those that also have a name outside it too: a local clone's
// objects (`git clone /path` hard-links them), a package store's files linked into node_modules (pnpm), `cp
// -al`. Rewritten in place, such a file changes at every name it has: the source repository's objects, every
// project's copy of a package. So before the agent starts, each name of such a file in the workspace gets
// a private copy of its own (what `git clone --no-hardlinks` and pnpm's `package-import-method: copy` make):
// same bytes, mode and times, a reflink where the filesystem has them; the names outside keep the original.
// Only regular files: a rewrite in place needs one (a link, a device, a fifo has no data to change). Up to a
// size (agent.isolation.sharedCopyMaxMiB): more is refused before anything is copied, naming the ways out.
// What the copy cannot reach is refused too, never left shared without a word: a tree larger or deeper
// than the walk goes, a filesystem or bind mount inside the workspace (the jail shows it, writable, and
// the agent owns it). A name is copied from what it was when looked at, opened without following a link
// (never a link's target, never a fifo to wait on), its setuid and setgid bits dropped (the copy is the
// bridge user's). `sharedFiles: keep` leaves them as they are, counted — the card says the agent could rewrite them.
import { type BigIntStats, constants } from "node:fs";
import { chmod, copyFile, lstat, open, rename, rm, stat, utimes } from "node:fs/promises";
import { randomBytes } from "node:crypto";
import { PermanentError } from "../errors/index.js";
import type { Handback, Kept } from "./owner.js";
import { LinkCount, MAX_DEPTH, TreeTooLarge, type TreeEntry, inodeKey, walkTree, WALK_LIMIT } from "./walk.js";

const MiB = 1024 * 1024;

/** What to do with a workspace's files that also have a name outside it, when the agent is the bridge's user. */
export interface SharedPolicy {
  /** copy: private copies before the agent starts; keep: left as they are, counted (writable by the agent). */
  mode: "copy" | "keep";
  /** Bytes at most to copy in one workspace (more: SharedCopyRefused, nothing copied). */
  maxBytes: number;
}

export const DEFAULT_SHARED: SharedPolicy = { mode: "copy", maxBytes: 1024 * MiB };

/** The workspace's shared files could not be given private copies: the agent is not started. */
export class SharedCopyRefused extends PermanentError {
  constructor(
    readonly root: string,
    readonly files: number,
    readonly bytes: number,
    /** too_large: over the cap; failed: a copy failed; unwalkable: the tree is larger or deeper than the walk goes; mounted: a mount inside it. */
    readonly why: "too_large" | "failed" | "unwalkable" | "mounted",
    detail: string,
    options?: { cause?: unknown },
  ) {
    super("workspace_shared", refusalText(root, files, bytes, why, detail), options);
  }
}

const HARD_LINKS = "(hard links: a local clone's objects, a package store's files)";
const refusalText = (root: string, files: number, bytes: number, why: SharedCopyRefused["why"], detail: string): string => {
  switch (why) {
    case "too_large":
      return `${files} file(s) of the task's workspace ${root} (${mib(bytes)}) also have a name outside it ${HARD_LINKS} — more than agent.isolation.sharedCopyMaxMiB (${detail}) to copy`;
    case "failed":
      return `${files} file(s) of the task's workspace ${root} also have a name outside it ${HARD_LINKS}, and copying them failed: ${detail}`;
    case "unwalkable":
      return `the task's workspace ${root} could not be searched for files that also have a name outside it ${HARD_LINKS}: it has ${detail}`;
    case "mounted":
      return `the task's workspace ${root} has another filesystem or a bind mount mounted inside it (${detail}): the jail shows it, writable by the agent (the bridge's own user), and a mount cannot be copied`;
  }
};

/** A size for people: KiB below a MiB, else MiB (one decimal below 10). */
export const mib = (bytes: number): string => (bytes < MiB ? `${Math.ceil(bytes / 1024)} KiB` : `${(bytes / MiB).toFixed(bytes < 10 * MiB ? 1 : 0)} MiB`);

/**
 * The workspace's files with a name outside it, for a bridge that runs its agent as its own user: copied
 * (policy copy: `kept.copied`, `kept.copiedBytes`) or counted (keep: `kept.links`, `writable`). A tree too
 * large to walk is neither (the run goes on: nothing could be counted before either).
 */
export async function sharedLinks(root: string, policy: SharedPolicy = DEFAULT_SHARED, o: { limit?: number } = {}): Promise<Handback> {
  const limit = o.limit ?? WALK_LIMIT;
  const kept: Kept = { links: 0, foreign: 0, devices: 0, odd: 0, sample: [] };
  const owner = ownerOf(await lstat(root, { bigint: true }));
  const back: Handback = { root, changed: 0, kept, record: { root, owner, to: owner, others: [], acls: [] }, restore: () => Promise.resolve(NOTHING) };
  const links = new LinkCount();
  const sizes = new Map<string, { size: number; names: number }>();
  // A name that is not UTF-8 is one like any other (it is reached by its bytes): skipped, it would stay shared.
  const seen = (e: TreeEntry) => !e.foreign && links.has(e.st);
  const copying = policy.mode === "copy";
  const note = (rel: string) => {
    if (kept.sample.length < 5) kept.sample.push(rel);
  };
  const mounted: string[] = [];
  const deep: string[] = [];
  try {
    await walkTree(
      root,
      limit,
      async (e) => {
        if (e.foreign) {
          mounted.push(e.rel);
          return;
        }
        if (!links.note(e.st)) return;
        const k = inodeKey(e.st);
        sizes.set(k, { size: Number(e.st.size), names: (sizes.get(k)?.names ?? 0) + 1 });
      },
      (rel) => deep.push(rel),
    );
  } catch (err) {
    // keep: nothing is copied, so the walk's limit only limits what the card can count.
    if (err instanceof TreeTooLarge && copying) throw new SharedCopyRefused(root, 0, 0, "unwalkable", `more than ${limit} entries`, { cause: err });
    if (err instanceof TreeTooLarge) return back;
    throw err;
  }
  const quoted = (names: string[]) =>
    `${names
      .slice(0, 3)
      .map((n) => JSON.stringify(n.slice(0, 160)))
      .join(", ")}${names.length > 3 ? `, +${names.length - 3} more` : ""}`;
  if (copying && deep.length) throw new SharedCopyRefused(root, 0, 0, "unwalkable", `folders deeper than ${MAX_DEPTH} folders (${quoted(deep)})`);
  if (copying && mounted.length) throw new SharedCopyRefused(root, 0, 0, "mounted", quoted(mounted));
  for (const rel of mounted) note(rel);
  kept.foreign = mounted.length;
  if (mounted.length) kept.writable = true;
  const inside = links.allInside();
  if (links.size === inside.size) return back;
  const out = [...sizes].filter(([k]) => !inside.has(k));
  const files = out.reduce((n, [, v]) => n + v.names, 0);
  const bytes = out.reduce((n, [, v]) => n + v.size * v.names, 0);
  if (copying && bytes > policy.maxBytes) throw new SharedCopyRefused(root, files, bytes, "too_large", mib(policy.maxBytes));
  let one: Promise<unknown> = Promise.resolve();
  try {
    await walkTree(root, limit, async (e) => {
      if (!seen(e) || inside.has(inodeKey(e.st))) return;
      if (!copying) {
        kept.links += 1;
        return note(e.rel);
      }
      const dir = e.dir;
      if (!e.st.isFile() || dir === null) return;
      // One copy at a time (a walk visits a folder's entries side by side; a read-only folder is opened per copy).
      const done = one.then(() => privateCopy(e.at, dir, e.st, e.rel));
      one = done.catch(() => undefined);
      await done;
      kept.copied = (kept.copied ?? 0) + 1;
      kept.copiedBytes = (kept.copiedBytes ?? 0) + Number(e.st.size);
      note(e.rel);
    });
  } catch (err) {
    if (!copying) throw err;
    throw new SharedCopyRefused(root, files, bytes, "failed", (err as Error).message, { cause: err });
  }
  if (!copying && kept.links > 0) kept.writable = true;
  return back;
}

/**
 * Gives the name `at` (in the directory open as `dir`) a copy of its own: made beside it, then renamed over
 * it, so the name is never missing (the agent-files layer is below state/atomic.ts: the move is its own, as
 * owner.ts's). What is copied is what the walk looked at (`st`): the name is opened without following a
 * link and without waiting (a fifo), and must still be that regular file; the copy is made from that open
 * file. A directory the user may not write (a read-only folder of a package) is made writable for the
 * rename and put back.
 */
export async function privateCopy(at: Buffer, dir: string, st: BigIntStats, rel: string): Promise<void> {
  const src = await open(at, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK).catch((err: NodeJS.ErrnoException) => {
    throw new Error(`${JSON.stringify(rel)} changed while it was copied (${err.code === "ELOOP" ? "now a link" : err.code})`, { cause: err });
  });
  try {
    const now = await src.stat({ bigint: true });
    if (!now.isFile()) throw new Error(`${JSON.stringify(rel)} changed while it was copied: it is not a regular file now`);
    if (now.dev !== st.dev || now.ino !== st.ino) throw new Error(`${JSON.stringify(rel)} changed while it was copied: another file has its name now`);
    const tmp = Buffer.from(`${dir}/.hkb-private-${randomBytes(6).toString("hex")}`);
    const dirMode = (await stat(dir)).mode & 0o7777;
    const opened = (dirMode & 0o300) !== 0o300;
    if (opened) await chmod(dir, dirMode | 0o300);
    try {
      // The open file itself (its /proc/self/fd link reaches the inode, never a name): reflinked where the filesystem can.
      await copyFile(`/proc/self/fd/${src.fd}`, tmp, constants.COPYFILE_EXCL | constants.COPYFILE_FICLONE);
      // Its mode but setuid and setgid: the copy is the bridge user's, and would run as it.
      await chmod(tmp, Number(st.mode) & 0o1777);
      await utimes(tmp, Number(st.atimeMs) / 1000, Number(st.mtimeMs) / 1000);
      await rename(tmp, at);
    } finally {
      await rm(tmp, { force: true });
      if (opened) await chmod(dir, dirMode);
    }
  } finally {
    await src.close();
  }
}

const ownerOf = (st: BigIntStats) => ({ uid: Number(st.uid), gid: Number(st.gid) });
const NOTHING = { restored: 0, acls: 0, leftAgent: [], failed: [] };
