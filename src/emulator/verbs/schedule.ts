// schedule (Hermes 0.20.0, recorded on the real CLI): park a task "waiting on time, not human input".
// Like block: the SCHEDULED: comment is written before the transition is attempted (a refused call keeps
// it); running, ready and blocked tasks go to `scheduled` (a running one's run closes `scheduled`, a
// task without a run gets a zero-length one when a reason is given); run-id fenced; `unblock` returns
// the task to ready; the dispatcher never promotes it, and it is no block kind (no unblock-loop breaker).
import { EmuExit } from "../io.js";
import { addComment, addEvent, endRun, fencedOut, getTask, profileAuthor, synthesizeRun } from "../model.js";
import { type Verb, list, prog, str, tx } from "./types.js";
import { liveClaimRefusal } from "./named-claims.js";
import { scopeRefusal } from "./line021.js";

export const schedule: Verb = {
  spec: {
    prog: prog("schedule"),
    options: [{ flag: "--ids", dest: "ids", kind: "multi" }],
    positionals: [
      { dest: "task_id", nargs: 1 },
      { dest: "reason", nargs: "*" },
    ],
  },
  run(ctx, v) {
    const reason = list(v, "reason").join(" ").trim();
    const errors: string[] = [];
    for (const id of [str(v, "task_id") ?? "", ...list(v, "ids")]) {
      const error = tx(ctx, () => {
        const t = getTask(ctx.db, id);
        if (!t) return `kanban: unknown task ${id}`;
        // Upstream (#112889): the live-claim fence, checked before anything is written.
        const refused = liveClaimRefusal(ctx, t, "schedule", v);
        if (refused) return refused;
        if (reason) addComment(ctx.db, id, profileAuthor(ctx.env), `SCHEDULED: ${reason}`, ctx.now);
        const outOfScope = scopeRefusal(ctx.env, id);
        if (outOfScope) return outOfScope;
        if (!["running", "ready", "blocked"].includes(t.status) || fencedOut(ctx.env, t)) return `cannot schedule ${id}`;
        let runId = endRun(ctx.db, t, ctx.now, { status: "scheduled", outcome: "scheduled", summary: reason || null });
        if (runId === null && reason) runId = synthesizeRun(ctx, t, "scheduled", reason);
        ctx.db.prepare("UPDATE tasks SET status = 'scheduled' WHERE id = ?").run(id);
        addEvent(ctx.db, id, "scheduled", { reason: reason || null }, ctx.now, runId);
        return null;
      });
      if (error === null) ctx.out(`Scheduled ${id}${reason ? `: ${reason}` : ""}\n`);
      else errors.push(error);
    }
    if (errors.length > 0) throw new EmuExit(1, "", `${errors.join("\n")}\n`);
  },
};
