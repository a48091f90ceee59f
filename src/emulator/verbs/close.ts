// block, unblock, reclaim (hermes-cli-contract.md §2.9–2.10). `complete` is in complete.ts.
import { EmuExit, fail, legacyExitCodes, namedClaims, v021 } from "../io.js";
import { addComment, addEvent, endRun, fencedOut, getTask, parentsOpen, profileAuthor, synthesizeRun } from "../model.js";
import { type Verb, list, prog, str, tx } from "./types.js";
import { actorOf, expectedStatusRefusal, liveClaimRefusal } from "./named-claims.js";
import { scopeRefusal } from "./line021.js";

/** Upstream `--author` (test_guarded_block_and_unblock_forward_explicit_reason_author): it authors the reason, so both must be given (exit 2). */
function explicitAuthor(reason: string | null, author: string | null): void {
  if (author === null) return;
  if (author.trim() === "") throw new EmuExit(2, "", "kanban: --author must not be empty\n");
  if (!reason?.trim()) throw new EmuExit(2, "", "kanban: --author needs a reason (it authors the reason comment)\n");
}

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
    const up = namedClaims(ctx.env);
    if (up) explicitAuthor(reason, str(v, "author"));
    const author = str(v, "author")?.trim() || profileAuthor(ctx.env);
    const res = tx(ctx, () => {
      const t = getTask(ctx.db, id);
      if (!t) return { error: reason ? `kanban: unknown task ${id}` : `cannot block ${id}` };
      // Upstream: a refused guard or fence leaves no trace, and the reason is written with the transition.
      const refused = expectedStatusRefusal(t, "block", v) ?? liveClaimRefusal(ctx, t, "block", v);
      if (refused) return { error: refused };
      // 0.20.0: the BLOCKED: comment is written before the transition is attempted (hazard 6).
      if (reason && !up) addComment(ctx.db, id, author, `BLOCKED: ${reason}`, ctx.now);
      // 0.21: the worker-scope guard runs as the transition is attempted — after that comment.
      const outOfScope = scopeRefusal(ctx.env, id);
      if (outOfScope) return { error: outOfScope };
      if (!["running", "ready"].includes(t.status) || fencedOut(ctx.env, t)) return { error: `cannot block ${id}` };
      if (reason && up) addComment(ctx.db, id, author, `BLOCKED: ${reason}`, ctx.now);
      let runId = endRun(ctx.db, t, ctx.now, { status: "blocked", outcome: "blocked", summary: reason || null, ...(up ? { closedBy: actorOf(ctx, v) } : {}) });
      // Blocking a never-claimed task keeps its reason in the attempt history (a zero-length run).
      if (runId === null && reason) runId = synthesizeRun(ctx, t, "blocked", reason);
      if (kind === "dependency") {
        ctx.db.prepare("UPDATE tasks SET status = 'todo', block_kind = ? WHERE id = ?").run(kind, id);
        addEvent(ctx.db, id, "dependency_wait", { reason, kind, ...source021(ctx.env) }, ctx.now, runId);
        return { out: `${id} → todo (dependency wait): ${reason}` };
      }
      const recurrences = t.block_recurrences > 0 && t.block_kind === kind ? t.block_recurrences + 1 : 1;
      if (recurrences >= RECURRENCE_LIMIT) {
        ctx.db.prepare("UPDATE tasks SET status = 'triage', block_kind = ?, block_recurrences = ? WHERE id = ?").run(kind, recurrences, id);
        addEvent(ctx.db, id, "block_loop_detected", { reason, kind, recurrences, ...source021(ctx.env), limit: RECURRENCE_LIMIT }, ctx.now, runId);
        return { out: `${id} → triage (unblock loop detected — needs a human decision): ${reason}` };
      }
      ctx.db.prepare("UPDATE tasks SET status = 'blocked', block_kind = ?, block_recurrences = ? WHERE id = ?").run(kind, recurrences, id);
      addEvent(ctx.db, id, "blocked", { reason, kind, recurrences, ...source021(ctx.env) }, ctx.now, runId);
      return { out: reason ? `Blocked ${id}: ${reason}` : `Blocked ${id}` };
    });
    if ("error" in res) fail(ctx, res.error ?? "");
    ctx.out(`${res.out}\n`);
  },
};

/**
 * 0.21's block payloads name the status the task is blocked from (kanban_db._route_block): `ready` — a
 * CLI claim is always of a ready task (a reviewer's claim from `review` is the dispatcher's).
 */
const source021 = (env: NodeJS.ProcessEnv) => (v021(env) ? { source_status: "ready" } : {});

export const unblock: Verb = {
  spec: { prog: prog("unblock"), options: [{ flag: "--reason", dest: "reason", kind: "value" }], positionals: [{ dest: "task_ids", nargs: "+" }] },
  run(ctx, v) {
    const reason = str(v, "reason");
    if (namedClaims(ctx.env)) explicitAuthor(reason, str(v, "author"));
    const author = str(v, "author")?.trim() || profileAuthor(ctx.env);
    const wantKind = str(v, "expected_block_kind");
    if (v021(ctx.env) && ctx.env.HERMES_KANBAN_TASK) fail(ctx, "kanban unblock is orchestrator-only; workers must hand off their assigned task");
    const errors: string[] = [];
    for (const id of list(v, "task_ids")) {
      const error = tx(ctx, () => {
        const t = getTask(ctx.db, id);
        if (!t || !["blocked", "scheduled"].includes(t.status)) return `cannot unblock ${id} (not blocked/scheduled?)`;
        // Upstream `--expected-block-kind`: a mismatch names the kind found and writes nothing.
        if (wantKind !== null && t.block_kind !== wantKind) return `cannot unblock ${id}: block kind is ${t.block_kind ?? "none"}, expected ${wantKind}`;
        if (reason) addComment(ctx.db, id, author, `UNBLOCK: ${reason}`, ctx.now);
        ctx.db.prepare("UPDATE tasks SET status = ? WHERE id = ?").run(parentsOpen(ctx.db, id) ? "todo" : "ready", id);
        addEvent(ctx.db, id, "unblocked", null, ctx.now);
        return null;
      });
      if (error === null) ctx.out(`Unblocked ${id}${reason ? `: ${reason}` : ""}\n`);
      else errors.push(error);
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
      addEvent(
        ctx.db,
        id,
        "reclaimed",
        { manual: true, reason: str(v, "reason"), prev_lock: t.claim_lock, ...(v021(ctx.env) ? { retry_status: "ready" } : {}) },
        ctx.now,
        runId,
      );
      return true;
    });
    if (!ok) fail(ctx, `cannot reclaim ${id} (not running or unknown id)`);
    ctx.out(`Reclaimed ${id}\n`);
  },
};
