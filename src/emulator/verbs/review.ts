// request-review and reopen-review as Hermes 0.20.0 has them (hermes_cli/kanban.py _cmd_request_review,
// _cmd_reopen_review; kanban_db.py request_review, reopen_review_task): `running`/`ready` → `review`
// fenced on the worker's run (HERMES_KANBAN_TASK + HERMES_KANBAN_RUN_ID), the run ends
// `review_requested`, the reviewer is informational; a reopen with a reason comments
// `CHANGES REQUESTED: <reason>` first, then `review` → `ready` (or `todo` while parents are open).
import { EmuExit, fail, legacyExitCodes } from "../io.js";
import { addComment, addEvent, endRun, fencedOut, getTask, parentsOpen, profileAuthor, synthesizeRun } from "../model.js";
import { type Verb, list, prog, str, tx } from "./types.js";

export const requestReview: Verb = {
  spec: {
    prog: prog("request-review"),
    options: [
      { flag: "--summary", dest: "summary", kind: "value" },
      { flag: "--reviewer", dest: "reviewer", kind: "value" },
    ],
    positionals: [{ dest: "task_id", nargs: 1 }],
  },
  run(ctx, v) {
    const id = str(v, "task_id") ?? "";
    const summary = str(v, "summary")?.trim() || null;
    const reviewer = str(v, "reviewer");
    const ok = tx(ctx, () => {
      const t = getTask(ctx.db, id);
      if (!t || !["running", "ready"].includes(t.status) || fencedOut(ctx.env, t)) return false;
      const implementer = t.assignee;
      ctx.db.prepare("UPDATE tasks SET status = 'review', claim_lock = NULL, claim_expires = NULL, worker_pid = NULL WHERE id = ?").run(id);
      let runId = endRun(ctx.db, t, ctx.now, { status: "review", outcome: "review_requested", summary });
      if (runId === null && summary) runId = synthesizeRun(ctx, t, "review_requested", summary);
      const first = (summary ?? "").trim().split("\n")[0]?.slice(0, 400) ?? "";
      addEvent(ctx.db, id, "review_requested", { summary: first || null, implementer, reviewer }, ctx.now, runId);
      return true;
    });
    if (!ok) fail(ctx, `cannot request review for ${id} (not running/ready?)`);
    ctx.out(`Requested review for ${id}${summary ? `: ${summary}` : ""}\n`);
  },
};

export const reopenReview: Verb = {
  spec: { prog: prog("reopen-review"), options: [{ flag: "--reason", dest: "reason", kind: "value" }], positionals: [{ dest: "task_ids", nargs: "*" }] },
  run(ctx, v) {
    const ids = list(v, "task_ids");
    if (ids.length === 0) fail(ctx, "at least one task_id is required");
    const reason = str(v, "reason")?.trim() || null;
    const author = profileAuthor(ctx.env);
    const failed: string[] = [];
    for (const id of ids) {
      const done = tx(ctx, () => {
        if (reason) addComment(ctx.db, id, author, `CHANGES REQUESTED: ${reason}`, ctx.now);
        const t = getTask(ctx.db, id);
        if (!t || t.status !== "review") return false;
        const status = parentsOpen(ctx.db, id) ? "todo" : "ready";
        ctx.db
          .prepare(
            "UPDATE tasks SET status = ?, current_run_id = NULL, claim_lock = NULL, claim_expires = NULL, worker_pid = NULL, consecutive_failures = 0, last_failure_error = NULL WHERE id = ?",
          )
          .run(status, id);
        addEvent(ctx.db, id, "review_reopened", status !== "ready" ? { status } : null, ctx.now);
        return true;
      });
      if (done) ctx.out(`Reopened ${id}${reason ? `: ${reason}` : ""}\n`);
      else {
        failed.push(id);
        ctx.err(`cannot reopen ${id} (not in review?)\n`);
      }
    }
    if (failed.length > 0) throw new EmuExit(legacyExitCodes(ctx.env) ? 0 : 1, "", "");
  },
};
