// Row ↔ JSON shapes and the shared state transitions of the emulator (events, runs, promotion).
import { v021 } from "./io.js";
import { shownPath } from "./remote.js";
import type { Db } from "./store.js";

export interface TaskRow {
  id: string;
  title: string;
  body: string | null;
  assignee: string | null;
  status: string;
  priority: number | null;
  tenant: string | null;
  workspace_kind: string;
  workspace_path: string | null;
  branch_name: string | null;
  project_id: string | null;
  created_by: string | null;
  created_at: number;
  started_at: number | null;
  completed_at: number | null;
  result: string | null;
  skills: string | null;
  max_retries: number | null;
  consecutive_failures: number;
  model_override: string | null;
  provider_override: string | null;
  session_id: string | null;
  workflow_template_id: string | null;
  current_step_key: string | null;
  max_runtime_seconds: number | null;
  claim_lock: string | null;
  claim_expires: number | null;
  current_run_id: number | null;
  worker_pid: number | null;
  last_heartbeat_at: number | null;
  block_kind: string | null;
  block_recurrences: number;
  idempotency_key: string | null;
  last_failure_error: string | null;
  completion_contract: string | null;
  /** `create --goal` (0 or 1). */
  goal_mode?: number;
}

export interface RunRow {
  id: number;
  task_id: string;
  profile: string | null;
  step_key: string | null;
  status: string;
  outcome: string | null;
  summary: string | null;
  error: string | null;
  metadata: string | null;
  worker_pid: number | null;
  started_at: number;
  ended_at: number | null;
  claim_lock: string | null;
  closed_by: string | null;
}

/**
 * The task object of `list/show/create --json`: 0.20.0's keys (no max runtime, no lease fields); 0.21
 * adds the max runtime, the completion contract and the last failure (kanban_db._TASK_JSON_FIELDS).
 */
export function taskJson(t: TaskRow, env: NodeJS.ProcessEnv = {}): Record<string, unknown> {
  const line021 = v021(env);
  return {
    id: t.id,
    title: t.title,
    body: t.body,
    assignee: t.assignee,
    status: t.status,
    priority: t.priority ?? 0,
    tenant: t.tenant,
    workspace_kind: t.workspace_kind,
    workspace_path: t.workspace_path === null ? null : shownPath(env, t.workspace_path),
    branch_name: t.branch_name,
    project_id: t.project_id,
    created_by: t.created_by,
    created_at: t.created_at,
    started_at: t.started_at,
    completed_at: t.completed_at,
    result: t.result,
    skills: t.skills ? (JSON.parse(t.skills) as unknown) : [],
    ...(line021 ? { max_runtime_seconds: t.max_runtime_seconds } : {}),
    max_retries: t.max_retries,
    model_override: t.model_override,
    provider_override: t.provider_override,
    session_id: t.session_id,
    workflow_template_id: t.workflow_template_id,
    current_step_key: t.current_step_key,
    ...(line021 ? { completion_contract: t.completion_contract ?? "local-only", last_failure_error: t.last_failure_error } : {}),
  };
}

export function runJson(r: RunRow, o: { closedBy?: boolean } = {}): Record<string, unknown> {
  return {
    id: r.id,
    profile: r.profile,
    step_key: r.step_key,
    status: r.status,
    outcome: r.outcome,
    summary: r.summary,
    error: r.error,
    metadata: r.metadata ? (JSON.parse(r.metadata) as unknown) : null,
    worker_pid: r.worker_pid,
    started_at: r.started_at,
    ended_at: r.ended_at,
    ...(o.closedBy ? { closed_by: r.closed_by } : {}),
  };
}

export function getTask(db: Db, id: string): TaskRow | undefined {
  return db.prepare("SELECT * FROM tasks WHERE id = ?").get(id) as TaskRow | undefined;
}

export function addEvent(db: Db, taskId: string, kind: string, payload: unknown, now: number, runId: number | null = null): void {
  db.prepare("INSERT INTO task_events (task_id, run_id, kind, payload, created_at) VALUES (?, ?, ?, ?, ?)").run(
    taskId,
    runId,
    kind,
    payload === null || payload === undefined ? null : JSON.stringify(payload),
    now,
  );
}

