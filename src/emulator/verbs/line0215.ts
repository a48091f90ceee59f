// HERMES_EMULATOR_COMPAT=0.21.5: what Hermes 0.21.4 and 0.21.5 (what users install since 2026-09-21)
// add to 0.21.3 (the 0.21 mode, whose recordings it keeps), as their public source has it —
// NousResearch/hermes-agent at commit 00030df13ffeaadcadf9d79935bac522e5552c88:
// - hermes_cli/kanban.py `_goal_gate_error` / `_goal_mode_handoff_rejection`: a `--goal` task's complete
//   AND review hand-off go past the goal judge (#100954); a verdict other than done refuses the close
//   (`kanban: goal <completion|review handoff> of <id> rejected by judge: <reason>. <hint>`, or
//   `… rejected: judge ruled the goal unachievable — <reason>. <hint>`), exit 1, nothing written. The
//   judge is an LLM: here it answers from `$HERMES_HOME/.emulator-goal-judge` (JSON `{"verdict":
//   "continue"|"blocked"|"done", "reason": "…"}`); no file = no judge configured = the close goes on.
// - kanban.py `_cmd_complete`: a complete refused for open parents names them (`cannot complete <id>:
//   unsatisfied parent dependencies: <id> (<status>), …; complete the parents first, or `hermes kanban
//   unlink <parent> <id>`.`); `_cmd_link` links a parent to a task after it was claimed.
// - kanban.py `_cmd_authorize_existing_pr` + hermes_cli/kanban_pr_authorization.py: the operator's
//   single-use grant past the `active_pr` guard (an `existing_pr_authorized` event with the task's highest
//   run id as its floor). The PR is read from GitHub with `gh`: here from `$HERMES_HOME/.emulator-github-
//   prs.json` (`{"<PR URL>": <the pulls API object>}`); a PR not in it fails closed as a failed `gh` does.
// - hermes_cli/kanban_db_dispatch.py `check_respawn_guard` / `_dispatch_lane_task`: `dispatch` holds a
//   ready task whose recent comment links a PR (`respawn_guarded` event) — for profile lanes only: the
//   profile check comes first, so a lane that is no profile (a bridge's) is never guarded by the board.
// - kanban.py `_cmd_diagnostics`: `diagnostics --json` ends with `{"task_id": null, "dispatch_profiles":
//   …, "diagnostics": []}` (what this home may claim: kanban_db_dispatch.dispatch_profile_allowlist_summary,
//   from `kanban.dispatch_profiles` in `$HERMES_HOME/config.yaml`). The emulator computes no diagnostics.
import { existsSync, readFileSync } from "node:fs";
import { userInfo } from "node:os";
import { join } from "node:path";
import { createRequire } from "node:module";
import { EmuExit } from "../io.js";
import { type TaskRow, addEvent, getTask, profileAuthor } from "../model.js";
import type { Verb, VerbCtx } from "./types.js";
import { prog, str, tx } from "./types.js";
import { withOptions } from "./named-claims.js";

/** 0.21.4/0.21.5, and 0.21.6 on top of them (verbs/line0216.ts). */
export function v0215(env: NodeJS.ProcessEnv): boolean {
  return env.HERMES_EMULATOR_COMPAT === "0.21.5" || env.HERMES_EMULATOR_COMPAT === "0.21.6";
}

const HINTS = {
  completion: {
    blocked: "Re-scope with kanban edit, or record the block with kanban block instead of completing.",
    continue: "Provide evidence matching the task's acceptance criteria.",
  },
  "review handoff": {
    blocked: "Record the block with kanban block instead of requesting review.",
    continue: "Provide acceptance evidence matching the task.",
  },
};

/** `_goal_gate_error`: the refusal line, or null to let the close go on. */
export function goalGate(ctx: VerbCtx, id: string, handoff: "completion" | "review handoff"): string | null {
  if (!v0215(ctx.env)) return null;
  const t = getTask(ctx.db, id);
  const file = join(ctx.loc.root, ".emulator-goal-judge");
  if (!t || !t.goal_mode || !existsSync(file)) return null;
  const judged = JSON.parse(readFileSync(file, "utf8")) as { verdict?: string; reason?: string };
  const reason = judged.reason ?? "";
  if (judged.verdict === "blocked")
    return `kanban: goal ${handoff} of ${id} rejected: judge ruled the goal unachievable — ${reason}. ${HINTS[handoff].blocked}`;
  if (judged.verdict && judged.verdict !== "done") return `kanban: goal ${handoff} of ${id} rejected by judge: ${reason}. ${HINTS[handoff].continue}`;
  return null;
}

