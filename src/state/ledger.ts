// The seat's usage ledger: one JSON line per closed run (<stateDir>/usage.jsonl, 0600) — what this seat
// spent, when, on which task. It answers "today" and "the current 5-hour window" for `status` and the
// fleet view, and the seat's daily budget; the board's cards stay the record for everything else
// (`hermes-bridge usage`). Bounded: entries older than 8 days are dropped when the file is rewritten.
import { appendFileSync, existsSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { z } from "zod";

const Entry = z.object({
  at: z.number(),
  board: z.string(),
  task: z.string(),
  runId: z.number().nullable(),
  tokensIn: z.number(),
  tokensOut: z.number(),
  costUsd: z.number(),
  measured: z.boolean(),
});
export type LedgerEntry = z.output<typeof Entry>;

export interface Spend {
  tokens: number;
  costUsd: number;
  runs: number;
  /** Runs whose agent reported no usage (not counted as free). */
  unmeasured: number;
}

const KEEP_MS = 8 * 24 * 3600_000;

export class UsageLedger {
  private readonly file: string;
  private entries: LedgerEntry[] | null = null;

  constructor(
    stateDir: string,
    private readonly clock: { now(): number },
  ) {
    this.file = join(stateDir, "usage.jsonl");
  }

  add(e: LedgerEntry): void {
    this.load().push(e);
    appendFileSync(this.file, `${JSON.stringify(e)}\n`, { mode: 0o600 });
  }

  /** What this seat spent since `since` (epoch ms). */
  since(since: number): Spend {
    const s: Spend = { tokens: 0, costUsd: 0, runs: 0, unmeasured: 0 };
    for (const e of this.load()) {
      if (e.at < since) continue;
      s.runs += 1;
      s.tokens += e.tokensIn + e.tokensOut;
      s.costUsd += e.costUsd;
      if (!e.measured) s.unmeasured += 1;
    }
    return s;
  }

  private load(): LedgerEntry[] {
    if (this.entries) return this.entries;
    const now = this.clock.now();
    const lines = existsSync(this.file) ? readFileSync(this.file, "utf8").split("\n") : [];
    const parsed = lines.flatMap((l) => {
      if (!l.trim()) return [];
      try {
        const r = Entry.safeParse(JSON.parse(l));
        return r.success ? [r.data] : [];
      } catch {
        return [];
      }
    });
    this.entries = parsed.filter((e) => now - e.at < KEEP_MS);
    if (this.entries.length < parsed.length) {
      writeFileSync(`${this.file}.tmp`, this.entries.map((e) => `${JSON.stringify(e)}\n`).join(""), { mode: 0o600 });
      renameSync(`${this.file}.tmp`, this.file);
    }
    return this.entries;
  }
}

/** Midnight (UTC) of the day `now` is in: "today" for a seat's daily numbers and budget. */
export function startOfDay(now: number): number {
  return now - (now % 86_400_000);
}
