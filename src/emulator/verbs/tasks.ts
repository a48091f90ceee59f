// create, list, show, context, archive.
import { EmuExit, fail } from "../io.js";
import { type RunRow, type TaskRow, addEvent, getTask, recomputeReady, runJson, taskJson } from "../model.js";
import { newTaskId } from "../store.js";
import { type Verb, list, num, prog, str, tx } from "./types.js";

const STATUSES = ["triage", "todo", "scheduled", "ready", "running", "blocked", "review", "done", "archived"];

const GATEWAY_WARNING =
  "\n⚠  No gateway is running — the task will sit in 'ready' until you start it. Run:\n    hermes gateway start\nThe gateway hosts an embedded dispatcher (tick interval 60s by default); your task will be picked up on the next tick after the gateway comes up.\n";

export const create: Verb = {
  spec: {
    prog: prog("create"),
    options: [
      { flag: "--body", dest: "body", kind: "value" },
      { flag: "--assignee", dest: "assignee", kind: "value" },
      { flag: "--parent", dest: "parent", kind: "append" },
      { flag: "--workspace", dest: "workspace", kind: "value" },
      { flag: "--tenant", dest: "tenant", kind: "value" },
      { flag: "--priority", dest: "priority", kind: "value", type: "int" },
      { flag: "--triage", dest: "triage", kind: "flag" },
      { flag: "--idempotency-key", dest: "key", kind: "value", metavar: "IDEMPOTENCY_KEY" },
      { flag: "--created-by", dest: "created_by", kind: "value", metavar: "CREATED_BY" },
      { flag: "--skill", dest: "skills", kind: "append", metavar: "SKILLS" },
      { flag: "--initial-status", dest: "initial", kind: "value", choices: ["blocked", "running"] },
      { flag: "--json", dest: "json", kind: "flag" },
    ],
    positionals: [{ dest: "title", nargs: 1 }],
  },
  run(ctx, v) {
    const title = (str(v, "title") ?? "").trim();
    const ws = str(v, "workspace") ?? "scratch";
    if (!/^(scratch|worktree|worktree:.+|dir:.+)$/.test(ws))
      throw new EmuExit(2, "", `kanban: unknown --workspace value '${ws}': use scratch, worktree, worktree:<path>, or dir:<path>\n`);
    if (!title) fail(ctx, "kanban: title is required");
    const key = str(v, "key");
    const t = tx(ctx, () => {
      if (key) {
        const existing = ctx.db.prepare("SELECT * FROM tasks WHERE idempotency_key = ? AND status != 'archived' ORDER BY created_at LIMIT 1").get(key) as TaskRow | undefined;
        if (existing) return existing;
      }
      const parents = list(v, "parent");
      const unknown = parents.filter((p) => !getTask(ctx.db, p));
      if (unknown.length > 0) fail(ctx, `kanban: unknown parent task(s): ${unknown.join(", ")}`);
      const id = newTaskId();
      const assignee = str(v, "assignee")?.toLowerCase() || null;
      let status = "ready";
      if (v.triage) status = "triage";
      else if (str(v, "initial")) status = str(v, "initial") ?? "ready";
      else if (parents.some((p) => getTask(ctx.db, p)?.status !== "done" && getTask(ctx.db, p)?.status !== "archived")) status = "todo";
      const [kind, path] = ws.includes(":") ? [ws.slice(0, ws.indexOf(":")), ws.slice(ws.indexOf(":") + 1)] : [ws, null];
      const skills = list(v, "skills");
      ctx.db
        .prepare(
          "INSERT INTO tasks (id, title, body, assignee, status, priority, created_by, created_at, workspace_kind, workspace_path, tenant, idempotency_key, skills) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?)",
        )
        .run(id, title, str(v, "body"), assignee, status, num(v, "priority") ?? 0, str(v, "created_by") ?? "user", ctx.now, kind, path, str(v, "tenant"), key, skills.length ? JSON.stringify(skills) : null);
      for (const p of parents) ctx.db.prepare("INSERT OR IGNORE INTO task_links (parent_id, child_id) VALUES (?, ?)").run(p, id);
      addEvent(ctx.db, id, "created", {
        assignee,
        status,
        parents,
        tenant: str(v, "tenant"),
        workspace_kind: kind,
        workspace_path: path,
        branch_name: null,
        project_id: null,
        skills: skills.length ? skills : null,
        goal_mode: null,
        model_override: null,
        provider_override: null,
      }, ctx.now);
      return getTask(ctx.db, id) as TaskRow;
    });
    if (v.json) {
      ctx.out(`${JSON.stringify(taskJson(t), null, 2)}\n`);
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
      { flag: "--status", dest: "status", kind: "value", choices: STATUSES },
      { flag: "--assignee", dest: "assignee", kind: "value" },
      { flag: "--tenant", dest: "tenant", kind: "value" },
      { flag: "--archived", dest: "archived", kind: "flag" },
      { flag: "--mine", dest: "mine", kind: "flag" },
      { flag: "--sort", dest: "sort", kind: "value", choices: ["created", "priority", "status"] },
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
      .prepare(`SELECT * FROM tasks ${where.length ? `WHERE ${where.join(" AND ")}` : ""} ORDER BY priority DESC, created_at ASC, rowid ASC`)
      .all(...args) as TaskRow[];
    if (v.json) {
      ctx.out(`${JSON.stringify(rows.map(taskJson), null, 2)}\n`);
      return;
    }
    if (rows.length === 0) ctx.out("(no matching tasks)\n");
    for (const t of rows) ctx.out(`● ${t.id}  ${t.status.padEnd(8)}  ${(t.assignee ?? "-").padEnd(20)}  ${t.title}\n`);
  },
};

export function showJson(ctx: { db: import("../store.js").Db }, t: TaskRow): Record<string, unknown> {
  const runs = ctx.db.prepare("SELECT * FROM task_runs WHERE task_id = ? ORDER BY id").all(t.id) as RunRow[];
  const latest = [...runs].reverse().find((r) => r.summary !== null);
  const ids = (sql: string) => (ctx.db.prepare(sql).all(t.id) as { id: string }[]).map((r) => r.id);
  return {
    task: taskJson(t),
    latest_summary: latest?.summary ?? null,
    parents: ids("SELECT parent_id AS id FROM task_links WHERE child_id = ? ORDER BY parent_id"),
    children: ids("SELECT child_id AS id FROM task_links WHERE parent_id = ? ORDER BY child_id"),
    comments: ctx.db.prepare("SELECT author, body, created_at FROM task_comments WHERE task_id = ? ORDER BY id").all(t.id),
    events: (ctx.db.prepare("SELECT kind, payload, created_at, run_id FROM task_events WHERE task_id = ? ORDER BY id").all(t.id) as {
      kind: string;
      payload: string | null;
      created_at: number;
      run_id: number | null;
    }[]).map((e) => ({ kind: e.kind, payload: e.payload ? (JSON.parse(e.payload) as unknown) : null, created_at: e.created_at, run_id: e.run_id })),
    runs: runs.map(runJson),
  };
}

export const show: Verb = {
  spec: {
    prog: prog("show"),
    options: [
      { flag: "--json", dest: "json", kind: "flag" },
      { flag: "--state-type", dest: "state_type", kind: "value", choices: ["status", "outcome"] },
      { flag: "--state-name", dest: "state_name", kind: "value" },
    ],
    positionals: [{ dest: "task_id", nargs: 1 }],
  },
  run(ctx, v) {
    const id = str(v, "task_id") ?? "";
    const t = getTask(ctx.db, id);
    if (!t) fail(ctx, `no such task: ${id}`);
    const doc = showJson(ctx, t);
    if (v.json) {
      ctx.out(`${JSON.stringify(doc, null, 2)}\n`);
      return;
    }
    ctx.out(`Task ${t.id}: ${t.title}\n  status:   ${t.status}\n  assignee: ${t.assignee ?? "-"}\n`);
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