/** `_cmd_complete` after a refused `complete_task`: the open parents by id and status, or null. */
export function parentsRefusal(ctx: VerbCtx, id: string): string | null {
  if (!v0215(ctx.env)) return null;
  const open = ctx.db
    .prepare(
      "SELECT p.id, p.status FROM task_links l JOIN tasks p ON p.id = l.parent_id WHERE l.child_id = ? AND p.status NOT IN ('done', 'archived') ORDER BY l.rowid",
    )
    .all(id) as { id: string; status: string }[];
  if (open.length === 0) return null;
  const detail = open.map((p) => `${p.id} (${p.status})`).join(", ");
  return `cannot complete ${id}: unsatisfied parent dependencies: ${detail}; complete the parents first, or \`hermes kanban unlink <parent> ${id}\`.`;
}

/** `_cmd_link`: parent → child; a ready child waits in todo while the parent is open (the claim re-checks it). */
const link: Verb = {
  spec: {
    prog: prog("link"),
    options: [],
    positionals: [
      { dest: "parent_id", nargs: 1 },
      { dest: "child_id", nargs: 1 },
    ],
  },
  run(ctx, v) {
    const parent = str(v, "parent_id") ?? "";
    const child = str(v, "child_id") ?? "";
    const gated = tx(ctx, () => {
      const p = getTask(ctx.db, parent);
      const c = getTask(ctx.db, child);
      // link_tasks raises for an unknown id (its text is not in the source read: the emulator's own).
      if (!p || !c) throw new EmuExit(1, "", `kanban: unknown task ${!p ? parent : child}\n`);
      ctx.db.prepare("INSERT OR IGNORE INTO task_links (parent_id, child_id) VALUES (?, ?)").run(parent, child);
      const waits = c.status === "ready" && !["done", "archived"].includes(p.status);
      if (waits) ctx.db.prepare("UPDATE tasks SET status = 'todo' WHERE id = ?").run(child);
      return waits;
    });
    ctx.out(`Linked ${parent} -> ${child}\n`);
    if (gated)
      ctx.out(
        `Note: ${child} was ready and is now todo — parent ${parent} is not done yet. The ready -> running claim re-checks parents, so the child only runs after the parent completes; use \`hermes kanban unlink ${parent} ${child}\` to run it now.\n`,
      );
  },
};

const PR_URL = /^https:\/\/github\.com\/([A-Za-z0-9-]+)\/([A-Za-z0-9_.-]+)\/pull\/([1-9][0-9]*)$/;
const REPO = /^[A-Za-z0-9-]+\/[A-Za-z0-9_.-]+$/;
const BRANCH = /^(?!-)(?!.*\.\.)(?!.*\/\/)[A-Za-z0-9._/-]+(?<![/.])(?<!\.lock)$/;
/** `_GUARD_PR_URL` / `_RESPAWN_GUARD_PR_URL_RE` */
const GUARD_PR_URL = /https?:\/\/github\.com\/[^/\s]+\/[^/\s]+\/pull\/\d+/gi;

const refuse = (why: string): never => {
  throw new EmuExit(1, "", `refused: ${why}\n`);
};
const py = (s: string) => `'${s.replace(/\\/g, "\\\\").replace(/'/g, "\\'")}'`;

/** `_check_task`: the task exists, is open, its branch matches, and its body or a comment names the PR. */
function checkTask(ctx: VerbCtx, id: string, pr: string, branch: string): void {
  const t = getTask(ctx.db, id);
  if (!t) refuse(`unknown task ${py(id)}`);
  const task = t as TaskRow;
  if (["done", "archived"].includes(task.status)) refuse(`task ${id} is ${task.status}`);
  if (task.branch_name && task.branch_name !== branch) refuse(`task branch ${py(task.branch_name)} does not match PR branch ${py(branch)}`);
  const bodies = [task.body ?? "", ...(ctx.db.prepare("SELECT body FROM task_comments WHERE task_id = ?").all(id) as { body: string }[]).map((c) => c.body)];
  if (!bodies.some((b) => [...b.matchAll(GUARD_PR_URL)].some((m) => m[0] === pr))) refuse(`task ${id} never referenced ${pr}; not its existing PR`);
}

/** `_check_pr` on what GitHub (here: the emulator's PR file) says of the PR. */
function checkPr(ctx: VerbCtx, url: string, repo: string, branch: string): void {
  const file = join(ctx.loc.root, ".emulator-github-prs.json");
  const prs = existsSync(file) ? (JSON.parse(readFileSync(file, "utf8")) as Record<string, Record<string, unknown>>) : {};
  const pr = prs[url];
  if (!pr) refuse("could not verify PR state on GitHub (CalledProcessError)");
  const head = (pr?.head ?? {}) as { ref?: string; repo?: { full_name?: string } };
  const base = ((pr?.base ?? {}) as { repo?: { full_name?: string } }).repo?.full_name ?? "";
  if (pr?.state !== "open" || pr?.merged) refuse(`PR must be open; GitHub reports state=${py(String(pr?.state))}, merged=${pr?.merged ? "True" : "False"}`);
  if (base.toLowerCase() !== repo.toLowerCase()) refuse(`PR base repository ${py(base)} is not ${py(repo)}`);
  const headRepo = head.repo?.full_name ?? "";
  if (headRepo.toLowerCase() !== repo.toLowerCase()) refuse(`PR head comes from ${py(headRepo)}, not ${py(repo)}`);
  if (head.ref !== branch) refuse(`PR head branch ${py(String(head.ref))} is not ${py(branch)}`);
}

