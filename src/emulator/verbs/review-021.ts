// The review hand-off as Hermes 0.21.3 has it (kanban.py _cmd_request_review/_cmd_request_changes/
// _cmd_reopen_review; kanban_db.py request_review, request_changes, reopen_review_task), for the 0.21 mode:
// - request-review: `running`/`ready` → `review`, its parents done; a running task under a claim only
//   for its own run (HERMES_KANBAN_TASK + HERMES_KANBAN_RUN_ID) or with `--force`; `--reviewer` reassigns
//   the task; summary and `--metadata` land on the run (its deliverables staged like complete's); the
//   event names implementer and reviewer.
// - reopen-review: `review` → `ready` (`todo` while parents are open), back to the implementer the
//   hand-off named; the `CHANGES REQUESTED:` comment follows the transition (0.20: before it).
// - request-changes closes a reviewer's run — a run claimed from `review`, which only the dispatcher
//   claims (a CLI `claim` takes `ready` tasks): through the CLI it refuses with the board's reason.
import { EmuExit, fail } from "../io.js";
import { addComment, addEvent, endRun, fencedOut, getTask, parentsOpen, profileAuthor, synthesizeRun, workerRunId } from "../model.js";
import { parseMetadata, stageArtifacts } from "./complete.js";
import { scopeGuard } from "./line021.js";
import { goalGate } from "./line0215.js";
import { type Verb, list, prog, str, tx } from "./types.js";

const LIVE_CLAIM =
  "task is running under a live claim; pass expected_run_id (worker ownership) or force=True (explicit operator override) instead of clearing the live run's claim";

export const requestReview021: Verb = {
  spec: {
    prog: prog("request-review"),
    options: [
      { flag: "--summary", dest: "summary", kind: "value" },
      { flag: "--reviewer", dest: "reviewer", kind: "value" },
      { flag: "--metadata", dest: "metadata", kind: "value" },
      { flag: "--force", dest: "force", kind: "flag" },
    ],
    positionals: [{ dest: "task_id", nargs: 1 }],
  },
  run(ctx, v) {
    const id = str(v, "task_id") ?? "";
    const summary = str(v, "summary")?.trim() || null;
    const metadata = parseMetadata(str(v, "metadata"));
    scopeGuard(ctx, id);
    // 0.21.4+: the goal judge sees every terminal hand-off, the review one included (#100954).
    const judged = goalGate(ctx, id, "review handoff");
    if (judged) fail(ctx, judged);
    const run = workerRunId(ctx.env, id);
    const reviewer = str(v, "reviewer")?.trim().toLowerCase() || null;
    const outcome = tx(ctx, (): { error: string } | { summary: string | null } => {
      const t = getTask(ctx.db, id);
      if (t && parentsOpen(ctx.db, id)) return { error: "parent dependencies are not satisfied" };
      if (!t) return { error: "task not found" };
      if (run === null && v.force !== true && t.status === "running" && t.claim_lock !== null) return { error: LIVE_CLAIM };
      if (!["running", "ready"].includes(t.status) || (run !== null && t.current_run_id !== run) || fencedOut(ctx.env, t))
        return { error: "task is not in running/ready (or expected_run_id did not match the current run)" };
      const staged = metadata ? stageArtifacts(ctx, t, metadata, "kanban_request_review") : { staged: [] };
      if ("error" in staged) throw new EmuExit(1, "", `${staged.error}\n`);
      ctx.db
        .prepare(
          `UPDATE tasks SET status = 'review', claim_lock = NULL, claim_expires = NULL, worker_pid = NULL${reviewer ? ", assignee = ?" : ""} WHERE id = ?`,
        )
        .run(...(reviewer ? [reviewer, id] : [id]));
      const json = metadata ? JSON.stringify(metadata) : null;
      let runId = endRun(ctx.db, t, ctx.now, { status: "review", outcome: "review_requested", summary, metadata: json });
      if (runId === null && (summary || metadata)) runId = synthesizeRun(ctx, t, "review_requested", summary, json);
      const first = (summary ?? "").split("\n")[0]?.slice(0, 400) ?? "";
      const arts = Array.isArray(metadata?.artifacts)
        ? (metadata.artifacts as unknown[]).filter((x): x is string => typeof x === "string" && x.trim() !== "")
        : [];
      addEvent(
        ctx.db,
        id,
        "review_requested",
        { summary: first || null, implementer: t.assignee, reviewer, ...(arts.length ? { artifacts: arts.map((a) => a.trim()) } : {}) },
        ctx.now,
        runId,
      );
      const persisted = ctx.db.prepare("SELECT summary FROM task_runs WHERE task_id = ? ORDER BY id DESC LIMIT 1").get(id) as
        | { summary: string | null }
        | undefined;
      return { summary: persisted?.summary ?? null };
    });
    if ("error" in outcome) fail(ctx, `cannot request review for ${id}: ${outcome.error}`);
    ctx.out(`Requested review for ${id}${outcome.summary ? `: ${outcome.summary}` : ""}\n`);
  },
};

