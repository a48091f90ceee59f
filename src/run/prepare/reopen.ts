// A task back from `done` (Hermes 0.21.6 `reopen <id> --reason R --landing … --kind K`): new work for the
// seat, not a second first run. Its earlier completion was undone on the board; the agent is told so and
// why — the reopen's reason and kind as the board recorded them (its `reopened` event, else the `REOPEN:`
// comment the CLI writes before it), quoted as board text the way a reviewer's changes are (run/prepare/review.ts)
// — and what the earlier run left (its summary, its deliverables, which stay attached to the task). The
// run's close records which completion it re-works (`metadata.bridge.reopen`), next to the board's own
// `reopened` event: what `usage` (and a later `stats`) count as a reopen, never as a second success.
import type { TaskDetail } from "../../board/port.js";

export interface Reopen {
  /** The board's time of the reopen (epoch s). */
  at: number;
  reason: string | null;
  kind: string | null;
  landing: string | null;
  /** The completed run the reopen undid, when the board still lists it. */
  previous: { runId: number; summary: string | null; deliverables: string[] } | null;
}

const MARK = "REOPEN:";

/** The reopen this task is under now: the last `reopened` event with no completion after it (null: none). */
export function reopenOf(detail: TaskDetail): Reopen | null {
  const ev = detail.events.findLast((e) => e.kind === "reopened");
  if (!ev || detail.events.some((e) => e.kind === "completed" && e.createdAt > ev.createdAt)) return null;
  // The CLI's comment of this reopen: written just before its event, after the completion it undid.
  const doneAt = detail.events.findLast((e) => e.kind === "completed" && e.createdAt <= ev.createdAt)?.createdAt ?? 0;
  const comment = detail.comments.findLast((c) => c.body.startsWith(MARK) && c.createdAt <= ev.createdAt && c.createdAt >= doneAt);
  const reason = ev.reason ?? (comment ? comment.body.slice(MARK.length).trim() : null);
  const done = detail.runs.findLast((r) => r.outcome === "completed" && (r.endedAt ?? 0) <= ev.createdAt);
  const artifacts = done?.metadata?.artifacts;
  const deliverables = Array.isArray(artifacts)
    ? artifacts
        .map(deliverableName)
        .filter((a): a is string => a !== null)
        .slice(0, 20)
    : [];
  return {
    at: ev.createdAt,
    reason: reason || null,
    kind: ev.reopen?.kind ?? null,
    landing: ev.reopen?.landing ?? null,
    previous: done ? { runId: done.id, summary: done.summary, deliverables } : null,
  };
}

/** A deliverable as the close recorded it: a path, or the bridge's artifact (`attachment.filename`, else `path`). */
function deliverableName(a: unknown): string | null {
  if (typeof a === "string") return a.slice(0, 300);
  if (!a || typeof a !== "object") return null;
  const o = a as { path?: unknown; attachment?: { filename?: unknown } };
  const name = o.attachment?.filename ?? o.path;
  return typeof name === "string" ? name.slice(0, 300) : null;
}

/** The paragraph that leads a run's prompt when the task was reopened after it was done. */
export function reopenBrief(detail: TaskDetail): string {
  const r = reopenOf(detail);
  if (!r) return "";
  const label = `REOPENED${r.kind ? ` (${r.kind})` : ""}`;
  const lines = [`This task was completed before and has been reopened on the board with ${label}: ${r.reason ?? "(no reason given)"}`];
  if (r.previous) {
    lines.push(`The earlier result (run ${r.previous.runId}) was: ${r.previous.summary ?? "(no summary)"}`);
    if (r.previous.deliverables.length) lines.push(`Its deliverables stay attached to the task: ${r.previous.deliverables.join(", ")}`);
  }
  lines.push("Address why it was reopened; keep what still holds of the earlier work.");
  return `${lines.join("\n")}\n\n`;
}

/** What a close records of the reopen it re-works (`metadata.bridge.reopen`), or undefined. */
export function reopenRecord(detail: TaskDetail): { of_run: number | null; reason: string | null; kind: string | null; at: string } | undefined {
  const r = reopenOf(detail);
  return r ? { of_run: r.previous?.runId ?? null, reason: r.reason?.slice(0, 500) ?? null, kind: r.kind, at: new Date(r.at * 1000).toISOString() } : undefined;
}
