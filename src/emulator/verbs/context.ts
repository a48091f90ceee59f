// context: the worker context text, ported from Hermes 0.20.0 (kanban_db.build_worker_context):
// header (with the max runtime, the only place 0.20.0 shows it), body, attachments, prior attempts,
// parent handoffs, recent work by the assignee, comment thread — with the same caps and wording.
import { fail } from "../io.js";
import type { RunRow, TaskRow } from "../model.js";
import { getTask } from "../model.js";
import { shownPath } from "../remote.js";
import { type Verb, prog, str } from "./types.js";

const MAX_PRIOR = 10;
const MAX_COMMENTS = 30;
const MAX_FIELD = 4 * 1024;
const MAX_BODY = 8 * 1024;
const MAX_COMMENT = 2 * 1024;
/** KANBAN_TERMINAL_TIMEOUT_GRACE_SECONDS */
const TERMINAL_GRACE = 30;

function cap(s: string | null, limit = MAX_FIELD): string {
  if (!s) return "";
  const t = s.trim();
  return t.length <= limit ? t : `${t.slice(0, limit)}… [truncated, ${t.length - limit} chars omitted]`;
}

const pad = (n: number) => String(n).padStart(2, "0");
function localTs(epoch: number): string {
  const d = new Date(epoch * 1000);
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())} ${pad(d.getHours())}:${pad(d.getMinutes())}`;
}

export function relativeAge(ts: number | null, now: number): string {
  if (ts === null) return "";
  const delta = now - ts;
  if (delta < 60) return "just now";
  if (delta < 3600) return `${Math.floor(delta / 60)}m ago`;
  if (delta < 86400) return `${Math.floor(delta / 3600)}h ago`;
  return `${Math.floor(delta / 86400)}d ago`;
}

const when = (ts: number, now: number) => `${localTs(ts)}, ${relativeAge(ts, now)}`;

/** Python's json.dumps(..., ensure_ascii=False, sort_keys=True). */
function pyJson(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(pyJson).join(", ")}]`;
  if (v && typeof v === "object")
    return `{${Object.keys(v)
      .sort()
      .map((k) => `${JSON.stringify(k)}: ${pyJson((v as Record<string, unknown>)[k])}`)
      .join(", ")}}`;
  return JSON.stringify(v) ?? "null";
}

export const context: Verb = {
  spec: { prog: prog("context"), options: [], positionals: [{ dest: "task_id", nargs: 1 }] },
  run(ctx, v) {
    const id = str(v, "task_id") ?? "";
    const t = getTask(ctx.db, id);
    if (!t) fail(ctx, `kanban: unknown task ${id}`);
    const now = ctx.now;
    const lines = [`# Kanban task ${t.id}: ${t.title}`, "", `Assignee: ${t.assignee || "(unassigned)"}`, `Status:   ${t.status}`];
    if (t.tenant) lines.push(`Tenant:   ${t.tenant}`);
    lines.push(`Workspace: ${t.workspace_kind} @ ${t.workspace_path ? shownPath(ctx.env, t.workspace_path) : "(unresolved)"}`);
    if (t.max_runtime_seconds !== null && t.max_runtime_seconds !== undefined) {
      lines.push(`Max runtime: ${t.max_runtime_seconds}s`);
      const terminal = t.max_runtime_seconds > 0 ? Math.max(1, t.max_runtime_seconds - TERMINAL_GRACE) : null;
      const existing = Number.parseInt(ctx.env.TERMINAL_TIMEOUT ?? "", 10) || 0;
      const effective = terminal !== null && existing < terminal ? String(terminal) : ctx.env.TERMINAL_TIMEOUT;
      if (effective) lines.push(`Terminal timeout: ${effective}s`);
    }
    if (t.branch_name) lines.push(`Branch:   ${t.branch_name}`);
    lines.push("");
    if (t.body?.trim()) lines.push("## Body", cap(t.body, MAX_BODY), "");
    const atts = ctx.db.prepare("SELECT * FROM task_attachments WHERE task_id = ? ORDER BY id").all(id) as {
      filename: string;
      content_type: string | null;
      size: number;
      stored_path: string;
    }[];
    if (atts.length > 0) {
      lines.push("## Attachments", "Files attached to this task. Read them with the file/terminal tools at the absolute paths below:");
      for (const a of atts) {
        const kb = a.size ? Math.max(1, Math.floor((a.size + 1023) / 1024)) : 0;
        lines.push(`- \`${a.filename}\`${a.content_type ? `, ${a.content_type}` : ""}${kb ? `, ${kb} KB` : ""} → \`${shownPath(ctx.env, a.stored_path)}\``);
      }
      lines.push("");
    }
    const prior = ctx.db.prepare("SELECT * FROM task_runs WHERE task_id = ? AND ended_at IS NOT NULL ORDER BY started_at, id").all(id) as RunRow[];
    const omitted = Math.max(0, prior.length - MAX_PRIOR);
    const shown = prior.slice(omitted);
    if (shown.length > 0) {
      lines.push("## Prior attempts on this task");
      if (omitted) lines.push(`_(${omitted} earlier attempt${omitted !== 1 ? "s" : ""} omitted; showing most recent ${shown.length})_`);
      shown.forEach((r, i) => {
        lines.push(`### Attempt ${omitted + 1 + i} — ${r.outcome ?? r.status} (${r.profile ?? "(unknown)"}, ${when(r.started_at, now)})`);
        if (r.summary?.trim()) lines.push(cap(r.summary));
        if (r.error?.trim()) lines.push(`_error_: ${cap(r.error)}`);
        if (r.metadata) lines.push(`_metadata_: \`${cap(pyJson(JSON.parse(r.metadata)))}\``);
        lines.push("");
      });
    }
    parentResults(ctx, id, now, lines);
    roleHistory(ctx, t, now, lines);
    const comments = ctx.db.prepare("SELECT author, body, created_at FROM task_comments WHERE task_id = ? ORDER BY id").all(id) as {
      author: string;
      body: string;
      created_at: number;
    }[];
    const omittedC = Math.max(0, comments.length - MAX_COMMENTS);
    const shownC = comments.slice(omittedC);
    if (shownC.length > 0) {
      lines.push("## Comment thread");
      if (omittedC) lines.push(`_(${omittedC} earlier comment${omittedC !== 1 ? "s" : ""} omitted; showing most recent ${shownC.length})_`);
      for (const c of shownC)
        lines.push(`comment from worker \`${(c.author ?? "").replace(/`/g, "")}\` at ${when(c.created_at, now)}:`, cap(c.body, MAX_COMMENT), "");
    }
    ctx.out(`${lines.join("\n").trimEnd()}\n`);
  },
};

