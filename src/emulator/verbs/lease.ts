// claim, heartbeat, comment, context.
import { mkdirSync } from "node:fs";
import { hostname } from "node:os";
import { join } from "node:path";
import { EmuExit, fail } from "../io.js";
import { type RunRow, type TaskRow, addComment, addEvent, fencedOut, getTask, parentsOpen, profileAuthor } from "../model.js";
import { type Verb, num, prog, str, tx } from "./types.js";

export const claim: Verb = {
  spec: { prog: prog("claim"), options: [{ flag: "--ttl", dest: "ttl", kind: "value", type: "int" }], positionals: [{ dest: "task_id", nargs: 1 }] },
  run(ctx, v) {
    const id = str(v, "task_id") ?? "";
    const ttl = Math.max(1, num(v, "ttl") ?? 900);
    const lock = `${hostname()}:${process.pid}`;
    const res = tx(ctx, () => {
      const t = getTask(ctx.db, id);
      if (!t) return { error: `no such task: ${id}` };
      if (t.status !== "ready" || t.claim_lock !== null) return { error: `cannot claim ${id}: status=${t.status} lock=${t.claim_lock ?? "(none)"}` };
      if (parentsOpen(ctx.db, id)) {
        ctx.db.prepare("UPDATE tasks SET status = 'todo' WHERE id = ?").run(id);
        addEvent(ctx.db, id, "claim_rejected", { reason: "parents_not_done" }, ctx.now);
        return { error: `cannot claim ${id}: status=todo lock=(none)` };
      }
      const ws = t.workspace_kind === "dir" && t.workspace_path ? t.workspace_path : join(ctx.loc.workspaces, id);
      const expires = ctx.now + ttl;
      const run = ctx.db
        .prepare("INSERT INTO task_runs (task_id, profile, status, claim_lock, claim_expires, started_at) VALUES (?, ?, 'running', ?, ?, ?)")
        .run(id, t.assignee, lock, expires, ctx.now);
      const runId = Number(run.lastInsertRowid);
      ctx.db
        .prepare(
          "UPDATE tasks SET status = 'running', claim_lock = ?, claim_expires = ?, current_run_id = ?, started_at = COALESCE(started_at, ?), workspace_path = ? WHERE id = ?",
        )
        .run(lock, expires, runId, ctx.now, ws, id);
      addEvent(ctx.db, id, "claimed", { lock, expires, run_id: runId }, ctx.now, runId);
      return { ws };
    });
    if ("error" in res) fail(ctx, res.error ?? "");
    mkdirSync(res.ws, { recursive: true });
    ctx.out(`Claimed ${id}\nWorkspace: ${res.ws}\n`);
  },
};

export const heartbeat: Verb = {
  spec: { prog: prog("heartbeat"), options: [{ flag: "--note", dest: "note", kind: "value" }], positionals: [{ dest: "task_id", nargs: 1 }] },
  run(ctx, v) {
    const id = str(v, "task_id") ?? "";
    const note = str(v, "note");
    const ok = tx(ctx, () => {
      const t = getTask(ctx.db, id);
      if (!t || t.status !== "running" || fencedOut(ctx.env, t)) return false;
      ctx.db.prepare("UPDATE tasks SET last_heartbeat_at = ? WHERE id = ?").run(ctx.now, id);
      if (t.current_run_id !== null) ctx.db.prepare("UPDATE task_runs SET last_heartbeat_at = ? WHERE id = ?").run(ctx.now, t.current_run_id);
      addEvent(ctx.db, id, "heartbeat", note ? { note } : null, ctx.now, t.current_run_id);
      return true;
    });
    if (!ok) fail(ctx, `cannot heartbeat ${id} (not running?)`);
    ctx.out(`Heartbeat recorded for ${id}\n`);
  },
};

