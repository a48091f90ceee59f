// What the gate asks of a git work tree (is it dirty before the agent starts, which files changed by
// the end) without ever running the repository's own config: that config may lie in the workspace (a
// `dir:` workspace that is a whole repository, a `.git` the agent rewrote to point at `.evil`), where a
// clean/smudge filter, core.fsmonitor, diff.external or a pager would run as the bridge's user.
// Before the agent starts the bridge finds the repository (not following a `.git` the agent could
// plant later: the view is fixed then), and builds a private shadow git dir in the state dir: its own
// config, HEAD pinned to the start commit, a copy of the index, the repository's objects borrowed
// through `objects/info/alternates`. Every later status/diff runs on that shadow with the work tree
// given explicitly — what the repository's config says is never read.
import { lstatSync, mkdirSync, writeFileSync } from "node:fs";
import { dirname, isAbsolute, join, resolve } from "node:path";
import { readBytesInside, readTextInside } from "../agent-files/files.js";
import type { GitRunner } from "./runner.js";

export interface GitView {
  /** The repository's top (the work tree git compares; may be above the workspace). */
  workTree: string;
  /** The private shadow git dir (bridge-owned). */
  shadow: string;
  /** The commit the run started from (null: no commit yet). */
  head: string | null;
}

const isDirNoLink = (p: string) => {
  try {
    const st = lstatSync(p);
    return st.isDirectory();
  } catch {
    return false;
  }
};

/** The `.git` entry (directory or file) in `ws` or above it, without following links. */
function findDotGit(ws: string): { top: string; dotGit: string } | null {
  for (let d = resolve(ws); ; d = dirname(d)) {
    const p = join(d, ".git");
    try {
      const st = lstatSync(p);
      if (st.isDirectory() || st.isFile()) return { top: d, dotGit: p };
      return null; // a link (or anything else) named .git is not followed
    } catch {
      // not here
    }
    if (dirname(d) === d) return null;
  }
}

/** The repository's git dir (for a `.git` file: the `gitdir:` it names) and its common dir. */
async function gitDirs(top: string, dotGit: string): Promise<{ gitDir: string; common: string } | null> {
  let gitDir = dotGit;
  if (!isDirNoLink(dotGit)) {
    const text = await readTextInside(top, ".git", { maxBytes: 4096 }).catch(() => null);
    const m = text === null ? null : /^gitdir: (.+)$/m.exec(text);
    if (!m?.[1]) return null;
    gitDir = isAbsolute(m[1].trim()) ? m[1].trim() : resolve(top, m[1].trim());
  }
  if (!isDirNoLink(gitDir)) return null;
  const commonText = await readTextInside(gitDir, "commondir", { maxBytes: 4096 }).catch(() => null);
  const common = commonText?.trim() ? resolve(gitDir, commonText.trim()) : gitDir;
  return isDirNoLink(join(common, "objects")) ? { gitDir, common } : null;
}

/**
 * The view of the work tree `ws` is in, or null when it is not in one. `dir` is a fresh private
 * directory for the shadow. The repository is read with the hardened runner only (rev-parse executes
 * nothing of the repository's config).
 */
export async function openGitView(git: GitRunner, ws: string, dir: string, signal?: AbortSignal): Promise<GitView | null> {
  const found = findDotGit(ws);
  if (!found) return null;
  const dirs = await gitDirs(found.top, found.dotGit);
  if (!dirs) return null;
  const real = { gitDir: dirs.gitDir, workTree: found.top, signal };
  const head = await git(["rev-parse", "--verify", "--quiet", "HEAD^{commit}"], real);
  const format = await git(["rev-parse", "--show-object-format"], real);
  mkdirSync(join(dir, "objects", "info"), { recursive: true, mode: 0o700 });
  mkdirSync(join(dir, "refs", "heads"), { recursive: true, mode: 0o700 });
  mkdirSync(join(dir, "info"), { recursive: true, mode: 0o700 });
  const sha = head.ok ? head.out.trim() : null;
  const objectFormat = format.ok && format.out.trim() === "sha256" ? "sha256" : "sha1";
  writeFileSync(join(dir, "HEAD"), sha ? `${sha}\n` : "ref: refs/heads/unborn\n", { mode: 0o600 });
  writeFileSync(
    join(dir, "config"),
    `[core]\n\trepositoryformatversion = ${objectFormat === "sha256" ? 1 : 0}\n\tbare = false\n${objectFormat === "sha256" ? "[extensions]\n\tobjectformat = sha256\n" : ""}`,
    { mode: 0o600 },
  );
  writeFileSync(join(dir, "objects", "info", "alternates"), `${join(dirs.common, "objects")}\n`, { mode: 0o600 });
  // Plain data: what the repository excludes locally stays excluded.
  const exclude = await readBytesInside(dirs.common, join("info", "exclude"), { maxBytes: 1024 * 1024 }).catch(() => Buffer.alloc(0));
  writeFileSync(join(dir, "info", "exclude"), exclude, { mode: 0o600 });
  const view: GitView = { workTree: found.top, shadow: dir, head: sha };
  // The index (stat data makes status fast) is copied as data; one that cannot be read is rebuilt from HEAD.
  const index = await readBytesInside(dirs.gitDir, "index", { maxBytes: 512 * 1024 * 1024 }).catch(() => null);
  if (index) writeFileSync(join(dir, "index"), index, { mode: 0o600 });
  else if (sha) await git(["read-tree", sha], onView(view, signal));
  return view;
}

export function onView(v: GitView, signal?: AbortSignal): { gitDir: string; workTree: string; signal?: AbortSignal | undefined } {
  return { gitDir: v.shadow, workTree: v.workTree, signal };
}

/** Paths of `git status --porcelain` (renames: the new path). */
export function porcelainPaths(out: string): string[] {
  return out
    .split("\n")
    .filter((l) => l.length > 3)
    .map((l) => {
      const p = l.slice(3);
      const arrow = p.indexOf(" -> ");
      return arrow === -1 ? p : p.slice(arrow + 4);
    });
}

/** Files that differ from the start (committed since, staged, modified or untracked). */
export async function viewStatus(git: GitRunner, v: GitView, signal?: AbortSignal): Promise<string[]> {
  const r = await git(["status", "--porcelain", "--untracked-files=all"], onView(v, signal));
  return r.ok ? porcelainPaths(r.out) : [];
}

export async function viewDiffStat(git: GitRunner, v: GitView, signal?: AbortSignal): Promise<string | null> {
  if (!v.head) return null;
  const r = await git(["diff", "--no-ext-diff", "--no-textconv", "--shortstat", v.head], onView(v, signal));
  return r.ok && r.out.trim() ? r.out.trim() : null;
}
