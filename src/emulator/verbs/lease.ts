// claim, heartbeat, comment.
import { mkdirSync } from "node:fs";
import { hostname } from "node:os";
import { join } from "node:path";
import { EmuExit, fail, namedClaims } from "../io.js";
import { shownPath } from "../remote.js";
import { addComment, addEvent, fencedOut, getTask, parentsOpen, profileAuthor } from "../model.js";
import { type Verb, num, prog, str, tx } from "./types.js";
import { DEFAULT_CLAIM_TTL, claimerOf, expectedStatusRefusal } from "./named-claims.js";
import { scopeGuard } from "./line021.js";

export const claim: Verb = {
  spec: { prog: prog("claim"), options: [{ flag: "--ttl", dest: "ttl", kind: "value", type: "int" }], positionals: [{ dest: "task_id", nargs: 1 }] },
  run(ctx, v) {
    const id = str(v, "task_id") ?? "";
    const ttl = Math.max(1, num(v, "ttl") ?? DEFAULT_CLAIM_TTL);
    // Upstream: a named claimer is the lock (verbs/named-claims.ts); else the claiming process's pid — under
    // --call-server each call has a pid of its own (serve.ts).
    const claimer = namedClaims(ctx.env) ? claimerOf(ctx, v) : null;
    const lock = claimer ?? `${hostname()}:${ctx.env.HERMES_EMULATOR_CALL_PID ?? process.pid}`;
    const res = tx(ctx, () => {
      const t = getTask(ctx.db, id);
      if (!t) return { error: `no such task: ${id}` };
      // Upstream: the same claimer claiming again is a replay (a lost acknowledgement): no second run.
      if (claimer !== null && t.status === "running" && t.claim_lock === claimer)
        return { ws: t.workspace_path ?? join(ctx.loc.workspaces, id), worktreeWithoutPath: t.workspace_kind === "worktree" && !t.workspace_path };
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
      addEvent(ctx.db, id, "claimed", { lock, expires, run_id: runId, ...(namedClaims(ctx.env) ? { actor: lock } : {}) }, ctx.now, runId);
      if (t.workspace_kind === "worktree" && !t.workspace_path) {
        ctx.db.prepare("UPDATE tasks SET workspace_path = NULL WHERE id = ?").run(id);
        return { ws, worktreeWithoutPath: true };
      }
      return { ws, worktreeWithoutPath: false };
    });
    if ("error" in res) fail(ctx, res.error ?? "");
    // kanban.py _cmd_claim: the claim is committed, then resolve_workspace raises — exit 1, the task
    // stays `running` under the claim's lock (recorded on real 0.20.0: a `worktree` task on a board with
    // no default_workdir).
    if (res.worktreeWithoutPath)
      fail(
        ctx,
        `kanban: task ${id} has workspace_kind=worktree but no workspace_path, and board '${ctx.loc.slug}' has no default_workdir set. Set a board default workdir (a git repo) or create the task with --workspace worktree:<absolute-repo-path>.`,
      );
    mkdirSync(res.ws, { recursive: true });
    ctx.out(`Claimed ${id}\nWorkspace: ${shownPath(ctx.env, res.ws)}\n`);
  },
};

/**
 * `heartbeat`. Upstream (verbs/named-claims.ts): `--claimer` names the holder — anyone else is refused and
 * nothing changes; the holder's heartbeat renews the claim to now + `--ttl` (default 900), never
 * shortening it; `--ttl` without a claimer is refused (exit 2).
 */
export const heartbeat: Verb = {
  spec: { prog: prog("heartbeat"), options: [{ flag: "--note", dest: "note", kind: "value" }], positionals: [{ dest: "task_id", nargs: 1 }] },
  run(ctx, v) {
    const id = str(v, "task_id") ?? "";
    const note = str(v, "note");
    const up = namedClaims(ctx.env);
    const ttl = up ? num(v, "ttl") : null;
    const claimer = up ? claimerOf(ctx, v) : null;
    if (ttl !== null && claimer === null) throw new EmuExit(2, "", "kanban heartbeat: --ttl requires --claimer: only a named claim can be renewed\n");
    scopeGuard(ctx, id);
    const ok = tx(ctx, () => {
      const t = getTask(ctx.db, id);
      if (!t || t.status !== "running" || fencedOut(ctx.env, t)) return `cannot heartbeat ${id} (not running?)`;
      if (claimer !== null && t.claim_lock !== claimer) return `cannot heartbeat ${id}: claim not held by ${claimer} (claim lost)`;
      ctx.db.prepare("UPDATE tasks SET last_heartbeat_at = ? WHERE id = ?").run(ctx.now, id);
      if (t.current_run_id !== null) ctx.db.prepare("UPDATE task_runs SET last_heartbeat_at = ? WHERE id = ?").run(ctx.now, t.current_run_id);
      if (claimer !== null) {
        const expires = Math.max(t.claim_expires ?? 0, ctx.now + Math.max(1, ttl ?? DEFAULT_CLAIM_TTL));
        ctx.db.prepare("UPDATE tasks SET claim_expires = ? WHERE id = ?").run(expires, id);
        if (t.current_run_id !== null) ctx.db.prepare("UPDATE task_runs SET claim_expires = ? WHERE id = ?").run(expires, t.current_run_id);
      }
      const payload = { ...(note ? { note } : {}), ...(claimer !== null ? { actor: claimer } : {}) };
      addEvent(ctx.db, id, "heartbeat", Object.keys(payload).length ? payload : null, ctx.now, t.current_run_id);
      return null;
    });
    if (ok !== null) fail(ctx, ok);
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
      body = body.slice(0, Math.max(0, maxLen - marker.length)).trimEnd() + marker;
    }
    const ok = tx(ctx, () => {
      const t = getTask(ctx.db, id);
      if (!t) return `kanban: unknown task ${id}`;
      const refused = expectedStatusRefusal(t, "comment", v);
      if (refused) return refused;
      addComment(ctx.db, id, author, body, ctx.now);
      return null;
    });
    if (ok !== null) fail(ctx, ok);
    ctx.out(`Comment added to ${id}\n`);
  },
};
