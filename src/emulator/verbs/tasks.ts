// create, list, show, context, archive.
import { EmuExit, fail, v021 } from "../io.js";
import { type TaskRow, addEvent, getTask, recomputeReady, taskJson } from "../model.js";
import { newTaskId } from "../store.js";
import { boardCount } from "./boards.js";
import { validateContract } from "./line021.js";
import { type Verb, list, num, prog, str, tx } from "./types.js";

const ICONS: Record<string, string> = { todo: "◻", ready: "▶", running: "●", scheduled: "⏱", blocked: "⊘", done: "✓", archived: "—" };

/** VALID_SORT_ORDERS of Hermes 0.20.0. */
const SORT_ORDERS: Record<string, string> = {
  created: "created_at ASC, id ASC",
  "created-desc": "created_at DESC, id DESC",
  priority: "priority DESC, created_at ASC",
  "priority-desc": "priority ASC, created_at ASC",
  status: "status ASC, created_at ASC",
  assignee: "assignee ASC, created_at ASC",
  title: "title ASC, id ASC",
  updated: "started_at DESC NULLS LAST, created_at DESC",
};

const STATUSES = ["triage", "todo", "scheduled", "ready", "running", "blocked", "review", "done", "archived"];

const GATEWAY_WARNING =
  "\n⚠  No gateway is running — the task will sit in 'ready' until you start it. Run:\n    hermes gateway start\nThe gateway hosts an embedded dispatcher (tick interval 60s by default); your task will be picked up on the next tick after the gateway comes up.\n";

/** kanban.py _parse_branch_flag, checked in _cmd_create: `kanban: <why>`, exit 2 (recorded on real 0.20.0). */
function branchFlag(value: string | null): string | null {
  if (value === null) return null;
  const b = value.trim();
  const bad = !b
    ? "--branch requires a non-empty name"
    : b.startsWith("-")
      ? "--branch must not start with '-'"
      : /\s/.test(b)
        ? "--branch must not contain whitespace"
        : null;
  if (bad) throw new EmuExit(2, "", `kanban: ${bad}\n`);
  return b;
}