export const comment: Verb = {
  spec: {
    prog: prog("comment"),
    options: [
      { flag: "--author", dest: "author", kind: "value" },
      { flag: "--max-len", dest: "max_len", kind: "value", type: "int", metavar: "MAX_LEN" },
    ],
    positionals: [
      { dest: "task_id", nargs: 1 },
      { dest: "text", nargs: "+" },
    ],
  },
  run(ctx, v) {
    const id = str(v, "task_id") ?? "";
    const maxLen = num(v, "max_len");
    if (maxLen !== null && maxLen <= 0) throw new EmuExit(2, "", "kanban: --max-len must be positive\n");
    let body = ((v.text as string[] | null) ?? []).join(" ").trim();
    const rawAuthor = str(v, "author");
    if (rawAuthor !== null && rawAuthor !== "" && rawAuthor.trim() === "") fail(ctx, "kanban: comment author is required");
    const author = rawAuthor?.trim() || profileAuthor(ctx.env);
    if (!body) fail(ctx, "kanban: comment body is required");
    if (maxLen !== null && body.length > maxLen) {
      const marker = `\n\n[trimmed to ${maxLen} chars by --max-len]`;
      body = body.slice(0, Math.max(0, maxLen - marker.length)) + marker;
    }
    const ok = tx(ctx, () => {
      if (!getTask(ctx.db, id)) return false;
      addComment(ctx.db, id, author, body, ctx.now);
      return true;
    });
    if (!ok) fail(ctx, `kanban: unknown task ${id}`);
    ctx.out(`Comment added to ${id}\n`);
  },
};

export const context: Verb = {
  spec: { prog: prog("context"), options: [], positionals: [{ dest: "task_id", nargs: 1 }] },
  run(ctx, v) {
    const id = str(v, "task_id") ?? "";
    const t = getTask(ctx.db, id);
    if (!t) fail(ctx, `kanban: unknown task ${id}`);
    const lines = [
      `# Kanban task ${t.id}: ${t.title}`,
      "",
      `Assignee: ${t.assignee ?? "-"}`,
      `Status:   ${t.status}`,
      `Workspace: ${t.workspace_kind} @ ${t.workspace_path ?? "(unresolved)"}`,
      "",
    ];
    if (t.body) lines.push("## Body", t.body.slice(0, 8192), "");
    const prior = (ctx.db.prepare("SELECT * FROM task_runs WHERE task_id = ? AND ended_at IS NOT NULL ORDER BY id DESC LIMIT 10").all(id) as RunRow[]).reverse();
    if (prior.length > 0) {
      lines.push("## Prior attempts on this task");
      for (const r of prior) lines.push(`- run ${r.id} (${r.profile ?? "-"}): ${r.outcome ?? r.status}${r.summary ? ` — ${r.summary.slice(0, 4096)}` : ""}${r.error ? ` [${r.error}]` : ""}`);
      lines.push("");
    }
    const parents = ctx.db.prepare("SELECT p.* FROM task_links l JOIN tasks p ON p.id = l.parent_id WHERE l.child_id = ? ORDER BY p.id").all(id) as TaskRow[];
    const done = parents.filter((p) => p.status === "done");
    if (done.length > 0) {
      lines.push("## Parent task results", "_Handoffs from upstream tasks, captured when each parent completed._");
      for (const p of done) {
        const run = ctx.db.prepare("SELECT * FROM task_runs WHERE task_id = ? AND outcome = 'completed' ORDER BY id DESC LIMIT 1").get(p.id) as RunRow | undefined;
        lines.push(`### ${p.id} (completed)`, (run?.summary ?? p.result ?? "").slice(0, 4096));
        if (run?.metadata) lines.push(`_metadata_: \`${JSON.stringify(JSON.parse(run.metadata))}\``);
      }
      lines.push("");
    }
    const comments = (ctx.db.prepare("SELECT author, body FROM task_comments WHERE task_id = ? ORDER BY id DESC LIMIT 30").all(id) as { author: string; body: string }[]).reverse();
    if (comments.length > 0) {
      lines.push("## Comment thread");
      for (const c of comments) lines.push(`**${c.author}**: ${c.body.slice(0, 2048)}`);
      lines.push("");
    }
    ctx.out(`${lines.join("\n")}\n`);
  },
};
