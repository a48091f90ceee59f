// The one set of JSON coercions the translators share: unknown → a typed value or null, never a throw.
// (A missing number is null, not 0: callers decide what an absent field means.)

export type Json = Record<string, unknown>;

export const obj = (v: unknown): Json => (v && typeof v === "object" && !Array.isArray(v) ? (v as Json) : {});
export const arr = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
export const str = (v: unknown): string | null => (typeof v === "string" ? v : null);
export const num = (v: unknown): number | null => (typeof v === "number" && Number.isFinite(v) ? v : null);

/** One JSON line, or null when the line is not a JSON object (CLI warnings, blank lines). */
export function parseLine(raw: string): Json | null {
  try {
    const v = JSON.parse(raw) as unknown;
    return v && typeof v === "object" && !Array.isArray(v) ? (v as Json) : null;
  } catch {
    return null;
  }
}

/**
 * A session handle as the CLIs make them (Claude Code's session_id, Codex's thread_id: a UUID), or null.
 * What the agent prints is its word: an id of another shape never reaches an argv, the journal or a card.
 */
export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
export const uuid = (v: unknown): string | null => {
  const s = str(v);
  return s !== null && UUID.test(s) ? s : null;
};

/** A model name as providers spell them ("claude-sonnet-4-5", "gpt-5.1-codex", "org/model:tag"), or null. */
export const modelName = (v: unknown): string | null => {
  const s = str(v);
  return s !== null && /^[A-Za-z0-9][A-Za-z0-9._:/@[\]-]{0,99}$/.test(s) ? s : null;
};