export const create: Verb = {
  spec: {
    prog: prog("create"),
    options: [
      { flag: "--body", dest: "body", kind: "value" },
      { flag: "--assignee", dest: "assignee", kind: "value" },
      { flag: "--parent", dest: "parent", kind: "append" },
      { flag: "--workspace", dest: "workspace", kind: "value" },
      { flag: "--branch", dest: "branch", kind: "value" },
      { flag: "--tenant", dest: "tenant", kind: "value" },
      { flag: "--priority", dest: "priority", kind: "value", type: "int" },
      { flag: "--triage", dest: "triage", kind: "flag" },
      { flag: "--idempotency-key", dest: "key", kind: "value", metavar: "IDEMPOTENCY_KEY" },
      { flag: "--created-by", dest: "created_by", kind: "value", metavar: "CREATED_BY" },
      { flag: "--skill", dest: "skills", kind: "append", metavar: "SKILLS" },
      { flag: "--initial-status", dest: "initial", kind: "value", choices: ["blocked", "running"] },
      { flag: "--max-runtime", dest: "max_runtime", kind: "value", metavar: "MAX_RUNTIME" },
      { flag: "--max-retries", dest: "max_retries", kind: "value", type: "int", metavar: "MAX_RETRIES" },
      { flag: "--model", dest: "model_override", kind: "value", metavar: "MODEL_OVERRIDE" },
      { flag: "--provider", dest: "provider_override", kind: "value", metavar: "PROVIDER_OVERRIDE" },
      { flag: "--json", dest: "json", kind: "flag" },
    ],
    positionals: [{ dest: "title", nargs: 1 }],
  },
  run(ctx, v) {
    const title = (str(v, "title") ?? "").trim();
    const ws = str(v, "workspace") ?? "scratch";
    if (!/^(scratch|worktree|worktree:.+|dir:.+)$/.test(ws))
      throw new EmuExit(2, "", `kanban: unknown --workspace value '${ws}': use scratch, worktree, worktree:<path>, or dir:<path>\n`);
    const maxRuntime = parseDuration(str(v, "max_runtime"));
    const branch = branchFlag(str(v, "branch"));
    const maxRetries = num(v, "max_retries");
    if (maxRetries !== null && maxRetries < 1)
      throw new EmuExit(2, "", `kanban: --max-retries must be >= 1 (got ${maxRetries}); use 1 to trip on the first failure.\n`);
    const model = str(v, "model_override")?.trim() || null;
    const provider = str(v, "provider_override")?.trim() || null;
    if (provider && !model) fail(ctx, "kanban: provider_override requires a model_override");
    if (!title) fail(ctx, "kanban: title is required");
    const line021 = v021(ctx.env);
    const contract = line021 ? validateContract(str(v, "completion_contract")) : null;
    const key = str(v, "key");
    const t = tx(ctx, () => {
      if (key) {
        const existing = ctx.db.prepare("SELECT * FROM tasks WHERE idempotency_key = ? AND status != 'archived' ORDER BY created_at LIMIT 1").get(key) as
          | TaskRow
          | undefined;
        if (existing) return existing;
      }
      const parents = list(v, "parent");
      const unknown = parents.filter((p) => !getTask(ctx.db, p));
      if (unknown.length > 0) fail(ctx, `kanban: unknown parent task(s): ${unknown.join(", ")}`);
      const id = newTaskId();
      const assignee = str(v, "assignee")?.toLowerCase() || null;
      // create_task: only `--initial-status blocked` parks a task (`running` is the default, not a status).
      let status = "ready";
      if (str(v, "initial") === "blocked") status = "blocked";
      else if (v.triage) status = "triage";
      else if (parents.some((p) => getTask(ctx.db, p)?.status !== "done" && getTask(ctx.db, p)?.status !== "archived")) status = "todo";
      const [kind, path] = ws.includes(":") ? [ws.slice(0, ws.indexOf(":")), ws.slice(ws.indexOf(":") + 1)] : [ws, null];
      const skills = list(v, "skills");
      ctx.db
        .prepare(
          "INSERT INTO tasks (id, title, body, assignee, status, priority, created_by, created_at, workspace_kind, workspace_path, tenant, idempotency_key, skills, max_runtime_seconds, max_retries, branch_name, model_override, provider_override, completion_contract) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
        )
        .run(
          id,
          title,
          str(v, "body"),
          assignee,
          status,
          num(v, "priority") ?? 0,
          str(v, "created_by") ?? "user",
          ctx.now,
          kind,
          path,
          str(v, "tenant"),
          key,
          skills.length ? JSON.stringify(skills) : null,
          maxRuntime,
          maxRetries,
          branch,
          model,
          provider,
          contract,
        );
      for (const p of parents) ctx.db.prepare("INSERT OR IGNORE INTO task_links (parent_id, child_id) VALUES (?, ?)").run(p, id);
      // 0.21.5 mode (verbs/line0215.ts): `--goal` runs the task under the goal judge.
      if (v.goal_mode === true) ctx.db.prepare("UPDATE tasks SET goal_mode = 1, goal_max_turns = ? WHERE id = ?").run(num(v, "goal_max_turns"), id);
      addEvent(
        ctx.db,
        id,
        "created",
        {
          assignee,
          status,
          parents,
          ...(line021 ? { creator_task_id: null } : {}),
          tenant: str(v, "tenant"),
          workspace_kind: kind,
          workspace_path: path,
          branch_name: null,
          project_id: null,
          skills: skills.length ? skills : null,
          goal_mode: v.goal_mode === true ? true : null,
          model_override: model,
          provider_override: provider,
        },
        ctx.now,
      );
      // 0.21 records why a task is born blocked (a human's block: recompute_ready leaves it there).
      if (line021 && status === "blocked")
        addEvent(ctx.db, id, "blocked", { reason: "initial_status", status: "blocked", actor: str(v, "created_by") ?? "user" }, ctx.now);
      return getTask(ctx.db, id) as TaskRow;
    });
    if (v.json) {
      ctx.out(`${JSON.stringify(taskJson(t, ctx.env), null, 2)}\n`);
      return;
    }
    ctx.out(`Created ${t.id}  (${t.status}, assignee=${t.assignee ?? "-"})\n`);
    if (t.status === "ready" && t.assignee) ctx.err(GATEWAY_WARNING);
  },
};

