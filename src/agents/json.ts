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