function parentResults(ctx: Parameters<Verb["run"]>[0], id: string, now: number, lines: string[]): void {
  const parents = (ctx.db.prepare("SELECT parent_id FROM task_links WHERE child_id = ? ORDER BY parent_id").all(id) as { parent_id: string }[]).map(
    (r) => r.parent_id,
  );
  let header = false;
  for (const pid of parents) {
    const p = getTask(ctx.db, pid);
    if (!p || p.status !== "done") continue;
    const run = ctx.db.prepare("SELECT * FROM task_runs WHERE task_id = ? AND outcome = 'completed' ORDER BY started_at DESC, id DESC LIMIT 1").get(pid) as
      | RunRow
      | undefined;
    if (!header) {
      lines.push(
        "## Parent task results",
        "_Handoffs from upstream tasks, captured when each parent completed (see age below). These are point-in-time snapshots, not live state — if a result drives your current work and it's not recent, re-verify against the source before acting on it as current._",
      );
      header = true;
    }
    const done = run?.ended_at ?? p.completed_at;
    const age = relativeAge(done ?? null, now);
    lines.push(`### ${pid}${age ? ` (completed ${age})` : ""}`);
    if (run?.summary?.trim()) lines.push(cap(run.summary));
    else if (p.result) lines.push(cap(p.result));
    else lines.push("(no result recorded)");
    if (run?.metadata) lines.push(`_metadata_: \`${cap(pyJson(JSON.parse(run.metadata)))}\``);
    lines.push("");
  }
}

function roleHistory(ctx: Parameters<Verb["run"]>[0], t: TaskRow, now: number, lines: string[]): void {
  if (!t.assignee) return;
  const rows = ctx.db
    .prepare(
      "SELECT t.id, t.title, r.summary, r.ended_at FROM task_runs r JOIN tasks t ON r.task_id = t.id WHERE r.profile = ? AND r.task_id != ? AND r.outcome = 'completed' ORDER BY r.ended_at DESC LIMIT 5",
    )
    .all(t.assignee, t.id) as { id: string; title: string; summary: string | null; ended_at: number }[];
  if (rows.length === 0) return;
  lines.push(`## Recent work by @${t.assignee}`);
  for (const r of rows) {
    const first = (r.summary ?? "").trim().split("\n")[0]?.slice(0, 200) || "(no summary)";
    lines.push(`- ${r.id} — ${r.title} (${when(r.ended_at, now)}): ${first}`);
  }
  lines.push("");
}