export const listVerb: Verb = {
  spec: {
    prog: prog("list"),
    options: [
      { flag: "--status", dest: "status", kind: "value", choices: [...STATUSES].sort() },
      { flag: "--assignee", dest: "assignee", kind: "value" },
      { flag: "--tenant", dest: "tenant", kind: "value" },
      { flag: "--archived", dest: "archived", kind: "flag" },
      { flag: "--mine", dest: "mine", kind: "flag" },
      { flag: "--sort", dest: "sort", kind: "value", choices: Object.keys(SORT_ORDERS).sort() },
      { flag: "--json", dest: "json", kind: "flag" },
    ],
    positionals: [],
  },
  run(ctx, v) {
    tx(ctx, () => recomputeReady(ctx.db, ctx.now));
    const where: string[] = [];
    const args: unknown[] = [];
    const status = str(v, "status");
    if (status) {
      where.push("status = ?");
      args.push(status);
    }
    if (!v.archived && status !== "archived") where.push("status != 'archived'");
    const assignee = str(v, "assignee") ?? (v.mine ? (ctx.env.HERMES_PROFILE ?? "default") : null);
    if (assignee) {
      where.push("assignee = ?");
      args.push(assignee.toLowerCase());
    }
    if (str(v, "tenant")) {
      where.push("tenant = ?");
      args.push(str(v, "tenant"));
    }
    const rows = ctx.db
      .prepare(
        `SELECT * FROM tasks ${where.length ? `WHERE ${where.join(" AND ")}` : ""} ORDER BY ${SORT_ORDERS[str(v, "sort") ?? "priority"] ?? SORT_ORDERS.priority}, rowid ASC`,
      )
      .all(...args) as TaskRow[];
    if (v.json) {
      ctx.out(
        `${JSON.stringify(
          rows.map((r) => taskJson(r, ctx.env)),
          null,
          2,
        )}\n`,
      );
      return;
    }
    // With more than one board, the text view names the board it shows.
    const boards = boardCount(ctx.loc.root);
    if (boards > 1) ctx.out(`Board: ${ctx.loc.slug} (${boards - 1} other board${boards - 1 !== 1 ? "s" : ""} — \`hermes kanban boards list\`)\n\n`);
    if (rows.length === 0) ctx.out("(no matching tasks)\n");
    for (const t of rows)
      ctx.out(
        `${ICONS[t.status] ?? "?"} ${t.id}  ${t.status.padEnd(8)}  ${(t.assignee || "(unassigned)").padEnd(20)}${t.tenant ? ` [${t.tenant}]` : ""}  ${t.title}\n`,
      );
  },
};

export const archive: Verb = {
  spec: { prog: prog("archive"), options: [], positionals: [{ dest: "task_ids", nargs: "+" }] },
  run(ctx, v) {
    let failed = false;
    for (const id of list(v, "task_ids")) {
      const ok = tx(ctx, () => {
        const t = getTask(ctx.db, id);
        if (!t || t.status === "archived") return false;
        ctx.db.prepare("UPDATE tasks SET status = 'archived' WHERE id = ?").run(id);
        addEvent(ctx.db, id, "archived", null, ctx.now);
        return true;
      });
      if (ok) ctx.out(`Archived ${id}\n`);
      else {
        ctx.err(`cannot archive ${id}\n`);
        failed = true;
      }
    }
    if (failed) throw new EmuExit(1, "", "");
  },
};

/** `30s` / `5m` / `2h` / `1d` or a number → seconds (Hermes's _parse_duration). */
export function parseDuration(val: string | null): number | null {
  if (val === null || val === "") return null;
  const s = val.trim().toLowerCase();
  if (/^[-+]?\d+$/.test(s)) return Number.parseInt(s, 10);
  const units: Record<string, number> = { s: 1, m: 60, h: 3600, d: 86400 };
  const unit = units[s.slice(-1)];
  const n = Number(s.slice(0, -1));
  if (unit !== undefined && s.length > 1 && !Number.isNaN(n) && /^[-+]?(\d+\.?\d*|\.\d+)$/.test(s.slice(0, -1))) return Math.trunc(n * unit);
  const detail = unit !== undefined ? `malformed duration '${val}'` : `malformed duration '${val}' (expected 30s, 5m, 2h, 1d, or a number)`;
  throw new EmuExit(2, "", `kanban: --max-runtime: ${detail}\n`);
}