const authorizeExistingPr: Verb = {
  spec: {
    prog: prog("authorize-existing-pr"),
    options: [
      { flag: "--pr", dest: "pr", kind: "value", help: "Exact GitHub PR URL the card already opened" },
      { flag: "--repo", dest: "repo", kind: "value", help: "OWNER/REPO of the PR" },
      { flag: "--branch", dest: "branch", kind: "value", help: "The PR's head branch" },
      { flag: "--reason", dest: "reason", kind: "value", help: "Why this card may amend the PR (audit trail)" },
    ],
    positionals: [{ dest: "task_id", nargs: 1 }],
  },
  run(ctx, v) {
    // Operator-only: a worker must not lift the duplicate-PR guard for its own card.
    if (ctx.env.HERMES_KANBAN_TASK) throw new EmuExit(1, "", "refused: authorize-existing-pr is operator-only (running inside a kanban worker)\n");
    const id = str(v, "task_id") ?? "";
    const [pr, repo, branch, reason] = [str(v, "pr") ?? "", str(v, "repo") ?? "", str(v, "branch") ?? "", str(v, "reason") ?? ""];
    // _check_inputs, in its order.
    if (!id.trim() || id !== id.trim()) refuse("an exact task id is required");
    const m = PR_URL.exec(pr);
    if (!m) refuse(`malformed PR URL ${py(pr)}: expected https://github.com/OWNER/REPO/pull/NUMBER`);
    if (!REPO.test(repo)) refuse(`malformed repository ${py(repo)}: expected OWNER/REPO`);
    if (repo !== `${m?.[1]}/${m?.[2]}`) refuse(`repository ${py(repo)} does not match PR URL repository ${py(`${m?.[1]}/${m?.[2]}`)}`);
    if (!BRANCH.test(branch)) refuse(`malformed branch ${py(branch)}`);
    if (!reason.trim()) refuse("a reason is required");
    checkTask(ctx, id, pr, branch);
    checkPr(ctx, pr, repo, branch);
    const operator = `${userInfo().username} (profile ${profileAuthor(ctx.env)})`;
    tx(ctx, () => {
      checkTask(ctx, id, pr, branch);
      const floor = (ctx.db.prepare("SELECT COALESCE(MAX(id), 0) AS n FROM task_runs WHERE task_id = ?").get(id) as { n: number }).n;
      const payload = { operator, task_id: id, pr_url: pr, repo, branch, reason: reason.trim(), authorized_at: ctx.now, run_id_floor: floor, pr_state: "open" };
      addEvent(ctx.db, id, "existing_pr_authorized", payload, ctx.now);
    });
    ctx.out(`Authorized ${id} to amend ${pr} (${repo}@${branch}); expires on its next claimed run\n`);
  },
};

/** `check_respawn_guard`'s `active_pr` (ready lane): a PR URL in a comment of the last 24 h, no hand-off after it, no live grant. */
export function activePrGuarded(ctx: VerbCtx, id: string): boolean {
  if (!v0215(ctx.env)) return false;
  const cutoff = ctx.now - 86_400;
  const comments = ctx.db
    .prepare("SELECT body, created_at FROM task_comments WHERE task_id = ? AND created_at >= ? ORDER BY created_at DESC")
    .all(id, cutoff) as {
    body: string;
    created_at: number;
  }[];
  const newest = comments.find((c) => [...c.body.matchAll(GUARD_PR_URL)].length > 0);
  if (!newest) return false;
  const handoffs = ctx.db
    .prepare("SELECT kind, payload FROM task_events WHERE task_id = ? AND created_at > ? AND kind IN ('assigned', 'changes_requested', 'review_reopened')")
    .all(id, newest.created_at) as { kind: string; payload: string | null }[];
  const isHandoff = (e: { kind: string; payload: string | null }) => {
    if (e.kind !== "assigned") return true;
    const p = (e.payload ? JSON.parse(e.payload) : null) as Record<string, unknown> | null;
    return !!p && p.source !== "kanban.default_assignee" && typeof p.assignee === "string" && p.assignee !== "" && "from" in p && p.from !== p.assignee;
  };
  if (handoffs.some(isHandoff)) return false;
  const grantRow = ctx.db.prepare("SELECT payload FROM task_events WHERE task_id = ? AND kind = 'existing_pr_authorized' ORDER BY id DESC LIMIT 1").get(id) as
    | { payload: string }
    | undefined;
  const grant = grantRow ? (JSON.parse(grantRow.payload) as { task_id?: string; run_id_floor?: number; pr_url?: string }) : null;
  if (grant && grant.task_id === id && Number.isInteger(grant.run_id_floor)) {
    const later = ctx.db.prepare("SELECT 1 FROM task_runs WHERE task_id = ? AND id > ? LIMIT 1").get(id, grant.run_id_floor);
    const urls = new Set(comments.flatMap((c) => [...c.body.matchAll(GUARD_PR_URL)].map((x) => x[0])));
    if (!later && urls.size === 1 && urls.has(grant.pr_url ?? "")) return false;
  }
  return true;
}

