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
