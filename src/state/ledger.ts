// The seat's usage ledger: one JSON line per closed run (<stateDir>/usage.jsonl, 0600) — what this seat
// spent, when, on which task. It answers "today" and "the current 5-hour window" for `status` and the
// fleet view, and the seat's daily budget; the board's cards stay the record for everything else
// (`hermes-bridge usage`). Read once at start through the state-file boundary (a regular file, bounded:
// anything else is quarantined; a bad line is reported and skipped); bounded in time: entries older than
// 8 days are dropped when the file is rewritten.
import { z } from "zod";
import { writeStateFile } from "./atomic.js";
import { appendJsonLine, jsonLines, parseJsonLines } from "./jsonl.js";
import { statePath } from "./layout.js";
import { quarantine, reportBadState } from "./quarantine.js";
import { readSmallFile } from "./read.js";

const amount = z.number().finite().min(0);
const Entry = z.object({
  at: z.number().finite(),
  board: z.string().max(200),
  task: z.string().max(200),
  runId: z.number().int().nullable(),
  tokensIn: amount,
  tokensOut: amount,
  costUsd: amount,
  measured: z.boolean(),
  /** The agent reported a cost (Codex reports tokens only): a run without one is "cost unknown", never free. Absent in older lines. */
  costKnown: z.boolean().optional(),
  /** What the close did (the fleet's 24-hour strip): done · blocked · other (handed back, parked, lost). Absent in older lines. */
  outcome: z.enum(["done", "blocked", "other"]).optional(),
  /** How the run ended (hkb_runs_closed_total's outcome), its block's cause and its run time: the fleet's strip and levels. */
  closed: z.enum(["completed", "blocked", "lost", "dead_letter", "given_back"]).optional(),
  cause: z.string().max(40).optional(),
  durationMs: amount.optional(),
});
export type LedgerEntry = z.output<typeof Entry>;

export interface Spend {
  tokens: number;
  costUsd: number;
  runs: number;
  /** Runs whose agent reported no usage (not counted as free). */
  unmeasured: number;
  /** Runs whose agent reported no cost (their spend in dollars is unknown, not zero). */
  noCost?: number;
}

/**
 * Runs closed per hour over the last 24 hours, the current hour last: from its start (ISO), one count per
 * hour and outcome — `done`/`blocked`/`other`, and finer where the ledger knows (`outcomes`: done, each block
 * cause, lost, dead letter, given back, other) — with what the seat makes of them (`runTimes`, `verdicts`).
 */
export interface Hours {
  from: string;
  done: number[];
  blocked: number[];
  other: number[];
  outcomes?: Record<string, number[]>;
  /** The run times of the runs closed in these hours, by bucket (seconds, upper bounds `edges`; the last bucket is above them). */
  runTimes?: { edges: number[]; counts: number[]; n: number; p50: number | null; p95: number | null };
  /** The seat's service levels these hours cross (observe/service-levels.ts). */
  verdicts?: { level: string; text: string }[];
}

/** The strip's finer outcome of an entry: done, its block's cause, lost, dead letter, given back, or other (older lines). */
export function stripKey(e: LedgerEntry): string {
  if (e.closed === "completed") return "done";
  if (e.closed === "blocked") return e.cause ?? "other";
  if (e.closed === "dead_letter") return "dead letter";
  if (e.closed === "given_back") return "given back";
  if (e.closed === "lost") return "lost";
  return e.outcome === "done" ? "done" : "other";
}

const KEEP_MS = 8 * 24 * 3600_000;
const MAX_BYTES = 16 * 1024 * 1024;

export class UsageLedger {
  private readonly file: string;
  private entries: LedgerEntry[] = [];

  constructor(
    stateDir: string,
    private readonly clock: { now(): number },
  ) {
    this.file = statePath(stateDir, "usage");
  }

  /** Appends one run (in memory at once; on disk best effort — the card is the record). */
  add(e: LedgerEntry): void {
    this.entries.push(e);
    appendJsonLine(this.file, e);
  }

  /** What this seat spent since `since` (epoch ms). */
  since(since: number): Spend {
    const s: Spend = { tokens: 0, costUsd: 0, runs: 0, unmeasured: 0, noCost: 0 };
    for (const e of this.entries) {
      if (e.at < since) continue;
      s.runs += 1;
      s.tokens += e.tokensIn + e.tokensOut;
      s.costUsd += e.costUsd;
      if (!e.measured) s.unmeasured += 1;
      if (e.costKnown === false || (e.costKnown === undefined && e.costUsd === 0)) s.noCost = (s.noCost ?? 0) + 1;
    }
    return s;
  }

  /** The last 24 clock hours (the current one last): runs done, blocked and otherwise closed in each. */
  hours(now: number): Hours {
    const from = now - (now % 3_600_000) - 23 * 3_600_000;
    const h: Hours = { from: new Date(from).toISOString(), done: Array(24).fill(0), blocked: Array(24).fill(0), other: Array(24).fill(0) };
    const outcomes: Record<string, number[]> = {};
    for (const e of this.entries) {
      const i = Math.floor((e.at - from) / 3_600_000);
      if (i < 0 || i > 23) continue;
      const row = h[e.outcome ?? "other"];
      row[i] = (row[i] ?? 0) + 1;
      const key = stripKey(e);
      const o = outcomes[key] ?? Array(24).fill(0);
      o[i] = (o[i] ?? 0) + 1;
      outcomes[key] = o;
    }
    return { ...h, outcomes };
  }

  /** The entries of the last 24 clock hours (as `hours`): what the seat judges its levels by. */
  last24h(now: number): readonly LedgerEntry[] {
    const from = now - (now % 3_600_000) - 23 * 3_600_000;
    return this.entries.filter((e) => e.at >= from && e.at < from + 24 * 3_600_000);
  }

  /** Reads the file (at start): old entries dropped, bad lines reported, an unreadable file quarantined. */
  async load(): Promise<void> {
    const r = await readSmallFile(this.file, MAX_BYTES);
    if ("error" in r) {
      quarantine(this.file, r.error);
      return;
    }
    const { records: parsed, bad } = parseJsonLines(r.text ?? "", Entry);
    if (bad > 0) reportBadState(this.file, `${bad} line(s) are not ledger entries (skipped, and dropped at the next rewrite)`);
    const now = this.clock.now();
    this.entries = parsed.filter((e) => now - e.at < KEEP_MS);
    if (this.entries.length < parsed.length + bad) writeStateFile(this.file, jsonLines(this.entries));
  }
}

/** Midnight (UTC) of the day `now` is in: "today" for a seat's daily numbers and budget. */
export function startOfDay(now: number): number {
  return now - (now % 86_400_000);
}
