// show: the JSON document (task, latest summary, links, comments, events, runs), and the text view
// as Hermes 0.20.0 prints it (without its diagnostics section, which the emulator does not compute).
import { fail } from "../io.js";
import { type RunRow, type TaskRow, getTask, runJson, taskJson } from "../model.js";
import { pyRepr } from "../pyrepr.js";
import { shownPath } from "../remote.js";
import type { Db } from "../store.js";
import { type Verb, prog, str } from "./types.js";
import { namedClaimTaskFields } from "./named-claims.js";
import { namedClaims } from "../io.js";

/** DEFAULT_FAILURE_LIMIT */
const DEFAULT_FAILURE_LIMIT = 2;

const pad = (n: number) => String(n).padStart(2, "0");
function ts(epoch: number | null): string {
  if (!epoch) return "";
  const d = new Date(epoch * 1000);
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())} ${pad(d.getHours())}:${pad(d.getMinutes())}`;
}

export function showJson(ctx: { db: Db; env: NodeJS.ProcessEnv }, t: TaskRow): Record<string, unknown> {
  const runs = ctx.db.prepare("SELECT * FROM task_runs WHERE task_id = ? ORDER BY id").all(t.id) as RunRow[];
  const latest = [...runs].reverse().find((r) => r.summary !== null);
  const ids = (sql: string) => (ctx.db.prepare(sql).all(t.id) as { id: string }[]).map((r) => r.id);
  return {
    task: { ...taskJson(t, ctx.env), ...namedClaimTaskFields(ctx.env, t) },
    latest_summary: latest?.summary ?? null,
    parents: ids("SELECT parent_id AS id FROM task_links WHERE child_id = ? ORDER BY parent_id"),
    children: ids("SELECT child_id AS id FROM task_links WHERE parent_id = ? ORDER BY child_id"),
    comments: ctx.db.prepare("SELECT author, body, created_at FROM task_comments WHERE task_id = ? ORDER BY id").all(t.id),
    events: (
      ctx.db.prepare("SELECT kind, payload, created_at, run_id FROM task_events WHERE task_id = ? ORDER BY id").all(t.id) as {
        kind: string;
        payload: string | null;
        created_at: number;
        run_id: number | null;
      }[]
    ).map((e) => ({ kind: e.kind, payload: e.payload ? (JSON.parse(e.payload) as unknown) : null, created_at: e.created_at, run_id: e.run_id })),
    runs: runs.map((r) => runJson(r, { closedBy: namedClaims(ctx.env) })),
  };
}

function text(t: TaskRow, doc: ReturnType<typeof showJson>, env: NodeJS.ProcessEnv): string {
  const l = [`Task ${t.id}: ${t.title}`, `  status:    ${t.status}`, `  assignee:  ${t.assignee || "-"}`];
  if (t.tenant) l.push(`  tenant:    ${t.tenant}`);
  l.push(`  workspace: ${t.workspace_kind}${t.workspace_path ? ` @ ${shownPath(env, t.workspace_path)}` : ""}`);
  if (t.branch_name) l.push(`  branch:    ${t.branch_name}`);
  l.push(t.max_retries !== null ? `  max-retries: ${t.max_retries} (task)` : `  max-retries: ${DEFAULT_FAILURE_LIMIT} (default)`);
  l.push(`  created:   ${ts(t.created_at)} by ${t.created_by || "-"}`);
  if (t.started_at) l.push(`  started:   ${ts(t.started_at)}`);
  if (t.completed_at) l.push(`  completed: ${ts(t.completed_at)}`);
  const parents = doc.parents as string[];
  const children = doc.children as string[];
  if (parents.length) l.push(`  parents:   ${parents.join(", ")}`);
  if (children.length) l.push(`  children:  ${children.join(", ")}`);
  if (t.body) l.push("", "Body:", t.body);
  if (t.result) l.push("", "Result:", t.result);
  else if (doc.latest_summary) l.push("", "Latest summary:", String(doc.latest_summary));
  const comments = doc.comments as { author: string; body: string; created_at: number }[];
  if (comments.length) {
    l.push("", `Comments (${comments.length}):`);
    for (const c of comments) l.push(`  [${ts(c.created_at)}] ${c.author}: ${c.body}`);
  }
  const events = doc.events as { kind: string; payload: unknown; created_at: number; run_id: number | null }[];
  if (events.length) {
    l.push("", `Events (${events.length}):`);
    for (const e of events.slice(-20))
      l.push(`  [${ts(e.created_at)}]${e.run_id ? ` [run ${e.run_id}]` : ""} ${e.kind}${e.payload ? ` ${pyRepr(e.payload)}` : ""}`);
  }
  const runs = doc.runs as {
    id: number;
    outcome: string | null;
    status: string;
    profile: string | null;
    started_at: number;
    ended_at: number | null;
    summary: string | null;
    error: string | null;
  }[];
  if (runs.length) {
    l.push("", `Runs (${runs.length}):`);
    for (const r of runs) {
      const el = r.ended_at ? `${Math.max(0, r.ended_at - r.started_at)}s` : "active";
      l.push(`  #${String(r.id).padEnd(3)} ${(r.outcome || r.status || "active").padEnd(12)} @${r.profile || "-"}  ${el}  ${ts(r.started_at)}`);
      if (r.summary) l.push(`        → ${(r.summary.split("\n")[0] ?? "").slice(0, 160)}`);
      if (r.error) l.push(`        ! ${(r.error.split("\n")[0] ?? "").slice(0, 160)}`);
    }
  }
  return `${l.join("\n")}\n`;
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
    ctx.out(v.json ? `${JSON.stringify(doc, null, 2)}\n` : text(t, doc, ctx.env));
  },
};