export const reopenReview021: Verb = {
  spec: { prog: prog("reopen-review"), options: [{ flag: "--reason", dest: "reason", kind: "value" }], positionals: [{ dest: "task_ids", nargs: "+" }] },
  run(ctx, v) {
    const reason = str(v, "reason")?.trim() || null;
    const failed: string[] = [];
    for (const id of list(v, "task_ids")) {
      const done = tx(ctx, () => {
        const t = getTask(ctx.db, id);
        if (!t || t.status !== "review") return false;
        const status = parentsOpen(ctx.db, id) ? "todo" : "ready";
        const handoff = ctx.db.prepare("SELECT payload FROM task_events WHERE task_id = ? AND kind = 'review_requested' ORDER BY id DESC LIMIT 1").get(id) as
          | { payload: string | null }
          | undefined;
        const named = (handoff?.payload ? (JSON.parse(handoff.payload) as { implementer?: unknown }) : {}).implementer;
        const implementer = typeof named === "string" && named.trim() ? named : null;
        ctx.db
          .prepare(
            `UPDATE tasks SET status = ?, current_run_id = NULL, claim_lock = NULL, claim_expires = NULL, worker_pid = NULL${implementer ? ", assignee = ?" : ""} WHERE id = ?`,
          )
          .run(...(implementer ? [status, implementer, id] : [status, id]));
        const payload = { status, ...(implementer ? { implementer } : {}) };
        addEvent(ctx.db, id, "review_reopened", implementer || status !== "ready" ? payload : null, ctx.now);
        if (reason) addComment(ctx.db, id, profileAuthor(ctx.env), `CHANGES REQUESTED: ${reason}`, ctx.now);
        return true;
      });
      if (done) ctx.out(`Reopened ${id}${reason ? `: ${reason}` : ""}\n`);
      else failed.push(`cannot reopen ${id} (not in review?)`);
    }
    if (failed.length > 0) throw new EmuExit(1, "", `${failed.join("\n")}\n`);
  },
};

export const requestChanges: Verb = {
  spec: {
    prog: prog("request-changes"),
    options: [],
    positionals: [
      { dest: "task_id", nargs: 1 },
      { dest: "reason", nargs: "+" },
    ],
  },
  run(ctx, v) {
    const id = str(v, "task_id") ?? "";
    scopeGuard(ctx, id);
    const reason = list(v, "reason").join(" ").trim();
    const run = workerRunId(ctx.env, id);
    const t = getTask(ctx.db, id);
    const why = !reason
      ? "reason is required"
      : !t
        ? "task not found"
        : t.status !== "running" || t.current_run_id === null
          ? "task is not in an active review run"
          : run !== null && t.current_run_id !== run
            ? "run_id mismatch"
            : "active run was not claimed from review";
    fail(ctx, `cannot request changes for ${id}: ${why}`);
  },
};
