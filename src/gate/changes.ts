// What the run changed: a git work tree through the bridge's private view of it (git/view.ts: the
// repository's own config never runs), everything else by a before/after listing of regular files
// (size + mtime; links are not followed: agent-files/tree.ts).
import { rmSync } from "node:fs";
import { type GitView, openGitView, viewDiffStat, viewStatus } from "../git/view.js";
import type { GitRunner } from "../git/runner.js";
import { walkFiles } from "../agent-files/tree.js";

export type Snapshot = { kind: "git"; view: GitView; dirty: string[] } | { kind: "files"; files: Map<string, string> };

function listFiles(root: string): Map<string, string> {
  const out = new Map<string, string>();
  walkFiles(
    root,
    (rel, st) => {
      out.set(rel, `${st.size}:${st.mtimeMs}`);
      return true;
    },
    { skip: [".git", "node_modules"] },
  );
  return out;
}

/** The state before the agent starts; `viewDir` is a fresh private directory for the git view. */
export async function snapshot(ws: string, git: GitRunner, viewDir: string, signal?: AbortSignal): Promise<Snapshot> {
  const view = await openGitView(git, ws, viewDir, signal).catch(() => null);
  if (view) return { kind: "git", view, dirty: await viewStatus(git, view, signal) };
  return { kind: "files", files: listFiles(ws) };
}

export async function changesSince(ws: string, before: Snapshot, git: GitRunner, signal?: AbortSignal): Promise<{ files: string[]; diffStat: string | null }> {
  if (before.kind === "files") {
    const after = listFiles(ws);
    const files = [...after].filter(([p, sig]) => before.files.get(p) !== sig).map(([p]) => p);
    return { files: files.sort(), diffStat: null };
  }
  const files = await viewStatus(git, before.view, signal);
  return { files: [...new Set(files)].sort(), diffStat: await viewDiffStat(git, before.view, signal) };
}

/** Removes the snapshot's private git view. */
export function dropSnapshot(s: Snapshot | null): void {
  // sync-io: the run's private git view (never shown to the agent)
  if (s?.kind === "git") rmSync(s.view.shadow, { recursive: true, force: true });
}
