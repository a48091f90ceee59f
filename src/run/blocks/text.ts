// What one entry of the block table (table.ts) gives: the template's five fields — its cause, what happened,
// the options, the recommendation, the next action — and whether the block is a usage limit's. Each part of
// the table (agent.ts, before.ts, after.ts) is a map from its keys to such texts, its arguments typed per key.
import type { Cause } from "../../result/template.js";

export type BlockText = [cause: Cause, what: string, options: string[], recommendation: string, nextAction: string, limit?: boolean];

/** A part of the table: each key's text from that key's arguments. */
export type BlockTexts<Args> = { [K in keyof Args]: Args[K] extends unknown[] ? (...a: Args[K]) => BlockText : never };

/** The last `n` characters of `s`, trimmed (an output tail in a block). */
export function tail(s: string, n = 1200): string {
  const t = s.trim();
  return t.length > n ? `…${t.slice(t.length - n)}` : t;
}
