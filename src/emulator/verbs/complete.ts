// complete, as Hermes 0.20.0 does it (kanban_db.complete_task): absolute paths of existing workspace
// files named in the summary/result join metadata.artifacts; string artifacts inside a managed scratch
// workspace are copied to the task's attachments (and replace the list — other entries, objects
// included, are dropped); a missing or oversized one fails the complete; then the run closes and the
// scratch workspace is deleted (unless the task has open children).
import { copyFileSync, existsSync, mkdirSync, rmSync, statSync } from "node:fs";
import { basename, extname, join, resolve, sep } from "node:path";
import { EmuExit, legacyExitCodes, namedClaims, v021 } from "../io.js";
import { type TaskRow, addEvent, endRun, fencedOut, getTask, recomputeReady, synthesizeRun, workerRunId } from "../model.js";
import { boardHostPath, shownPath } from "../remote.js";
import type { BoardLoc, Db } from "../store.js";
import { ATTACHMENT_MAX_BYTES, attachmentsDir, recordAttachment } from "./attach.js";
import { acceptCompletion, scopeGuard } from "./line021.js";
import { type Verb, type VerbCtx, list, prog, str, tx } from "./types.js";
import { actorOf, expectedStatusRefusal, liveClaimRefusal } from "./named-claims.js";
import { goalGate, parentsRefusal } from "./line0215.js";
import { v0216 } from "./line0216.js";

export function parseMetadata(raw: string | null): Record<string, unknown> | null {
  if (raw === null || raw === "") return null;
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch (err) {
    throw new EmuExit(2, "", `kanban: --metadata: ${pythonJsonError(raw, err as Error)}\n`);
  }
  if (!parsed || typeof parsed !== "object" || Array.isArray(parsed)) throw new EmuExit(2, "", "kanban: --metadata: must be a JSON object\n");
  return parsed as Record<string, unknown>;
}

/** Python's json error text for the common cases ("Expecting property name enclosed in double quotes: line 1 column 2 (char 1)"). */
export function pythonJsonError(raw: string, err: Error): string {
  const pos = Number(/position (\d+)/.exec(err.message)?.[1] ?? /column (\d+)/.exec(err.message)?.[1] ?? 0);
  const at = (i: number) => {
    const before = raw.slice(0, i);
    const line = before.split("\n").length;
    const col = i - (before.lastIndexOf("\n") + 1) + 1;
    return `line ${line} column ${col} (char ${i})`;
  };
  const ch = raw[pos];
  const prev = raw.slice(0, pos).trimEnd().slice(-1);
  if (raw.trim() === "") return `Expecting value: ${at(raw.length)}`;
  if (ch !== undefined && (prev === "{" || prev === ",") && ch !== '"' && raw.slice(0, pos).includes("{"))
    return `Expecting property name enclosed in double quotes: ${at(pos)}`;
  if (/Unexpected end of JSON input/.test(err.message)) return `Expecting value: ${at(raw.length)}`;
  return `Expecting value: ${at(pos)}`;
}

/** Under <home>/kanban/workspaces or <home>/kanban/boards/<b>/workspaces (managed scratch storage). */
function managedScratch(loc: BoardLoc, ws: string): boolean {
  const p = resolve(ws);
  if (p.startsWith(join(loc.root, "kanban", "workspaces") + sep)) return true;
  const boards = join(loc.root, "kanban", "boards") + sep;
  return p.startsWith(boards) && p.slice(boards.length).split(sep)[1] === "workspaces";
}

function mergeProseArtifacts(
  env: NodeJS.ProcessEnv,
  loc: BoardLoc,
  t: TaskRow,
  metadata: Record<string, unknown> | null,
  text: string,
): Record<string, unknown> | null {
  if (t.workspace_kind !== "scratch" || !t.workspace_path || !managedScratch(loc, t.workspace_path) || !text) return metadata;
  const ws = t.workspace_path;
  const discovered: string[] = [];
  // A board on "another host": the summary names its paths as that host sees them.
  const seen = text.split(shownPath(env, ws)).join(ws);
  const re = new RegExp(`${ws.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}(?:[/\\\\][^\\s\`"'<>]+)`, "g");
  for (const m of seen.matchAll(re)) {
    const raw = m[0].replace(/[.,;:!?)\]}]+$/, "");
    if (existsSync(raw) && statSync(raw).isFile()) discovered.push(raw);
  }
  if (discovered.length === 0) return metadata;
  const updated: Record<string, unknown> = { ...(metadata ?? {}) };
  const merged = Array.isArray(updated.artifacts) ? [...(updated.artifacts as unknown[])] : [];
  const have = new Set(merged.map((x) => String(x)));
  for (const p of discovered)
    if (!have.has(p)) {
      merged.push(p);
      have.add(p);
    }
  updated.artifacts = merged;
  return updated;
}

