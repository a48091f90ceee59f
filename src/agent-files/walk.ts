// Walking a tree the agent may have shaped, as root, without ever being led out of it: each directory is
// opened (O_NOFOLLOW) and checked to be what lstat saw before it is listed, and every entry below it is
// reached through that open descriptor (/proc/self/fd/N/<name>), so a directory swapped for a link between
// the look and the listing leads nowhere; names are taken as bytes (a name that is not UTF-8 is an entry
// like any other); another filesystem mounted inside — or a bind mount of the tree's own, whose device is
// the tree's and which only the mount table tells — is reported, never entered. Entries are identified
// by inode (device, number and birth time), never by path: agent-files/owner.ts hands a tree over and back
// with it.
import { type BigIntStats, constants } from "node:fs";
import { type FileHandle, lstat, open, readFile, readdir, realpath, stat } from "node:fs/promises";
import { PermanentError } from "../errors/index.js";

/** More entries than a workspace should have: the walk stops, the run does not start. */
export class TreeTooLarge extends PermanentError {
  constructor(
    readonly root: string,
    readonly limit: number,
  ) {
    super("tree_too_large", `${root} has more than ${limit} entries: too many to hand to the agent's user`);
  }
}

export interface TreeEntry {
  /** Where the entry is now, through its directory's open descriptor (valid during the visit only). */
  at: Buffer;
  /** Its name inside the tree, for people ("." for the root; a name that is not UTF-8 shows replacement characters). */
  rel: string;
  /** Its name's last part, as bytes. */
  name: Buffer;
  /** Is `name` valid UTF-8 (a string path reaches it)? */
  utf8: boolean;
  st: BigIntStats;
  /** On another filesystem than the tree's root, or a bind mount's root (a mount inside the tree): never entered. */
  foreign: boolean;
  /** The descriptor path of its directory ("/proc/self/fd/N"), or null for the root. */
  dir: string | null;
}

/** An inode's identity: device, number and birth time (a number the filesystem gives again is another inode). */
export const inodeKey = (st: BigIntStats): string => `${st.dev}:${st.ino}:${st.birthtimeNs}`;

const OPEN_DIR = constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW;
const SLASH = Buffer.from("/");
const BATCH = 32;

const isUtf8 = (b: Buffer) => Buffer.from(b.toString("utf8"), "utf8").equals(b);

/**
 * The roots (inode keys) of what is mounted below `root`: a bind mount of the tree's own filesystem (a
 * folder or a file of elsewhere, an operator's or a container's volume) has the tree's device, so only its
 * place in the mount table tells it. The agent makes no mount on the host; the table is read at each walk.
 */
async function mountsBelow(root: string): Promise<Set<string>> {
  const out = new Set<string>();
  const real = await realpath(root).catch(() => null);
  const table = await readFile("/proc/self/mountinfo", "utf8").catch(() => "");
  if (!real) return out;
  const under = real === "/" ? "/" : `${real}/`;
  for (const line of table.split("\n")) {
    // The mount point is the fifth field, its space, tab, newline and backslash written as octal escapes.
    const at = line.split(" ")[4]?.replace(/\\([0-7]{3})/g, (_, o: string) => String.fromCharCode(Number.parseInt(o, 8)));
    if (!at?.startsWith(under) || at === real) continue;
    const st = await stat(at, { bigint: true }).catch(() => null);
    if (st) out.add(inodeKey(st));
  }
  return out;
}

/** Entries a hand-over or a shared-file look walks at most in one workspace (TreeTooLarge past it). */
export const WALK_LIMIT = 500_000;

/** Directories deeper than this are not entered (each level holds a descriptor): `tooDeep` names them. */
export const MAX_DEPTH = 256;

/**
 * Visits every entry of `root` (the root first, then each directory's entries before its subdirectories'),
 * never through a link and never onto another filesystem. `limit`: entries at most (TreeTooLarge);
 * `tooDeep`: told of each directory MAX_DEPTH levels down, which is not entered.
 */
export async function walkTree(
  root: string,
  limit: number,
  visit: (e: TreeEntry) => Promise<void>,
  tooDeep: (rel: string) => void = () => undefined,
): Promise<void> {
  const top = await lstat(root, { bigint: true });
  const mounts = await mountsBelow(root);
  const foreign = (st: BigIntStats) => st.dev !== top.dev || mounts.has(inodeKey(st));
  let n = 1;
  await visit({ at: Buffer.from(root), rel: ".", name: Buffer.from("."), utf8: true, st: top, foreign: false, dir: null });
  if (!top.isDirectory()) return;
  const list = async (path: Buffer, rel: string, st: BigIntStats, depth: number): Promise<void> => {
    if (depth > MAX_DEPTH) return tooDeep(rel);
    let h: FileHandle;
    try {
      h = await open(path, OPEN_DIR);
    } catch {
      return; // gone meanwhile, or no longer a directory
    }
    try {
      const seen = await h.stat({ bigint: true });
      if (seen.dev !== st.dev || seen.ino !== st.ino) return; // swapped meanwhile: not what was looked at
      const dir = `/proc/self/fd/${h.fd}`;
      const names = await readdir(dir, { encoding: "buffer" });
      const subdirs: TreeEntry[] = [];
      // A directory's entries looked at and visited a batch at a time (the thread pool works them side by side).
      for (let i = 0; i < names.length; i += BATCH) {
        const batch = await Promise.all(
          names.slice(i, i + BATCH).map(async (name): Promise<TreeEntry | null> => {
            const at = Buffer.concat([Buffer.from(dir), SLASH, name]);
            const cst = await lstat(at, { bigint: true }).catch(() => null); // null: gone meanwhile
            if (!cst) return null;
            const childRel = rel === "." ? name.toString("utf8") : `${rel}/${name.toString("utf8")}`;
            return { at, rel: childRel, name, utf8: isUtf8(name), st: cst, foreign: foreign(cst), dir };
          }),
        );
        const found = batch.filter((e): e is TreeEntry => e !== null);
        n += found.length;
        if (n > limit) throw new TreeTooLarge(root, limit);
        await Promise.all(found.map(visit));
        for (const e of found) if (e.st.isDirectory() && !e.foreign) subdirs.push(e);
      }
      for (const e of subdirs) await list(e.at, e.rel, e.st, depth + 1);
    } finally {
      await h.close();
    }
  };
  await list(Buffer.from(root), ".", top, 0);
}

/** Counts the names each inode with more than one link has in a walk: one whose link count is higher has a name outside it. */
export class LinkCount {
  private readonly seen = new Map<string, { nlink: bigint; names: bigint }>();

  /** Notes the entry; true when it has more than one link (its verdict waits for the walk's end). */
  note(st: BigIntStats): boolean {
    if (st.isDirectory() || st.nlink <= 1n) return false;
    const k = inodeKey(st);
    const was = this.seen.get(k);
    this.seen.set(k, { nlink: st.nlink, names: (was?.names ?? 0n) + 1n });
    return true;
  }

  get size(): number {
    return this.seen.size;
  }

  /** Was this inode noted? */
  has(st: BigIntStats): boolean {
    return this.seen.has(inodeKey(st));
  }

  /** The inodes noted whose every name was in the walk (internal links, `cp -al` inside the tree). */
  allInside(): Set<string> {
    return new Set([...this.seen].filter(([, v]) => v.names >= v.nlink).map(([k]) => k));
  }
}
