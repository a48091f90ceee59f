// dispatch: one dispatcher pass. Reclaims every expired CLI claim (no worker pid → always),
// promotes, and reports what it would spawn. The emulator never spawns Hermes workers.
import { type TaskRow, addEvent, endRun, recomputeReady } from "../model.js";
import { isProfile } from "../store.js";
import { namedClaims, v021 } from "../io.js";
import { activePrGuarded, dispatchAllowed, v0215 } from "./line0215.js";
import { type Verb, num, prog, tx } from "./types.js";

/** DEFAULT_FAILURE_LIMIT */
const FAILURE_LIMIT = 2;

export const dispatch: Verb = {
  spec: {
    prog: prog("dispatch"),
    options: [
      { flag: "--dry-run", dest: "dry", kind: "flag" },
      { flag: "--json", dest: "json", kind: "flag" },
    ],
    positionals: [],
  },
  run(ctx, v) {
    const result = tx(ctx, () => {
      let reclaimed = 0;
      const autoBlocked: string[] = [];
      // Upstream (#111446, verbs/named-claims.ts): every automatic reclaim counts as a failure; at the limit
      // (the task's max_retries, else --failure-limit, default 2) the task gives up: blocked, `gave_up`.
      const counts = namedClaims(ctx.env);
      if (!v.dry) {
        const stale = ctx.db
          .prepare("SELECT * FROM tasks WHERE status = 'running' AND claim_expires IS NOT NULL AND claim_expires < ?")
          .all(ctx.now) as TaskRow[];
        for (const t of stale) {
          const runId = endRun(ctx.db, t, ctx.now, {
            status: "reclaimed",
            outcome: "reclaimed",
            error: `stale_lock=${t.claim_lock}`,
            metadata: JSON.stringify({ prev_pid: null, host_local: false, termination_attempted: false, terminated: false, sigkill: false }),
          });
          const failures = t.consecutive_failures + 1;
          const limit = t.max_retries ?? num(v, "failure_limit") ?? FAILURE_LIMIT;
          const gaveUp = counts && failures >= limit;
          if (counts)
            ctx.db.prepare("UPDATE tasks SET consecutive_failures = ?, last_failure_error = ? WHERE id = ?").run(failures, `stale_lock=${t.claim_lock}`, t.id);
          ctx.db.prepare("UPDATE tasks SET status = ? WHERE id = ?").run(gaveUp ? "blocked" : "ready", t.id);
          addEvent(
            ctx.db,
            t.id,
            "reclaimed",
            {
              stale_lock: t.claim_lock,
              worker_pid: null,
              claim_expires: t.claim_expires,
              last_heartbeat_at: t.last_heartbeat_at,
              now: ctx.now,
              host_local: false,
              heartbeat_stale: false,
              ...(v021(ctx.env) ? { retry_status: "ready" } : {}),
              prev_pid: null,
              termination_attempted: false,
              terminated: false,
              sigkill: false,
            },
            ctx.now,
            runId,
          );
          if (gaveUp) {
            addEvent(ctx.db, t.id, "gave_up", { failures, limit, error: `stale_lock=${t.claim_lock}` }, ctx.now, runId);
            autoBlocked.push(t.id);
          }
          reclaimed += 1;
        }
      }
      const promoted = v.dry ? 0 : recomputeReady(ctx.db, ctx.now);
      const ready = ctx.db.prepare("SELECT * FROM tasks WHERE status = 'ready' ORDER BY priority DESC, created_at ASC").all() as TaskRow[];
      const spawned: { task_id: string; assignee: string; workspace: string }[] = [];
      const unassigned: string[] = [];
      const nonspawnable: string[] = [];
      const guarded: [string, string][] = [];
      for (const t of ready) {
        if (!t.assignee) unassigned.push(t.id);
        else if (!isProfile(ctx.loc.root, t.assignee) || !dispatchAllowed(ctx, t.assignee)) nonspawnable.push(t.id);
        // 0.21.4+ (verbs/line0215.ts): after the profile check, so a bridge's lane is never guarded here.
        else if (activePrGuarded(ctx, t.id)) {
          guarded.push([t.id, "active_pr"]);
          if (!v.dry) addEvent(ctx.db, t.id, "respawn_guarded", { reason: "active_pr" }, ctx.now);
        } else spawned.push({ task_id: t.id, assignee: t.assignee, workspace: "" });
      }
      return {
        reclaimed,
        crashed: [],
        timed_out: [],
        stale: [],
        auto_blocked: autoBlocked,
        promoted,
        spawned,
        skipped_unassigned: unassigned,
        skipped_nonspawnable: nonspawnable,
        skipped_per_profile_capped: [],
        auto_assigned_default: [],
        ...(v0215(ctx.env) ? { respawn_guarded: guarded } : {}),
      };
    });
    if (v.json) {
      ctx.out(
        `${JSON.stringify(result, (_k, val: unknown) => val, 2).replace(/[^\x00-\x7f]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`)}\n`,
      );
      return;
    }
    const lines = [
      `Reclaimed:    ${result.reclaimed}`,
      "Crashed:      0",
      "Timed out:    0",
      "Stale:        0",
      `Auto-blocked: ${result.auto_blocked.length}`,
      `Promoted:     ${result.promoted}`,
      `Spawned:      ${result.spawned.length}`,
      ...result.spawned.map((s) => `  - ${s.task_id}  ->  ${s.assignee}  @ -${v.dry ? " (dry)" : ""}`),
    ];
    if (result.skipped_unassigned.length) lines.push(`Skipped (unassigned): ${result.skipped_unassigned.join(", ")}`);
    if (result.skipped_nonspawnable.length) lines.push(`Skipped (non-spawnable assignee — terminal lane, OK): ${result.skipped_nonspawnable.join(", ")}`);
    ctx.out(`${lines.join("\n")}\n`);
  },
};
