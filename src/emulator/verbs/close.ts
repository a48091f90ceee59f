// block, unblock, reclaim (hermes-cli-contract.md §2.9–2.10). `complete` is in complete.ts.
import { EmuExit, fail, legacyExitCodes } from "../io.js";
import { addComment, addEvent, endRun, fencedOut, getTask, parentsOpen, profileAuthor, synthesizeRun } from "../model.js";
import { type Verb, list, prog, str, tx } from "./types.js";

const KINDS = ["capability", "dependency", "needs_input", "transient"];
const RECURRENCE_LIMIT = 2;

export function blockSpec(env: NodeJS.ProcessEnv) {
  return {
    prog: prog("block"),
    options: [
      { flag: "--ids", dest: "ids", kind: "multi" as const },
      ...(legacyExitCodes(env) ? [] : [{ flag: "--kind", dest: "kind", kind: "value" as const, choices: KINDS }]),
    ],
    positionals: [
      { dest: "task_id", nargs: 1 as const },
      { dest: "reason", nargs: "*" as const },
    ],
  };
}

export const block: Verb = {
  spec: blockSpec({}),
  run(ctx, v) {
    const id = str(v, "task_id") ?? "";
    const reason = ((v.reason as string[] | null) ?? []).join(" ").trim();
    const kind = str(v, "kind");
    const res = tx(ctx, () => {
      const t = getTask(ctx.db, id);
      if (!t) return { error: reason ? `kanban: unknown task ${id}` : `cannot block ${id}` };
      // The BLOCKED: comment is written before the transition is attempted (hazard 6).
      if (reason) addComment(ctx.db, id, profileAuthor(ctx.env), `BLOCKED: ${reason}`, ctx.now);
      if (!["running", "ready"].includes(t.status) || fencedOut(ctx.env, t)) return { error: `cannot block ${id}` };
      let runId = endRun(ctx.db, t, ctx.now, { status: "blocked", outcome: "blocked", summary: reason || null });
      // Blocking a never-claimed task keeps its reason in the attempt history (a zero-length run).
      if (runId === null && reason) runId = synthesizeRun(ctx, t, "blocked", reason);
      if (kind === "dependency") {
        ctx.db.prepare("UPDATE tasks SET status = 'todo', block_kind = ? WHERE id = ?").run(kind, id);
        addEvent(ctx.db, id, "dependency_wait", { reason, kind }, ctx.now, runId);
        return { out: `${id} → todo (dependency wait): ${reason}` };
      }
      const recurrences = t.block_recurrences > 0 && t.block_kind === kind ? t.block_recurrences + 1 : 1;
      if (recurrences >= RECURRENCE_LIMIT) {
        ctx.db.prepare("UPDATE tasks SET status = 'triage', block_kind = ?, block_recurrences = ? WHERE id = ?").run(kind, recurrences, id);
        addEvent(ctx.db, id, "block_loop_detected", { reason, kind, recurrences, limit: RECURRENCE_LIMIT }, ctx.now, runId);
        return { out: `${id} → triage (unblock loop detected — needs a human decision): ${reason}` };
      }
      ctx.db.prepare("UPDATE tasks SET status = 'blocked', block_kind = ?, block_recurrences = ? WHERE id = ?").run(kind, recurrences, id);
      addEvent(ctx.db, id, "blocked", { reason, kind, recurrences }, ctx.now, runId);
      return { out: reason ? `Blocked ${id}: ${reason}` : `Blocked ${id}` };
    });
    if ("error" in res) fail(ctx, res.error ?? "");
    ctx.out(`${res.out}\n`);
  },
};

export const unblock: Verb = {
  spec: { prog: prog("unblock"), options: [{ flag: "--reason", dest: "reason", kind: "value" }], positionals: [{ dest: "task_ids", nargs: "+" }] },
  run(ctx, v) {
    const reason = str(v, "reason");
    const errors: string[] = [];
    for (const id of list(v, "task_ids")) {
      const ok = tx(ctx, () => {
        const t = getTask(ctx.db, id);
        if (!t || !["blocked", "scheduled"].includes(t.status)) return false;
        if (reason) addComment(ctx.db, id, profileAuthor(ctx.env), `UNBLOCK: ${reason}`, ctx.now);
        ctx.db.prepare("UPDATE tasks SET status = ? WHERE id = ?").run(parentsOpen(ctx.db, id) ? "todo" : "ready", id);
        addEvent(ctx.db, id, "unblocked", null, ctx.now);
        return true;
      });
      if (ok) ctx.out(`Unblocked ${id}${reason ? `: ${reason}` : ""}\n`);
      else errors.push(`cannot unblock ${id} (not blocked/scheduled?)`);
    }
    if (errors.length > 0) throw new EmuExit(1, "", `${errors.join("\n")}\n`);
  },
};

export const reclaim: Verb = {
  spec: { prog: prog("reclaim"), options: [{ flag: "--reason", dest: "reason", kind: "value" }], positionals: [{ dest: "task_id", nargs: 1 }] },
  run(ctx, v) {
    const id = str(v, "task_id") ?? "";
    const ok = tx(ctx, () => {
      const t = getTask(ctx.db, id);
      if (!t || t.status !== "running") return false;
      const runId = endRun(ctx.db, t, ctx.now, { status: "reclaimed", outcome: "reclaimed", error: "manual_reclaim" });
      ctx.db.prepare("UPDATE tasks SET status = 'ready' WHERE id = ?").run(id);
      addEvent(ctx.db, id, "reclaimed", { manual: true, reason: str(v, "reason"), prev_lock: t.claim_lock }, ctx.now, runId);
      return true;
    });
    if (!ok) fail(ctx, `cannot reclaim ${id} (not running or unknown id)`);
    ctx.out(`Reclaimed ${id}\n`);
  },
};
