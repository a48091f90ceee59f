// complete, block, unblock, reclaim (hermes-cli-contract.md §2.8–2.10).
import { copyFileSync, existsSync, mkdirSync, rmSync, statSync } from "node:fs";
import { basename, join, resolve, sep } from "node:path";
import { EmuExit, fail, legacyExitCodes } from "../io.js";
import { type TaskRow, addComment, addEvent, endRun, fencedOut, getTask, parentsOpen, profileAuthor } from "../model.js";
import { type Verb, list, prog, str, tx } from "./types.js";

const KINDS = ["capability", "dependency", "needs_input", "transient"];
const RECURRENCE_LIMIT = 2;

function parseMetadata(raw: string | null): string | null {
  if (raw === null || raw === "") return null;
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch (err) {
    throw new EmuExit(2, "", `kanban: --metadata: ${(err as Error).message}\n`);
  }
  if (!parsed || typeof parsed !== "object" || Array.isArray(parsed)) throw new EmuExit(2, "", "kanban: --metadata: must be a JSON object\n");
  return JSON.stringify(parsed);
}

function artifactPaths(metadata: string | null): string[] {
  if (!metadata) return [];
  const arts = (JSON.parse(metadata) as { artifacts?: unknown }).artifacts;
  if (!Array.isArray(arts)) return [];
  return arts.map((a) => (typeof a === "string" ? a : a && typeof a === "object" && typeof (a as { path?: unknown }).path === "string" ? (a as { path: string }).path : null)).filter((p): p is string => p !== null);
}

export const complete: Verb = {
  spec: {
    prog: prog("complete"),
    options: [
      { flag: "--result", dest: "result", kind: "value" },
      { flag: "--summary", dest: "summary", kind: "value" },
      { flag: "--metadata", dest: "metadata", kind: "value" },
    ],
    positionals: [{ dest: "task_ids", nargs: "+" }],
  },
  run(ctx, v) {
    const ids = list(v, "task_ids");
    const summary = str(v, "summary");
    const result = str(v, "result");
    if (ids.length > 1 && (summary !== null || v.metadata !== null))
      throw new EmuExit(2, "", "kanban: --summary / --metadata are per-task and can't be used with multiple ids (would apply the same handoff to every task). Complete tasks one at a time, or drop the flags for the bulk close.\n");
    const metadata = parseMetadata(str(v, "metadata"));
    const errors: string[] = [];
    for (const id of ids) {
      const outcome = tx(ctx, () => {
        const t = getTask(ctx.db, id);
        if (!t || !["running", "ready", "blocked", "review"].includes(t.status) || fencedOut(ctx.env, t)) return `cannot complete ${id} (unknown id or terminal state)`;
        if (t.workspace_kind === "scratch" && t.workspace_path) {
          const root = resolve(t.workspace_path) + sep;
          for (const p of artifactPaths(metadata)) {
            const abs = resolve(t.workspace_path, p);
            if (abs.startsWith(root) && (!existsSync(abs) || !statSync(abs).isFile()))
              return `kanban: declared scratch artifact is unavailable or not a regular file: ${p}`;
          }
        }
        const runSummary = summary ?? result;
        if (t.current_run_id !== null) endRun(ctx.db, t, ctx.now, { status: "done", outcome: "completed", summary: runSummary, metadata });
        else if (summary !== null || result !== null || metadata !== null) {
          ctx.db
            .prepare("INSERT INTO task_runs (task_id, profile, status, outcome, summary, metadata, started_at, ended_at) VALUES (?, ?, 'completed', 'completed', ?, ?, ?, ?)")
            .run(id, t.assignee, runSummary, metadata, ctx.now, ctx.now);
        }
        const runId = t.current_run_id;
        ctx.db.prepare("UPDATE tasks SET status = 'done', completed_at = ?, result = COALESCE(?, result), block_recurrences = 0, claim_lock = NULL, claim_expires = NULL, current_run_id = NULL WHERE id = ?").run(ctx.now, result, id);
        addEvent(ctx.db, id, "completed", { result_len: (result ?? "").length, summary: (runSummary ?? "").split("\n")[0]?.slice(0, 400) ?? "" }, ctx.now, runId);
        return t;
      });
      if (typeof outcome === "string") {
        errors.push(outcome);
        continue;
      }
      cleanupWorkspace(ctx.loc.dir, outcome, `${summary ?? ""}\n${result ?? ""}`, ctx.db);
      ctx.out(`Completed ${id}\n`);
    }
    if (errors.length > 0) throw new EmuExit(legacyExitCodes(ctx.env) ? 0 : 1, "", `${errors.join("\n")}\n`);
  },
};

/** Hazard 13: files named by absolute path are kept as attachments, then the scratch dir is deleted. */
function cleanupWorkspace(boardDir: string, t: TaskRow, text: string, db: import("../store.js").Db): void {
  if (t.workspace_kind !== "scratch" || !t.workspace_path || !existsSync(t.workspace_path)) return;
  const openChildren = db.prepare("SELECT COUNT(*) AS n FROM task_links l JOIN tasks c ON c.id = l.child_id WHERE l.parent_id = ? AND c.status NOT IN ('done','archived')").get(t.id) as { n: number };
  if (openChildren.n > 0) return;
  const prefix = t.workspace_path + sep;
  for (const m of text.matchAll(/(\/[^\s'"`]+)/g)) {
    const p = m[1] ?? "";
    if (!p.startsWith(prefix) || !existsSync(p) || !statSync(p).isFile()) continue;
    const dest = join(boardDir, "attachments", t.id);
    mkdirSync(dest, { recursive: true });
    copyFileSync(p, join(dest, basename(p)));
  }
  rmSync(t.workspace_path, { recursive: true, force: true });
}

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
      const runId = endRun(ctx.db, t, ctx.now, { status: "blocked", outcome: "blocked", summary: reason || null });
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
