// The command agent's outcome file, parsed (pure):
//   {"outcome":"complete","summary":"…","result":{…common result…}}
//   {"outcome":"block","block":{cause, what_happened, options, recommendation, next_action}}
import type { OutcomeRequest } from "../port.js";

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
    if (typeof o.summary !== "string" || o.summary.trim() === "") return { kind: "invalid", error: "outcome complete needs a non-empty \"summary\" string" };
    return { kind: "complete", summary: o.summary, result: o.result };
  }
  if (o.outcome === "block") {
    if (!o.block || typeof o.block !== "object") return { kind: "invalid", error: "outcome block needs a \"block\" object with the five template fields" };
    return { kind: "block", block: o.block as OutcomeRequest extends { block: infer B } ? B : never };
  }
  if (o.outcome === "auth_failed") return { kind: "auth_failed", message: typeof o.message === "string" ? o.message : "authentication failed" };
  if (o.outcome === "limit") {
    // {"outcome":"limit","kind":"usage","resets_at":"<ISO or epoch seconds>","message":"…"}
    const raw = o.resets_at;
    const resetsAt = typeof raw === "number" ? raw * 1000 : typeof raw === "string" && !Number.isNaN(Date.parse(raw)) ? Date.parse(raw) : null;
    return { kind: "limit", limitKind: typeof o.kind === "string" ? o.kind : "usage", resetsAt, message: typeof o.message === "string" ? o.message : "usage limit reached" };
  }
  return { kind: "invalid", error: `"outcome" must be "complete", "block", "limit" or "auth_failed" (got ${JSON.stringify(o.outcome ?? null)})` };
}