/** _persist_scratch_completion_artifacts; returns the staged copies, or an error message. */
function persistArtifacts(env: NodeJS.ProcessEnv, loc: BoardLoc, t: TaskRow, metadata: Record<string, unknown>): { staged: string[] } | { error: string } {
  const raw = metadata.artifacts;
  if (!Array.isArray(raw) || t.workspace_kind !== "scratch" || !t.workspace_path || !managedScratch(loc, t.workspace_path)) return { staged: [] };
  const root = resolve(t.workspace_path);
  const dir = attachmentsDir(loc.dir, t.id);
  const persisted: string[] = [];
  const staged: string[] = [];
  const discard = () => {
    for (const s of staged) rmSync(s, { force: true });
  };
  for (const item of raw) {
    const artifact = typeof item === "string" ? item.trim() : "";
    if (!artifact) continue;
    const src = resolve(boardHostPath(env, artifact.replace(/^~(?=\/|$)/, env.HOME ?? "~")));
    if (!(src === root || src.startsWith(root + sep))) {
      persisted.push(artifact);
      continue;
    }
    if (!existsSync(src) || !statSync(src).isFile()) {
      discard();
      return { error: `kanban: declared scratch artifact is unavailable or not a regular file: ${artifact}` };
    }
    if (statSync(src).size > ATTACHMENT_MAX_BYTES) {
      discard();
      return { error: `kanban: declared scratch artifact exceeds the ${ATTACHMENT_MAX_BYTES}-byte limit: ${artifact}` };
    }
    mkdirSync(dir, { recursive: true });
    const name = basename(src) || "artifact";
    let dest = join(dir, name);
    const ext = extname(name);
    for (let i = 1; existsSync(dest) || staged.includes(dest); i += 1) dest = join(dir, `${name.slice(0, name.length - ext.length) || "artifact"}_${i}${ext}`);
    copyFileSync(src, dest);
    staged.push(dest);
    persisted.push(dest);
  }
  if (staged.length > 0) metadata.artifacts = persisted;
  return { staged };
}

const REVIEW_APPROVED = "Review approved without additional evidence.";

