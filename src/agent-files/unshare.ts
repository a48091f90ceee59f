// A bridge that is not root runs its agent as its own user (jail/identity.ts): it can hand nothing over, and
// that user owns every file of the workspace — those that also have a name outside it too: a local clone's
// objects (`git clone /path` hard-links them), a package store's files linked into node_modules (pnpm), `cp
// -al`. Rewritten in place, such a file changes at every name it has: the source repository's objects, every
// project's copy of a package. So before the agent starts, each name of such a file in the workspace gets
// a private copy of its own (what `git clone --no-hardlinks` and pnpm's `package-import-method: copy` make):
// same bytes, mode and times, a reflink where the filesystem has them; the names outside keep the original.
// Only regular files: a rewrite in place needs one (a link, a device, a fifo has no data to change). Up to a
// size (agent.isolation.sharedCopyMaxMiB): more is refused before anything is copied, naming the ways out.
// `sharedFiles: keep` leaves them as they are, counted — the card says the agent could rewrite them.
import { type BigIntStats, constants } from "node:fs";
import { chmod, copyFile, lstat, rename, rm, stat, utimes } from "node:fs/promises";
import { randomBytes } from "node:crypto";
import { PermanentError } from "../errors/index.js";
import type { Handback, Kept } from "./owner.js";
import { LinkCount, TreeTooLarge, type TreeEntry, inodeKey, walkTree } from "./walk.js";

const DEFAULT_LIMIT = 500_000;
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
    readonly why: "too_large" | "failed",
    detail: string,
    options?: { cause?: unknown },
  ) {
    super(
      "workspace_shared",
      why === "too_large"
        ? `${files} file(s) of the task's workspace ${root} (${mib(bytes)}) also have a name outside it (hard links: a local clone's objects, a package store's files) — more than agent.isolation.sharedCopyMaxMiB (${detail}) to copy`
        : `${files} file(s) of the task's workspace ${root} also have a name outside it (hard links: a local clone's objects, a package store's files), and copying them failed: ${detail}`,
      options,
    );
  }
}

/** A size for people: KiB below a MiB, else MiB (one decimal below 10). */
export const mib = (bytes: number): string => (bytes < MiB ? `${Math.ceil(bytes / 1024)} KiB` : `${(bytes / MiB).toFixed(bytes < 10 * MiB ? 1 : 0)} MiB`);

/**
 * The workspace's files with a name outside it, for a bridge that runs its agent as its own user: copied
 * (policy copy: `kept.copied`, `kept.copiedBytes`) or counted (keep: `kept.links`, `writable`). A tree too
 * large to walk is neither (the run goes on: nothing could be counted before either).
 */
export async function sharedLinks(root: string, policy: SharedPolicy = DEFAULT_SHARED, o: { limit?: number } = {}): Promise<Handback> {
  const limit = o.limit ?? DEFAULT_LIMIT;
  const kept: Kept = { links: 0, foreign: 0, devices: 0, odd: 0, sample: [] };
  const owner = ownerOf(await lstat(root, { bigint: true }));
  const back: Handback = { root, changed: 0, kept, record: { root, owner, to: owner, others: [], acls: [] }, restore: () => Promise.resolve(NOTHING) };
  const links = new LinkCount();
  const sizes = new Map<string, { size: number; names: number }>();
  const seen = (e: TreeEntry) => !e.foreign && e.utf8 && links.has(e.st);
  try {
    await walkTree(root, limit, async (e) => {
      if (e.foreign || !e.utf8 || !links.note(e.st)) return;
      const k = inodeKey(e.st);
      sizes.set(k, { size: Number(e.st.size), names: (sizes.get(k)?.names ?? 0) + 1 });
    });
  } catch (err) {
    if (err instanceof TreeTooLarge) return back;
    throw err;
  }
  const inside = links.allInside();
  if (links.size === inside.size) return back;
  const out = [...sizes].filter(([k]) => !inside.has(k));
  const files = out.reduce((n, [, v]) => n + v.names, 0);
  const bytes = out.reduce((n, [, v]) => n + v.size * v.names, 0);
  const copying = policy.mode === "copy";
  if (copying && bytes > policy.maxBytes) throw new SharedCopyRefused(root, files, bytes, "too_large", mib(policy.maxBytes));
  const note = (rel: string) => {
    if (kept.sample.length < 5) kept.sample.push(rel);
  };
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
      const done = one.then(() => privateCopy(e.at, dir, e.st));
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
 * owner.ts's). A directory the user may not write (a read-only folder of a package) is made writable for the
 * rename and put back.
 */
async function privateCopy(at: Buffer, dir: string, st: BigIntStats): Promise<void> {
  const tmp = Buffer.from(`${dir}/.hkb-private-${randomBytes(6).toString("hex")}`);
  const dirMode = (await stat(dir)).mode & 0o7777;
  const opened = (dirMode & 0o300) !== 0o300;
  if (opened) await chmod(dir, dirMode | 0o300);
  try {
    await copyFile(at, tmp, constants.COPYFILE_EXCL | constants.COPYFILE_FICLONE);
    await chmod(tmp, Number(st.mode) & 0o7777);
    await utimes(tmp, Number(st.atimeMs) / 1000, Number(st.mtimeMs) / 1000);
    await rename(tmp, at);
  } finally {
    await rm(tmp, { force: true });
    if (opened) await chmod(dir, dirMode);
  }
}

const ownerOf = (st: BigIntStats) => ({ uid: Number(st.uid), gid: Number(st.gid) });
const NOTHING = { restored: 0, acls: 0, leftAgent: [], failed: [] };
