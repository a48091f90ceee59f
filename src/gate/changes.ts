// What the run changed: git work trees by git itself (uncommitted + committed since the start),
// scratch directories by a before/after listing of files (size + mtime).
import { existsSync, readdirSync, statSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { runProcess } from "../process/runner.js";

export type Snapshot = { kind: "git"; head: string | null; dirty: string[] } | { kind: "files"; files: Map<string, string> };

async function git(ws: string, args: string[], env: Record<string, string>): Promise<{ ok: boolean; out: string }> {
  const r = await runProcess({ argv: ["git", "-C", ws, ...args], env, timeoutMs: 60_000 });
  return { ok: r.reason === "exited" && r.exitCode === 0, out: r.stdout };
}

function porcelainPaths(out: string): string[] {
  return out
    .split("\n")
    .filter((l) => l.length > 3)
    .map((l) => {
      const p = l.slice(3);
      const arrow = p.indexOf(" -> ");
      return arrow === -1 ? p : p.slice(arrow + 4);
    });
}

function listFiles(root: string, limit = 20_000): Map<string, string> {
  const out = new Map<string, string>();
  const walk = (dir: string) => {
    let entries: import("node:fs").Dirent[];
    try {
      entries = readdirSync(dir, { withFileTypes: true });
    } catch {
      return;
    }
    for (const e of entries) {
      if (out.size >= limit) return;
      const p = join(dir, e.name);
      if (e.isDirectory()) {
        if (e.name !== ".git" && e.name !== "node_modules") walk(p);
      } else if (e.isFile()) {
        try {
          const s = statSync(p);
          out.set(relative(root, p), `${s.size}:${s.mtimeMs}`);
        } catch {
          // vanished while listing
        }
      }
    }
  };
  walk(root);
  return out;
}

/** A `.git` (directory, or file for a linked worktree) in `ws` or above it: only then is git asked. */
function mayBeGitTree(ws: string, env: Record<string, string>): boolean {
  if (env.GIT_DIR) return true;
  for (let d = ws; ; d = dirname(d)) {
    if (existsSync(join(d, ".git"))) return true;
    if (dirname(d) === d) return false;
  }
}

export async function snapshot(ws: string, env: Record<string, string>): Promise<Snapshot> {
  if (!mayBeGitTree(ws, env)) return { kind: "files", files: listFiles(ws) };
  const inside = await git(ws, ["rev-parse", "--is-inside-work-tree"], env);
  if (inside.ok && inside.out.trim() === "true") {
    const head = await git(ws, ["rev-parse", "HEAD"], env);
    const status = await git(ws, ["status", "--porcelain", "--untracked-files=all"], env);
    return { kind: "git", head: head.ok ? head.out.trim() : null, dirty: porcelainPaths(status.out) };
  }
  return { kind: "files", files: listFiles(ws) };
}

export async function changesSince(ws: string, before: Snapshot, env: Record<string, string>): Promise<{ files: string[]; diffStat: string | null }> {
  if (before.kind === "files") {
    const after = listFiles(ws);
    const files = [...after].filter(([p, sig]) => before.files.get(p) !== sig).map(([p]) => p);
    return { files: files.sort(), diffStat: null };
  }
  const status = await git(ws, ["status", "--porcelain", "--untracked-files=all"], env);
  const files = new Set(porcelainPaths(status.out));
  if (before.head) {
    const committed = await git(ws, ["diff", "--name-only", `${before.head}..HEAD`], env);
    for (const f of committed.out.split("\n").filter(Boolean)) files.add(f);
  }
  const stat = before.head ? await git(ws, ["diff", "--shortstat", before.head], env) : { ok: false, out: "" };
  return { files: [...files].sort(), diffStat: stat.ok && stat.out.trim() ? stat.out.trim() : null };
}
