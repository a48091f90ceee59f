// What the config schema knows: the keys zod would accept at a path (for did-you-mean), every key path
// of a schema, and the edit distance the suggestions are ranked by.
import type { z } from "zod";

export function editDistance(a: string, b: string): number {
  const d = Array.from({ length: a.length + 1 }, (_, i) => [i, ...Array<number>(b.length).fill(0)]);
  for (let j = 1; j <= b.length; j += 1) (d[0] as number[])[j] = j;
  for (let i = 1; i <= a.length; i += 1)
    for (let j = 1; j <= b.length; j += 1) {
      const row = d[i] as number[];
      const prev = d[i - 1] as number[];
      row[j] = Math.min((prev[j] as number) + 1, (row[j - 1] as number) + 1, (prev[j - 1] as number) + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
  return (d[a.length] as number[])[b.length] as number;
}

/** Keys zod would have accepted at `path` (for did-you-mean). */
export function knownKeys(schema: z.ZodType, path: readonly PropertyKey[]): string[] {
  let cur: unknown = schema;
  const unwrap = (s: unknown): unknown => {
    let x = s as {
      def?: { type?: string; innerType?: unknown; in?: unknown; schema?: unknown; out?: unknown; options?: unknown[] };
      shape?: Record<string, unknown>;
    };
    for (let i = 0; i < 10 && x?.def && !x.shape; i += 1) x = (x.def.innerType ?? x.def.in ?? x.def.schema ?? x.def.out) as typeof x;
    return x;
  };
  for (const key of path) {
    const s = unwrap(cur) as { shape?: Record<string, unknown> } | undefined;
    cur = s?.shape?.[String(key)];
    if (cur === undefined) return [];
  }
  const s = unwrap(cur) as { shape?: Record<string, unknown>; def?: { options?: unknown[] } } | undefined;
  if (s?.shape) return Object.keys(s.shape);
  const options = (cur as { def?: { options?: unknown[] } } | undefined)?.def?.options ?? s?.def?.options ?? [];
  return [...new Set(options.flatMap((o) => Object.keys((unwrap(o) as { shape?: Record<string, unknown> }).shape ?? {})))];
}

/** The closest of `candidates` to `word` (case-insensitive), when it is close enough to be a likely typo. */
export function closest(word: string, candidates: readonly string[]): string | undefined {
  const best = candidates.map((k) => ({ k, d: editDistance(word.toLowerCase(), k.toLowerCase()) })).sort((a, b) => a.d - b.d)[0];
  return best && best.d <= Math.max(2, Math.floor(word.length / 3)) ? best.k : undefined;
}

/** Every key path of a schema, objects walked down to `depth` (records and arrays are leaves). */
export function keyPaths(schema: z.ZodType, depth = 4, prefix: string[] = []): string[][] {
  if (prefix.length >= depth) return [];
  return knownKeys(schema, prefix).flatMap((k) => [[...prefix, k], ...keyPaths(schema, depth, [...prefix, k])]);
}
