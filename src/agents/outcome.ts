// The outcome-file protocol (command agents and adopted runs), in three pieces: a safe read (state/read:
// a regular file only — never a FIFO, device or symlink —, size-capped, bounded in time), a pure
// parse, and the one mapper from a parsed outcome to agent events.
//   {"outcome":"complete","summary":"…","result":{…common result…}}
//   {"outcome":"review","summary":"…","result":{…},"reviewer":"<profile>"}   ready for review (hand-off)
//   {"outcome":"block","block":{cause, what_happened, options, recommendation, next_action}}
//   {"outcome":"limit","kind":"usage","resets_at":"<ISO or epoch s>","message":"…"} | {"outcome":"auth_failed",…}
// Any of them may carry "session": "<id>" — the agent's own resumable session handle.
import { readSmallFile } from "../state/read.js";
import type { AgentEvent, OutcomeRequest } from "./port.js";

export const OUTCOME_MAX_BYTES = 1024 * 1024;

export type ParsedOutcome =
  | OutcomeRequest
  | { kind: "none" }
  | { kind: "limit"; limitKind: string; resetsAt: number | null; message: string }
  | { kind: "auth_failed"; message: string };

export function parseOutcomeFile(text: string | null): ParsedOutcome {
  if (text === null) return { kind: "none" };
  if (text.trim() === "") return { kind: "unreadable", error: "the outcome file is empty" };
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (err) {
    return { kind: "unreadable", error: `the outcome file is not valid JSON: ${(err as Error).message}` };
  }
  if (!doc || typeof doc !== "object" || Array.isArray(doc)) return { kind: "invalid", error: "the outcome file must hold a JSON object" };
  const o = doc as Record<string, unknown>;
  if (o.outcome === "complete") {
    if (typeof o.summary !== "string" || o.summary.trim() === "") return { kind: "invalid", error: 'outcome complete needs a non-empty "summary" string' };
    return { kind: "complete", summary: o.summary, result: o.result };
  }
  if (o.outcome === "review") {
    if (typeof o.summary !== "string" || o.summary.trim() === "") return { kind: "invalid", error: 'outcome review needs a non-empty "summary" string' };
    const reviewer = reviewerOf(o.reviewer);
    if (reviewer === undefined) return { kind: "invalid", error: '"reviewer" must be a profile name (lowercase letters, digits, "-" or "_")' };
    return { kind: "complete", summary: o.summary, result: o.result, review: { reviewer } };
  }
  if (o.outcome === "block") {
    if (!o.block || typeof o.block !== "object") return { kind: "invalid", error: 'outcome block needs a "block" object with the five template fields' };
    return { kind: "block", block: o.block as Extract<OutcomeRequest, { kind: "block" }>["block"] };
  }
  if (o.outcome === "auth_failed") return { kind: "auth_failed", message: typeof o.message === "string" ? o.message : "authentication failed" };
  if (o.outcome === "limit") {
    const raw = o.resets_at;
    const resetsAt = typeof raw === "number" ? raw * 1000 : typeof raw === "string" && !Number.isNaN(Date.parse(raw)) ? Date.parse(raw) : null;
    return {
      kind: "limit",
      limitKind: typeof o.kind === "string" ? o.kind : "usage",
      resetsAt,
      message: typeof o.message === "string" ? o.message : "usage limit reached",
    };
  }
  return { kind: "invalid", error: `"outcome" must be "complete", "review", "block", "limit" or "auth_failed" (got ${JSON.stringify(o.outcome ?? null)})` };
}

/** A reviewer an agent names: a profile name, or none (null); anything else is refused (undefined). */
export function reviewerOf(v: unknown): string | null | undefined {
  if (v === undefined || v === null || v === "") return null;
  return typeof v === "string" && /^[a-z0-9][a-z0-9_-]{0,63}$/.test(v) ? v : undefined;
}

/**
 * A command agent's session handle: letters, digits and `._:@-`, up to 128 characters, not starting with
 * `-` — it reaches the agent's next run as an environment value, the journal and every block's text, so
 * an id of another shape (a newline and a forged line after it, an option) is dropped.
 */
export const COMMAND_SESSION = /^[A-Za-z0-9][A-Za-z0-9._:@-]{0,127}$/;

/** A declared session id, if it has that shape. */
export const sessionId = (s: string | undefined | null): string | null => {
  const t = s?.trim();
  return t && COMMAND_SESSION.test(t) ? t : null;
};

/** The session an outcome file declares (`"session": "<id>"`), if any. */
export function declaredSession(text: string | null): string | null {
  if (!text) return null;
  try {
    const s = (JSON.parse(text) as { session?: unknown }).session;
    return typeof s === "string" ? sessionId(s) : null;
  } catch {
    return null;
  }
}

/** The one mapper: a parsed outcome → agent events. */
export function outcomeEvents(parsed: ParsedOutcome): AgentEvent[] {
  switch (parsed.kind) {
    case "none":
      return [];
    case "limit":
      return [{ type: "limit", kind: parsed.limitKind, resetsAt: parsed.resetsAt, message: parsed.message }];
    case "auth_failed":
      return [{ type: "auth_failed", message: parsed.message }];
    default:
      return [{ type: "outcome", request: parsed }];
  }
}

/** Reads, parses and maps an outcome file (a refused file is a protocol violation). */
export async function outcomeFileEvents(path: string): Promise<{ events: AgentEvent[]; session: string | null }> {
  const r = await readSmallFile(path, OUTCOME_MAX_BYTES);
  if ("error" in r) return { events: [{ type: "outcome", request: { kind: "invalid", error: `protocol violation: ${r.error}` } }], session: null };
  const events = outcomeEvents(parseOutcomeFile(r.text));
  const session = declaredSession(r.text);
  return { events: session ? [{ type: "session", id: session }, ...events] : events, session };
}
