// HERMES_EMULATOR_COMPAT=0.21.6: Hermes 0.21.6 (tag v0.21.6, upstream 818c13be; what users install since
// 2026-10-08), on top of the 0.21.5 mode. Its `kanban` parser is NousResearch/hermes-agent's
// hermes_cli/kanban_parser.py at commit ee272988f7576e9bf87d3e785290508c6ff24b0a (the newest one stored):
// - `reopen <ids> [--reason R] [--landing {blocked,ready,todo}] [--kind K]` — "Undo a completion: reopen a
//   done task (done -> blocked/todo/ready)". Semantics after the upstream PR that adds it (#103242, "add
//   reopen_task() to undo a completion"): compare-and-set on `done` (archived is not reopened); the
//   completion evidence cleared (completed_at, result) and the failure and block counters reset; the
//   reason recorded first as a `REOPEN: <reason>` comment (the parser: "recorded as a comment before
//   reopening", as `unblock` does with `UNBLOCK:`); `blocked` writes a sticky `blocked` event with the kind
//   (default needs_input), `todo` waits behind dependencies, `ready` is ready (todo while a parent is open);
//   a `reopened` event carries landing, reason and kind; children that became ready wait again. The
//   output lines and the refusal are the emulator's words (no recording of 0.21.6 exists).
// - `repair [--json]` (0.21.3 has it too: verbs/repair.ts, with the corruption switch).
// - upstream bug #101785 (open on 0.21.x): `complete` of a **blocked** task exits 0 and its children are
//   promoted at once (kanban_db.complete_task's `recompute_ready`) — an unfenced close only: a close
//   fenced on a run (HERMES_KANBAN_RUN_ID) that is no longer the task's current one is refused as before.
// - the verbs of that parser: `reopen` after `unblock`; no `authorize-existing-pr` (not in it).
import { fail, v021 } from "../io.js";
import { addComment, addEvent, getTask, parentsOpen, profileAuthor } from "../model.js";
import { repair } from "./repair.js";
import { type Verb, list, prog, str, tx } from "./types.js";

export function v0216(env: NodeJS.ProcessEnv): boolean {
  return env.HERMES_EMULATOR_COMPAT === "0.21.6";
}

const LANDINGS = ["blocked", "ready", "todo"] as const;
const KINDS = ["capability", "dependency", "needs_input", "transient"] as const;

export const reopen: Verb = {
  spec: {
    prog: prog("reopen"),
    options: [
      { flag: "--reason", dest: "reason", kind: "value" },
      { flag: "--landing", dest: "landing", kind: "value", choices: LANDINGS },
      { flag: "--kind", dest: "kind", kind: "value", choices: KINDS },
    ],
    positionals: [{ dest: "task_ids", nargs: "+" }],
  },
  run(ctx, v) {
    const reason = str(v, "reason")?.trim() || null;
    const landing = (str(v, "landing") ?? "ready") as (typeof LANDINGS)[number];
    const kind = landing === "blocked" ? (str(v, "kind") ?? "needs_input") : null;
    const author = profileAuthor(ctx.env);
    const failed: string[] = [];
    for (const id of list(v, "task_ids")) {
      const landed = tx(ctx, () => {
        const t = getTask(ctx.db, id);
        if (!t || t.status !== "done") return null;
        if (reason) addComment(ctx.db, id, author, `REOPEN: ${reason}`, ctx.now);
        const status = landing === "blocked" ? "blocked" : landing === "todo" || parentsOpen(ctx.db, id) ? "todo" : "ready";
        ctx.db
          .prepare(
            "UPDATE tasks SET status = ?, completed_at = NULL, result = NULL, consecutive_failures = 0, last_failure_error = NULL, block_kind = ?, block_recurrences = 0, claim_lock = NULL, claim_expires = NULL, current_run_id = NULL, worker_pid = NULL WHERE id = ? AND status = 'done'",
          )
          .run(status, kind, id);
        addEvent(ctx.db, id, "reopened", { landing: status, reason, ...(kind ? { kind } : {}) }, ctx.now);
        // The veto is sticky: the newest blocked/unblocked event decides, as for a block (recomputeReady).
        if (kind) addEvent(ctx.db, id, "blocked", { reason, kind }, ctx.now);
        // Children that went ready on this completion wait for it again.
        const children = ctx.db
          .prepare("SELECT c.id FROM task_links l JOIN tasks c ON c.id = l.child_id WHERE l.parent_id = ? AND c.status = 'ready'")
          .all(id) as {
          id: string;
        }[];
        for (const c of children) ctx.db.prepare("UPDATE tasks SET status = 'todo' WHERE id = ?").run(c.id);
        return status;
      });
      if (landed === null) failed.push(`cannot reopen ${id} (not done?)`);
      else ctx.out(`Reopened ${id} -> ${landed}${reason ? `: ${reason}` : ""}\n`);
    }
    if (failed.length > 0) fail(ctx, failed.join("\n"));
  },
};

/** The verb table of the 0.21 line: `repair` everywhere on it; 0.21.6 adds `reopen` and drops `authorize-existing-pr`. */
export function line0216Table(table: Record<string, Verb>, env: NodeJS.ProcessEnv): Record<string, Verb> {
  const out: Record<string, Verb> = { ...table };
  if (v021(env)) out.repair = repair;
  if (!v0216(env)) return out;
  out.reopen = reopen;
  delete out["authorize-existing-pr"];
  return out;
}
