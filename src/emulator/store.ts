// Emulator storage: one SQLite file per board under $HERMES_HOME, laid out like real Hermes
// (<root>/kanban.db for `default`, <root>/kanban/boards/<slug>/kanban.db otherwise).
import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, readFileSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import { EmuExit } from "./io.js";
import { type Db, openSqlite } from "./sqlite.js";

export type { Db };

const SCHEMA = `
CREATE TABLE IF NOT EXISTS tasks (
  id TEXT PRIMARY KEY, title TEXT NOT NULL, body TEXT, assignee TEXT, status TEXT NOT NULL,
  priority INTEGER DEFAULT 0, created_by TEXT, created_at INTEGER NOT NULL, started_at INTEGER,
  completed_at INTEGER, workspace_kind TEXT NOT NULL DEFAULT 'scratch', workspace_path TEXT,
  branch_name TEXT, project_id TEXT, claim_lock TEXT, claim_expires INTEGER, tenant TEXT, result TEXT,
  idempotency_key TEXT, consecutive_failures INTEGER NOT NULL DEFAULT 0, worker_pid INTEGER,
  last_failure_error TEXT, max_runtime_seconds INTEGER, last_heartbeat_at INTEGER, current_run_id INTEGER,
  workflow_template_id TEXT, current_step_key TEXT, skills TEXT, model_override TEXT, provider_override TEXT,
  reasoning_effort TEXT, max_retries INTEGER, goal_mode INTEGER NOT NULL DEFAULT 0, goal_max_turns INTEGER,
  session_id TEXT, block_kind TEXT, block_recurrences INTEGER NOT NULL DEFAULT 0, completion_contract TEXT
);
CREATE TABLE IF NOT EXISTS task_runs (
  id INTEGER PRIMARY KEY AUTOINCREMENT, task_id TEXT NOT NULL, profile TEXT, step_key TEXT,
  status TEXT NOT NULL, claim_lock TEXT, claim_expires INTEGER, worker_pid INTEGER,
  max_runtime_seconds INTEGER, last_heartbeat_at INTEGER, started_at INTEGER NOT NULL, ended_at INTEGER,
  outcome TEXT, summary TEXT, metadata TEXT, error TEXT, closed_by TEXT
);
CREATE TABLE IF NOT EXISTS task_events (
  id INTEGER PRIMARY KEY AUTOINCREMENT, task_id TEXT NOT NULL, run_id INTEGER, kind TEXT NOT NULL,
  payload TEXT, created_at INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS task_comments (
  id INTEGER PRIMARY KEY AUTOINCREMENT, task_id TEXT NOT NULL, author TEXT NOT NULL, body TEXT NOT NULL,
  created_at INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS task_links (parent_id TEXT NOT NULL, child_id TEXT NOT NULL, PRIMARY KEY (parent_id, child_id));
CREATE TABLE IF NOT EXISTS task_attachments (
  id INTEGER PRIMARY KEY AUTOINCREMENT, task_id TEXT NOT NULL, filename TEXT NOT NULL, stored_path TEXT NOT NULL,
  content_type TEXT, size INTEGER NOT NULL DEFAULT 0, uploaded_by TEXT, created_at INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS idx_tasks_assignee_status ON tasks(assignee, status);
CREATE INDEX IF NOT EXISTS idx_tasks_idempotency ON tasks(idempotency_key);
CREATE INDEX IF NOT EXISTS idx_events_task ON task_events(task_id, created_at);
CREATE INDEX IF NOT EXISTS idx_runs_task ON task_runs(task_id, started_at);
`;

export interface BoardLoc {
  slug: string;
  root: string;
  dir: string;
  dbPath: string;
  workspaces: string;
}

export function kanbanRoot(env: NodeJS.ProcessEnv): string {
  return env.HERMES_KANBAN_HOME || env.HERMES_HOME || join(homedir(), ".hermes");
}

const SLUG_RE = /^[a-z0-9][a-z0-9_-]{0,63}$/;

