// The board's events, off the wire, once: a `show --json` event (its JSON payload) and a `watch` line
// (Python-repr text) become typed events here — whether the task may be claimable after it, a claim's
// lock, run and expiry, a close's reason, a comment's author. Nothing outside board/ reads a payload.
import type { ClaimFacts, TaskEvent, WatchLine } from "./port.js";

/**
 * The one list of board events after which a task may be claimable (besides `created` as ready): a
 * promotion, an unblock, a reclaim, an assignment, a review sent back (0.20 and 0.21 alike), a done task
 * reopened (0.21.6: it may land blocked or todo — a claim then misses, at the cost of one call).
 */
export const READY_EVENT_KINDS: ReadonlySet<string> = new Set(["promoted", "unblocked", "reclaimed", "assigned", "review_reopened", "reopened"]);

/** The kinds of board event the bridge tells apart (0.20 and 0.21's recordings); any other is `other`. */
export const BOARD_EVENT_KINDS = [
  "created",
  "promoted",
  "claimed",
  "heartbeat",
  "commented",
  "attached",
  "completed",
  "blocked",
  "unblocked",
  "scheduled",
  "reclaimed",
  "assigned",
  "archived",
  "review_requested",
  "review_reopened",
  "changes_requested",
  "needs_input",
  "dependency_wait",
  "model_override_set",
  "pr_acceptance",
  "existing_pr_authorized",
  "reopened",
] as const;
export type BoardEventKind = (typeof BOARD_EVENT_KINDS)[number] | "other";

/** A wire kind as a named one (`other` for a kind the bridge has no use for). */
export const boardEventKind = (kind: string): BoardEventKind => ((BOARD_EVENT_KINDS as readonly string[]).includes(kind) ? (kind as BoardEventKind) : "other");

const readyMaking = (kind: string, createdStatus: string | null) => READY_EVENT_KINDS.has(kind) || (kind === "created" && createdStatus === "ready");
const strOrNull = (v: unknown) => (typeof v === "string" ? v : null);
const numOrNull = (v: unknown) => (typeof v === "number" && Number.isFinite(v) ? v : null);

/** The kinds that may hand a task on past Hermes's `active_pr` guard (kanban_db_dispatch.check_respawn_guard). */
const HANDOFF_KINDS: ReadonlySet<string> = new Set(["assigned", "changes_requested", "review_reopened"]);

/**
 * `_is_handoff_event` (hermes_cli/kanban_db_dispatch.py, commit 00030df13ffeaadcadf9d79935bac522e5552c88):
 * only an `assigned` that moves the task to a different profile counts — not a no-op re-assign, an
 * unassign, the dispatcher's default-assignee write, or an event without `from` (fail closed).
 */
function isHandoff(kind: string, p: Record<string, unknown> | null): boolean {
  if (kind !== "assigned") return true;
  if (!p || p.source === "kanban.default_assignee") return false;
  const to = p.assignee;
  return typeof to === "string" && to !== "" && "from" in p && p.from !== to;
}

/** One event of `show --json`, typed. */
export function taskEventOf(e: { kind: string; payload: Record<string, unknown> | null; createdAt: number; runId: number | null }): TaskEvent {
  const p = e.payload;
  const claim: ClaimFacts | null = e.kind === "claimed" ? { lock: strOrNull(p?.lock), runId: numOrNull(p?.run_id), expires: numOrNull(p?.expires) } : null;
  const ev: TaskEvent = {
    kind: e.kind,
    createdAt: e.createdAt,
    runId: e.runId,
    readyMaking: readyMaking(e.kind, strOrNull(p?.status)),
    reason: strOrNull(p?.reason),
    claim,
  };
  if (HANDOFF_KINDS.has(e.kind)) ev.handoff = isHandoff(e.kind, p);
  if (e.kind === "review_requested") ev.review = { implementer: strOrNull(p?.implementer), reviewer: strOrNull(p?.reviewer) };
  if (e.kind === "reopened") ev.reopen = { landing: strOrNull(p?.landing), kind: strOrNull(p?.kind) };
  if (e.kind === "existing_pr_authorized") {
    const floor = p?.run_id_floor;
    ev.prGrant = {
      taskId: strOrNull(p?.task_id),
      prUrl: strOrNull(p?.pr_url),
      runIdFloor: typeof floor === "number" && Number.isInteger(floor) ? floor : null,
    };
  }
  return ev;
}

const WATCH_RE = /^\[(\d{4}-\d{2}-\d{2} \d{2}:\d{2})\] (t_[0-9a-f]+)\s+(\S+)\s+\(@([^)]*)\)(?: (.*))?$/;

/** A `key: value` string of a watch line's payload (Python-repr text, either quote style), or null. */
function reprString(payloadText: string | null, key: string): string | null {
  const text = payloadText ?? "";
  const m = new RegExp(`'${key}': '((?:[^'\\\\]|\\\\.)*)'`).exec(text) ?? new RegExp(`'${key}': "((?:[^"\\\\]|\\\\.)*)"`).exec(text);
  return m ? (m[1] ?? null) : null;
}

/** One `watch` line: its documented shape typed, or `event: null` for banners and noise. */
export function parseWatchLine(raw: string): WatchLine {
  const m = WATCH_RE.exec(raw);
  if (!m) return { raw, event: null };
  const kind = m[3] ?? "";
  const payloadText = m[5] ?? null;
  return {
    raw,
    event: {
      at: m[1] ?? "",
      taskId: m[2] ?? "",
      kind,
      assignee: m[4] === "-" || m[4] === undefined ? null : m[4],
      readyMaking: readyMaking(kind, kind === "created" ? reprString(payloadText, "status") : null),
      author: kind === "commented" ? reprString(payloadText, "author") : null,
    },
  };
}
