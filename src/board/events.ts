// The board's events, off the wire, once: a `show --json` event (its JSON payload) and a `watch` line
// (Python-repr text) become typed events here — whether the task may be claimable after it, a claim's
// lock, run and expiry, a close's reason, a comment's author. Nothing outside board/ reads a payload.
import type { ClaimFacts, TaskEvent, WatchLine } from "./port.js";

/**
 * The one list of board events after which a task may be claimable (besides `created` as ready): a
 * promotion, an unblock, a reclaim, an assignment, a review sent back (0.20 and 0.21 alike).
 */
export const READY_EVENT_KINDS: ReadonlySet<string> = new Set(["promoted", "unblocked", "reclaimed", "assigned", "review_reopened"]);

const readyMaking = (kind: string, createdStatus: string | null) => READY_EVENT_KINDS.has(kind) || (kind === "created" && createdStatus === "ready");
const strOrNull = (v: unknown) => (typeof v === "string" ? v : null);
const numOrNull = (v: unknown) => (typeof v === "number" && Number.isFinite(v) ? v : null);

/** One event of `show --json`, typed. */
export function taskEventOf(e: { kind: string; payload: Record<string, unknown> | null; createdAt: number; runId: number | null }): TaskEvent {
  const p = e.payload;
  const claim: ClaimFacts | null = e.kind === "claimed" ? { lock: strOrNull(p?.lock), runId: numOrNull(p?.run_id), expires: numOrNull(p?.expires) } : null;
  return { kind: e.kind, createdAt: e.createdAt, runId: e.runId, readyMaking: readyMaking(e.kind, strOrNull(p?.status)), reason: strOrNull(p?.reason), claim };
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
