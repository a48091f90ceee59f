// The one containment rule: a path is inside a root when its real path (every symbolic link resolved,
// as far as the path exists; the missing tail joined to the real parent) is the root's real path or
// below it. Board paths of another host cannot be resolved here: `lexicallyUnder` compares those as
// text (normalised, no `..` left), and the local view of a board path is then checked with `isInside`.
import { realpathSync } from "node:fs";
import { dirname, isAbsolute, normalize, relative, resolve, sep } from "node:path";

/** The real path of `p` as far as it exists, the rest appended (never throws). */
export function realPathOf(p: string): string {
  const abs = resolve(p);
  try {
    return realpathSync(abs);
  } catch {
    const parent = dirname(abs);
    return parent === abs ? abs : resolve(realPathOf(parent), relative(parent, abs));
  }
}

/** True when `p` (links resolved) is `root` (links resolved) or below it. */
export function isInside(root: string, p: string): boolean {
  return underReal(realPathOf(root), realPathOf(p));
}

/** Both arguments already real paths. */
export function underReal(realRoot: string, realPath: string): boolean {
  const r = realRoot.length > 1 ? realRoot.replace(/\/+$/, "") : realRoot;
  return realPath === r || realPath.startsWith(r === sep ? r : r + sep);
}

/** Text comparison for paths of another host: `p` is `root` or below it (both absolute, normalised). */
export function lexicallyUnder(root: string, p: string): boolean {
  if (!isAbsolute(root) || !isAbsolute(p)) return false;
  const r = normalize(root).replace(/\/+$/, "") || "/";
  const n = normalize(p);
  return n === r || n.startsWith(r === "/" ? "/" : r + sep);
}

/** The real path of `p` under `root`, or null when it leads outside (relative paths are taken from `root`). */
export function containedPath(root: string, p: string): string | null {
  const real = realPathOf(resolve(realPathOf(root), p));
  return underReal(realPathOf(root), real) ? real : null;
}
