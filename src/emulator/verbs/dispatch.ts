// dispatch: one dispatcher pass. Reclaims every expired CLI claim (no worker pid → always),
// promotes, and reports what it would spawn. The emulator never spawns Hermes workers.
import { type TaskRow, addEvent, endRun, recomputeReady } from "../model.js";
import { isProfile } from "../store.js";
import { type Verb, prog, tx } from "./types.js";

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
          ctx.db.prepare("UPDATE tasks SET status = 'ready' WHERE id = ?").run(t.id);
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
              prev_pid: null,
              termination_attempted: false,
              terminated: false,
              sigkill: false,
            },
            ctx.now,
            runId,
          );
          reclaimed += 1;
        }
      }
      const promoted = v.dry ? 0 : recomputeReady(ctx.db, ctx.now);
      const ready = ctx.db.prepare("SELECT * FROM tasks WHERE status = 'ready' ORDER BY priority DESC, created_at ASC").all() as TaskRow[];
      const spawned: { task_id: string; assignee: string; workspace: string }[] = [];
      const unassigned: string[] = [];
      const nonspawnable: string[] = [];
      for (const t of ready) {
        if (!t.assignee) unassigned.push(t.id);
        else if (!isProfile(ctx.loc.root, t.assignee)) nonspawnable.push(t.id);
        else spawned.push({ task_id: t.id, assignee: t.assignee, workspace: "" });
      }
      return {
        reclaimed,
        crashed: [],
        timed_out: [],
        stale: [],
        auto_blocked: [],
        promoted,
        spawned,
        skipped_unassigned: unassigned,
        skipped_nonspawnable: nonspawnable,
        skipped_per_profile_capped: [],
        auto_assigned_default: [],
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
      "Auto-blocked: 0",
      `Promoted:     ${result.promoted}`,
      `Spawned:      ${result.spawned.length}`,
      ...result.spawned.map((s) => `  - ${s.task_id}  ->  ${s.assignee}  @ -${v.dry ? " (dry)" : ""}`),
    ];
    if (result.skipped_unassigned.length) lines.push(`Skipped (unassigned): ${result.skipped_unassigned.join(", ")}`);
    if (result.skipped_nonspawnable.length) lines.push(`Skipped (non-spawnable assignee — terminal lane, OK): ${result.skipped_nonspawnable.join(", ")}`);
    ctx.out(`${lines.join("\n")}\n`);
  },
};