/**
 * `_dispatch_profile_allowlist` (#110995, #113620): this home's `kanban.dispatch_profiles` — null when the
 * key is absent (any existing profile), else the allowed names; present but empty (or unreadable): none.
 */
function allowlist(root: string): string[] | null {
  const file = join(root, "config.yaml");
  // Loaded only here: the emulator needs no package but its (optional) SQLite driver to start.
  const parseYaml = (text: string): unknown => (createRequire(import.meta.url)("yaml") as { parse: (t: string) => unknown }).parse(text);
  let kanban: unknown = {};
  try {
    kanban = existsSync(file) ? ((parseYaml(readFileSync(file, "utf8")) as { kanban?: unknown } | null)?.kanban ?? {}) : {};
  } catch {
    kanban = { dispatch_profiles: null }; // a config that cannot be read claims nothing
  }
  if (!kanban || typeof kanban !== "object" || !("dispatch_profiles" in kanban)) return null;
  const raw = (kanban as { dispatch_profiles: unknown }).dispatch_profiles;
  const names = Array.isArray(raw) ? raw.map(String) : typeof raw === "string" ? raw.split(",") : [];
  return [...new Set(names.map((n) => n.trim().toLowerCase()).filter((n) => /^[a-z0-9][a-z0-9_-]{0,63}$/.test(n)))].sort();
}

/** `_profile_exists_fn` with the allowlist: outside the 0.21.5 mode, or without the key, every profile. */
export function dispatchAllowed(ctx: VerbCtx, name: string): boolean {
  const allowed = v0215(ctx.env) ? allowlist(ctx.loc.root) : null;
  return allowed === null || allowed.includes(name.trim().toLowerCase());
}

/** dispatch_profile_allowlist_summary, as `diagnostics` prints it. */
function allowlistSummary(root: string): string {
  const allowed = allowlist(root);
  if (allowed === null) return "any";
  return allowed.length
    ? allowed.join(", ")
    : "none (fail-closed: kanban.dispatch_profiles is present but names no valid profile, or the config could not be read — omit the key to allow any)";
}

const diagnostics: Verb = {
  spec: {
    prog: prog("diagnostics"),
    options: [
      { flag: "--severity", dest: "severity", kind: "value", choices: ["warning", "error", "critical"] },
      { flag: "--task", dest: "task", kind: "value" },
      { flag: "--json", dest: "json", kind: "flag" },
    ],
    positionals: [],
  },
  run(ctx, v) {
    const one = str(v, "task");
    if (one !== null && !getTask(ctx.db, one)) throw new EmuExit(1, "", `no such task: ${one}\n`);
    const allowlist = allowlistSummary(ctx.loc.root);
    // No rule engine here: no task has an active diagnostic; the home's row trails (task_id null).
    if (v.json) ctx.out(`${JSON.stringify([{ task_id: null, dispatch_profiles: allowlist, diagnostics: [] }], null, 2)}\n`);
    else ctx.out(`kanban.dispatch_profiles: ${allowlist}\nNo active diagnostics on this board.\n`);
  },
};

/** The 0.21.5 verb table: 0.21.3's plus link, diagnostics, authorize-existing-pr; create takes --goal. */
export function line0215Table(table: Record<string, Verb>, env: NodeJS.ProcessEnv): Record<string, Verb> {
  if (!v0215(env)) return table;
  const out: Record<string, Verb> = { ...table, link, diagnostics, diag: diagnostics, "authorize-existing-pr": authorizeExistingPr };
  const create = table.create;
  if (create)
    out.create = {
      ...create,
      spec: withOptions(create.spec, [
        { flag: "--goal", dest: "goal_mode", kind: "flag" },
        { flag: "--goal-max-turns", dest: "goal_max_turns", kind: "value", type: "int", metavar: "N" },
      ]),
    };
  return out;
}
