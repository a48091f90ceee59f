// doctor's workspace checks: for each board, which mode `auto` would pick and why (from the workspace
// path a claim there would print), that pathMap targets exist, that git is there when a repository is
// configured, and that each configured remote answers (`git ls-remote`).
import { existsSync } from "node:fs";
import { join } from "node:path";
import type { Board } from "../board/port.js";
import type { Config } from "../config/schema.js";
import { describeError } from "../errors/index.js";
import { redactUrl } from "../result/redact.js";
import type { GitRunner } from "../git/runner.js";
import { chooseMode } from "../workspace/resolve.js";
import { workspaceSettings } from "../daemon/seat-settings.js";
import type { Check } from "./check.js";

/**
 * Whether a task's `dir:` workspace can run here (workspace.allowedRoots: `init` writes none) and what the seat
 * does with a workspace's files that have a name outside it too (hard links): root keeps them read-only to the
 * agent, a plain-user bridge copies them first (agent-files/unshare.ts) or, with `keep`, leaves them writable.
 * Never a failure: a seat may work only Hermes's own scratch workspaces.
 */
export function dirTasksCheck(c: Config, uid: number | undefined = process.getuid?.()): Check {
  const roots = c.workspace.allowedRoots;
  if (roots.length === 0)
    return {
      name: "dir: tasks",
      ok: true,
      detail: "none allowed: workspace.allowedRoots is empty, so a task's --workspace dir:/worktree: is blocked (add the folder its paths lie below)",
      fix: "",
    };
  const iso = c.agent.isolation;
  const links = "files hard-linked outside a workspace (a local clone's objects, a pnpm store's)";
  const shared =
    uid === 0
      ? "kept read-only to the agent (a bridge run as root)"
      : iso.sharedFiles === "keep"
        ? "left linked — the agent can rewrite them at every name (agent.isolation.sharedFiles: keep)"
        : `private copies before the agent starts, up to ${iso.sharedCopyMaxMiB} MiB a run (agent.isolation.sharedFiles: copy, sharedCopyMaxMiB)`;
  return { name: "dir: tasks", ok: true, detail: `below ${roots.join(", ")}; ${links}: ${shared}`, fix: "" };
}

/** Where a scratch workspace of `board` is on the board host (Hermes's layout under its HERMES_HOME). */
function sampleWorkspace(board: Board, home: string): string {
  return board.slug === "default" ? join(home, "kanban", "workspaces", "t_sample") : join(home, "kanban", "boards", board.slug, "workspaces", "t_sample");
}

export async function workspaceChecks(c: Config, env: NodeJS.ProcessEnv, boards: Board[], git: GitRunner): Promise<Check[]> {
  const s = workspaceSettings(c, env);
  const checks: Check[] = [];
  const home = s.hermesHomes[0] ?? "~/.hermes";
  for (const b of boards) {
    // The board's Hermes home on this host says where its workspaces are (they exist only once claimed).
    const sample = sampleWorkspace(b, home);
    const { mode, why } = chooseMode(s, b.slug, { projectId: null }, existsSync(home) ? home : sample);
    checks.push({ name: `workspace ${b.slug}`, ok: true, detail: `${mode}: ${why}`, fix: "" });
  }
  checks.push(dirTasksCheck(c));
  for (const [from, to] of Object.entries(s.pathMap)) {
    checks.push(
      existsSync(to)
        ? { name: "pathMap", ok: true, detail: `"${from}" → "${to}" (target exists)`, fix: "" }
        : {
            name: "pathMap",
            ok: false,
            detail: `"${from}" → "${to}": the target does not exist on this host`,
            fix: `mount the board's files at ${to} or correct workspace.pathMap["${from}"]`,
          },
    );
  }
  const repos = Object.entries(s.repos);
  if (repos.length > 0) {
    const v = await git(["--version"]);
    if (!v.ok) checks.push({ name: "git", ok: false, detail: v.err.trim() || "git not found", fix: "install git (checkout mode needs it)" });
    else {
      checks.push({ name: "git", ok: true, detail: v.out.trim(), fix: "" });
      for (const [key, url] of repos) {
        const r = await git(["ls-remote", "--heads", url]).catch((err: unknown) => ({ ok: false, out: "", err: describeError(err) }));
        checks.push(
          r.ok
            ? { name: `repo ${key}`, ok: true, detail: `${redactUrl(url)} answers`, fix: "" }
            : {
                name: `repo ${key}`,
                ok: false,
                detail: `${redactUrl(url)}: ${r.err.trim().split("\n").pop() ?? "no answer"}`,
                fix: `check workspace.repos["${key}"] and this host's git credentials`,
              },
        );
      }
    }
  }
  return checks;
}
