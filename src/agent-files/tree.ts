// Walking a workspace without leaving it: directory entries are taken as they are (a link is never
// entered or read through), every directory is checked to be inside the root right before it is
// listed, and only regular files are reported. Used by the local loop's list_dir and search_text and
// by the scratch workspace's before/after listing.
import { type Dirent, type Stats, lstatSync, readdirSync, realpathSync } from "node:fs";
import { join, relative } from "node:path";
import { containedPath, realPathOf, underReal } from "./contain.js";
import { SandboxRefused, kindOf } from "./files.js";

/** The entries of a directory inside the root ("name/" for directories, "name@" for links). */
export function listDirInside(root: string, p: string): string[] {
  const dir = containedPath(root, p || ".");
  if (dir === null) throw new SandboxRefused(p, "is outside the workspace");
  const st = lstatSync(dir);
  if (!st.isDirectory()) throw new SandboxRefused(p, `is not a directory (a ${kindOf(st)})`);
  return readdirSync(dir, { withFileTypes: true })
    .map((e) => `${e.name}${e.isDirectory() ? "/" : e.isSymbolicLink() ? "@" : ""}`)
    .sort();
}

export interface WalkOptions {
  /** Names of directories never entered. */
  skip?: readonly string[];
  /** Stop after this many files. */
  limit?: number;
}

/** Regular files under the root (relative paths, lstat), never through a link. */
export function walkFiles(root: string, visit: (rel: string, st: Stats) => boolean | undefined, o: WalkOptions = {}): void {
  const realRoot = realPathOf(root);
  const skip = new Set(o.skip ?? []);
  const limit = o.limit ?? 20_000;
  let n = 0;
  const walk = (dir: string): boolean => {
    let real: string;
    try {
      real = realpathSync(dir);
    } catch {
      return true;
    }
    // A directory swapped for a link since it was seen is not listed.
    if (!underReal(realRoot, real)) return true;
    let entries: Dirent[];
    try {
      entries = readdirSync(real, { withFileTypes: true });
    } catch {
      return true;
    }
    for (const e of entries) {
      if (n >= limit) return false;
      const p = join(real, e.name);
      if (e.isDirectory()) {
        if (!skip.has(e.name) && !walk(p)) return false;
      } else if (e.isFile()) {
        let st: Stats;
        try {
          st = lstatSync(p);
        } catch {
          continue; // vanished while listing
        }
        if (!st.isFile()) continue;
        n += 1;
        if (visit(relative(realRoot, p), st) === false) return false;
      }
    }
    return true;
  };
  walk(realRoot);
}