export function boardLoc(root: string, slug: string): BoardLoc {
  if (slug === "default") return { slug, root, dir: join(root, "kanban"), dbPath: join(root, "kanban.db"), workspaces: join(root, "kanban", "workspaces") };
  const dir = join(root, "kanban", "boards", slug);
  return { slug, root, dir, dbPath: join(dir, "kanban.db"), workspaces: join(dir, "workspaces") };
}

export function boardExists(root: string, slug: string): boolean {
  return slug === "default" || existsSync(boardLoc(root, slug).dbPath);
}

/** Board resolution, highest first: HERMES_KANBAN_DB, --board, HERMES_KANBAN_BOARD (if it exists), current, default. */
export function resolveBoard(env: NodeJS.ProcessEnv, boardArg: string | null): BoardLoc {
  const root = kanbanRoot(env);
  if (env.HERMES_KANBAN_DB) {
    const loc = boardLoc(root, "default");
    return { ...loc, slug: "(pinned)", dbPath: env.HERMES_KANBAN_DB };
  }
  if (boardArg) {
    const slug = boardArg.toLowerCase();
    if (!SLUG_RE.test(slug))
      throw new EmuExit(
        2,
        "",
        `kanban: invalid board slug '${boardArg}': must be 1-64 chars, lowercase alphanumerics / hyphens / underscores, not starting with '-' or '_'\n`,
      );
    if (!boardExists(root, slug)) throw new EmuExit(1, "", `kanban: board '${slug}' does not exist. Create it with \`hermes kanban boards create ${slug}\`.\n`);
    return boardLoc(root, slug);
  }
  const envBoard = env.HERMES_KANBAN_BOARD?.toLowerCase();
  if (envBoard && SLUG_RE.test(envBoard) && boardExists(root, envBoard)) return boardLoc(root, envBoard);
  const currentFile = join(root, "kanban", "current");
  if (existsSync(currentFile)) {
    const cur = readFileSync(currentFile, "utf8").trim();
    if (cur && boardExists(root, cur)) return boardLoc(root, cur);
  }
  return boardLoc(root, "default");
}

export function openDb(loc: BoardLoc, env: NodeJS.ProcessEnv): Db {
  mkdirSync(loc.dir, { recursive: true });
  const db = openSqlite(loc.dbPath);
  const busy = Number.parseInt(env.HERMES_KANBAN_BUSY_TIMEOUT_MS ?? "", 10);
  db.pragma(`busy_timeout = ${Number.isFinite(busy) ? busy : 120_000}`);
  db.exec(SCHEMA);
  // A board made by an older emulator: the columns added since.
  const runCols = (db.prepare("PRAGMA table_info(task_runs)").all() as { name: string }[]).map((c) => c.name);
  if (!runCols.includes("closed_by")) db.exec("ALTER TABLE task_runs ADD COLUMN closed_by TEXT");
  const taskCols = (db.prepare("PRAGMA table_info(tasks)").all() as { name: string }[]).map((c) => c.name);
  if (!taskCols.includes("completion_contract")) db.exec("ALTER TABLE tasks ADD COLUMN completion_contract TEXT");
  return db;
}

/**
 * Board time in epoch seconds; tests move it forward with `<root>/.emulator-clock-offset`, or pin it with
 * `<root>/.emulator-clock-fixed` (a replay of a recording's own timestamps: no second boundary to race).
 */
export function nowSeconds(root: string): number {
  const fixed = join(root, ".emulator-clock-fixed");
  if (existsSync(fixed)) {
    const v = Number.parseInt(readFileSync(fixed, "utf8").trim(), 10);
    if (Number.isFinite(v)) return v;
  }
  const f = join(root, ".emulator-clock-offset");
  let offset = 0;
  if (existsSync(f)) offset = Number.parseInt(readFileSync(f, "utf8").trim(), 10) || 0;
  return Math.floor(Date.now() / 1000) + offset;
}

export function newTaskId(): string {
  return `t_${randomBytes(4).toString("hex")}`;
}

export function isProfile(root: string, name: string): boolean {
  return name === "default" || existsSync(join(root, "profiles", name));
}