export function addComment(db: Db, taskId: string, author: string, body: string, now: number): void {
  db.prepare("INSERT INTO task_comments (task_id, author, body, created_at) VALUES (?, ?, ?, ?)").run(taskId, author, body, now);
  addEvent(db, taskId, "commented", { author, len: body.length }, now);
}

/** Closes the task's open run (if any) and clears the claim. Returns the closed run id. */
export function endRun(
  db: Db,
  t: TaskRow,
  now: number,
  fields: { status: string; outcome: string; summary?: string | null; metadata?: string | null; error?: string | null; closedBy?: string },
): number | null {
  const runId = t.current_run_id;
  if (runId !== null) {
    db.prepare(
      "UPDATE task_runs SET status = ?, outcome = ?, summary = COALESCE(?, summary), metadata = COALESCE(?, metadata), error = COALESCE(?, error), ended_at = ?, claim_lock = NULL, closed_by = ? WHERE id = ?",
    ).run(fields.status, fields.outcome, fields.summary ?? null, fields.metadata ?? null, fields.error ?? null, now, fields.closedBy ?? null, runId);
  }
  db.prepare("UPDATE tasks SET claim_lock = NULL, claim_expires = NULL, current_run_id = NULL, worker_pid = NULL WHERE id = ?").run(t.id);
  return runId;
}

/** _synthesize_ended_run: a zero-duration, already closed run (a close of a task with no open run). */
export function synthesizeRun(ctx: { db: Db; now: number }, t: TaskRow, outcome: string, summary: string | null, metadata: string | null = null): number {
  const r = ctx.db
    .prepare("INSERT INTO task_runs (task_id, profile, step_key, status, outcome, summary, metadata, started_at, ended_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)")
    .run(t.id, t.assignee, t.current_step_key, outcome, outcome, summary, metadata, ctx.now, ctx.now);
  return Number(r.lastInsertRowid);
}

export function parentsOpen(db: Db, id: string): boolean {
  const row = db
    .prepare("SELECT COUNT(*) AS n FROM task_links l JOIN tasks p ON p.id = l.parent_id WHERE l.child_id = ? AND p.status NOT IN ('done', 'archived')")
    .get(id) as { n: number };
  return row.n > 0;
}

/** `list` and `dispatch` write: todo whose parents are done → ready; non-sticky blocked → ready. */
export function recomputeReady(db: Db, now: number): number {
  let promoted = 0;
  const todos = db.prepare("SELECT * FROM tasks WHERE status = 'todo'").all() as TaskRow[];
  for (const t of todos) {
    if (parentsOpen(db, t.id)) continue;
    db.prepare("UPDATE tasks SET status = 'ready' WHERE id = ?").run(t.id);
    addEvent(db, t.id, "promoted", null, now);
    promoted += 1;
  }
  const blocked = db.prepare("SELECT * FROM tasks WHERE status = 'blocked'").all() as TaskRow[];
  for (const t of blocked) {
    const last = db
      .prepare("SELECT kind FROM task_events WHERE task_id = ? AND kind IN ('blocked', 'unblocked', 'block_loop_detected', 'gave_up') ORDER BY id DESC LIMIT 1")
      .get(t.id) as { kind: string } | undefined;
    // A block by a worker or an operator, and the failure breaker's give-up, wait for a human.
    if (last?.kind === "blocked" || last?.kind === "gave_up") continue;
    db.prepare("UPDATE tasks SET status = 'ready' WHERE id = ?").run(t.id);
    addEvent(db, t.id, "promoted", null, now);
    promoted += 1;
  }
  return promoted;
}

/** The worker's run id (HERMES_KANBAN_RUN_ID) when HERMES_KANBAN_TASK names this task and the id is an integer, else null. */
export function workerRunId(env: NodeJS.ProcessEnv, taskId: string): number | null {
  const raw = env.HERMES_KANBAN_RUN_ID ?? "";
  return env.HERMES_KANBAN_TASK === taskId && /^\d+$/.test(raw) ? Number.parseInt(raw, 10) : null;
}

/** Run-id fencing (contract §1.6): only when HERMES_KANBAN_TASK names this task and the run id is an integer. */
export function fencedOut(env: NodeJS.ProcessEnv, t: TaskRow): boolean {
  const run = workerRunId(env, t.id);
  return run !== null && t.current_run_id !== run;
}

export function profileAuthor(env: NodeJS.ProcessEnv): string {
  return env.HERMES_PROFILE || env.HERMES_PROFILE_NAME || "default";
}