/** A close's deliverables (metadata.artifacts) copied to the task's attachments and recorded; or why not. */
export function stageArtifacts(ctx: VerbCtx, t: TaskRow, metadata: Record<string, unknown>, by: string): { staged: string[] } | { error: string } {
  const kept = persistArtifacts(ctx.env, ctx.loc, t, metadata);
  if ("error" in kept) return kept;
  for (const path of kept.staged)
    recordAttachment(ctx.db, t.id, { filename: basename(path), storedPath: path, size: statSync(path).size, contentType: null, by, now: ctx.now });
  return kept;
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
      throw new EmuExit(
        2,
        "",
        "kanban: --summary / --metadata are per-task and can't be used with multiple ids (would apply the same handoff to every task). Complete tasks one at a time, or drop the flags for the bulk close.\n",
      );
    const given = parseMetadata(str(v, "metadata"));
    const errors: string[] = [];
    for (const id of ids) {
      scopeGuard(ctx, id);
      // 0.21.4+: a --goal task's completion goes past the goal judge first (verbs/line0215.ts).
      const judged = goalGate(ctx, id, "completion");
      if (judged) {
        errors.push(judged);
        continue;
      }
      const expectedRun = workerRunId(ctx.env, id);
      const before = getTask(ctx.db, id);
      let metadata = before
        ? mergeProseArtifacts(ctx.env, ctx.loc, before, given === null ? null : structuredClone(given), [summary, result].filter(Boolean).join("\n"))
        : given;
      const outcome = tx(ctx, () => {
        const t = getTask(ctx.db, id);
        if (!t) return `cannot complete ${id} (unknown id or terminal state)`;
        // Upstream guards first: a refusal writes nothing (verbs/named-claims.ts).
        const refused = expectedStatusRefusal(t, "complete", v) ?? liveClaimRefusal(ctx, t, "complete", v);
        if (refused) return refused;
        if (!["running", "ready", "blocked", "review"].includes(t.status) || fencedOut(ctx.env, t))
          return `cannot complete ${id} (unknown id or terminal state)`;
        // 0.21.4+: open parents refuse the complete, named by id and status.
        const parents = parentsRefusal(ctx, id);
        if (parents) return parents;
        // 0.21: a contract that needs publication evidence is checked first (its refusal stays on the task).
        if (acceptCompletion(ctx, t, metadata, expectedRun) === false) return `cannot complete ${id} (unknown id or terminal state)`;
        if (metadata) {
          const kept = stageArtifacts(ctx, t, metadata, "kanban_complete");
          if ("error" in kept) return kept.error;
        }
        // 0.21: approving a review with no evidence of its own still leaves a run saying so.
        const approval = v021(ctx.env) && t.status === "review" && !summary && !result && !metadata;
        const json = metadata ? JSON.stringify(metadata) : approval ? JSON.stringify({ source_status: "review", approval: "manual" }) : null;
        const runSummary = summary ?? result ?? (approval ? REVIEW_APPROVED : null);
        let synthesizedRun: number | null = null;
        const closedBy = namedClaims(ctx.env) ? { closedBy: actorOf(ctx, v) } : {};
        if (t.current_run_id !== null) endRun(ctx.db, t, ctx.now, { status: "done", outcome: "completed", summary: runSummary, metadata: json, ...closedBy });
        else if (runSummary !== null || metadata !== null || approval) synthesizedRun = synthesizeRun(ctx, t, "completed", runSummary, json);
        ctx.db
          .prepare(
            "UPDATE tasks SET status = 'done', completed_at = ?, result = ?, block_kind = NULL, block_recurrences = 0, consecutive_failures = 0, claim_lock = NULL, claim_expires = NULL, current_run_id = NULL WHERE id = ?",
          )
          .run(ctx.now, result, id);
        const first = (runSummary ?? "").trim().split("\n")[0]?.slice(0, 400) ?? "";
        const payload: Record<string, unknown> = { result_len: (result ?? "").length, summary: first || null };
        const arts = Array.isArray(metadata?.artifacts)
          ? (metadata.artifacts as unknown[]).filter((x): x is string => typeof x === "string" && x.trim() !== "").map((x) => x.trim())
          : [];
        if (arts.length) payload.artifacts = arts;
        addEvent(ctx.db, id, "completed", payload, ctx.now, t.current_run_id ?? synthesizedRun);
        return t;
      });
      if (typeof outcome === "string") {
        errors.push(outcome);
        metadata = null;
        continue;
      }
      // 0.21.6 (kanban_db.complete_task): the children go ready at once — also those of a task completed
      // from `blocked`, upstream bug #101785 (verbs/line0216.ts).
      if (v0216(ctx.env)) tx(ctx, () => recomputeReady(ctx.db, ctx.now));
      cleanupWorkspace(ctx.db, outcome);
      ctx.out(`Completed ${id}\n`);
    }
    if (errors.length > 0) throw new EmuExit(legacyExitCodes(ctx.env) ? 0 : 1, "", `${errors.join("\n")}\n`);
  },
};

/** _cleanup_workspace: a scratch workspace is removed once the task is done (not while children are open). */
function cleanupWorkspace(db: Db, t: TaskRow): void {
  if (t.workspace_kind !== "scratch" || !t.workspace_path || !existsSync(t.workspace_path)) return;
  const open = db
    .prepare("SELECT COUNT(*) AS n FROM task_links l JOIN tasks c ON c.id = l.child_id WHERE l.parent_id = ? AND c.status NOT IN ('done','archived')")
    .get(t.id) as { n: number };
  if (open.n === 0) rmSync(t.workspace_path, { recursive: true, force: true });
}
