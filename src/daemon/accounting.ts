// What a closed run leaves behind in the seat's own books: the run metrics and one line in the usage
// ledger (state/ledger.ts) — today's and the 5-hour window's spend for status, the fleet view and the
// seat's daily budget. The board's cards stay the record for `hermes-bridge usage`.
import type { Config } from "../config/schema.js";
import type { Metrics } from "../observe/metrics.js";
import type { RunReport } from "../run/task-run.js";
import { type Hours, type Spend, type UsageLedger, startOfDay } from "../state/ledger.js";

export interface Books {
  config: Config;
  clock: { now(): number };
  metrics?: Metrics | undefined;
  ledger?: UsageLedger | undefined;
}

export function account(b: Books, board: string, r: RunReport): void {
  const u = r.usage;
  try {
    b.ledger?.add({
      at: b.clock.now(),
      board,
      task: r.taskId,
      runId: r.runId,
      tokensIn: u?.tokens?.input ?? 0,
      tokensOut: u?.tokens?.output ?? 0,
      costUsd: u?.costUsd ?? 0,
      measured: u?.tokens !== undefined || u?.costUsd !== undefined,
      costKnown: u?.costUsd !== undefined,
      outcome: ledgerOutcome(r),
    });
  } catch {
    // The ledger is the seat's own convenience (status, daily budget): the card keeps the record.
  }
  const m = b.metrics;
  if (!m) return;
  m.runDuration.observe({ board, decision: r.decision }, r.durationMs / 1000);
  if (r.close === "lease_lost" || r.decision === "lost") m.leaseLosses.inc({ board });
  else if (r.close === "failed" || r.close === "dead") m.closeFailures.inc({ board, result: r.close });
  else if (r.decision === "complete") (r.reopen ? m.reopens : m.completes).inc({ board });
  else if (r.handedOff) m.limitHandoffs.inc({ board, mode: r.handedOff });
  else if (r.decision === "block" && !r.stopped) m.blocks.inc({ board, cause: r.cause ?? "unknown" });
  if (r.resumed) m.resumes.inc({ board });
  if (r.cut === "stall") m.stalls.inc({ board });
  m.usage(b.config.seat.name, r.agent, r.usage);
}

/** The fleet strip's three kinds of close: a landed complete, a landed block (not a usage-limit hand-back), the rest. */
function ledgerOutcome(r: RunReport): "done" | "blocked" | "other" {
  const landed = r.close === "applied" || r.close === "already_applied";
  if (!landed || r.handedOff || r.stopped) return "other";
  return r.decision === "complete" ? "done" : r.decision === "block" ? "blocked" : "other";
}

const NOTHING: Spend = { tokens: 0, costUsd: 0, runs: 0, unmeasured: 0, noCost: 0 };

/** What this seat spent since `from` (epoch ms). */
export const spentSince = (b: Books, from: number): Spend => b.ledger?.since(from) ?? { ...NOTHING };

/** Runs closed per hour over the last 24 hours (the fleet's strip). */
export const hoursOf = (b: Books): Hours | null => b.ledger?.hours(b.clock.now()) ?? null;

/** What this seat spent today (since midnight UTC). */
export const spentToday = (b: Books): Spend => spentSince(b, startOfDay(b.clock.now()));

/** Why this seat claims nothing more today (its daily budget is spent), or null. */
export function dailyBudgetSpent(b: Books): string | null {
  const limit = b.config.agent.budget.seatDaily;
  if (!limit) return null;
  const s = spentToday(b);
  const tokens = limit.tokens !== undefined && s.tokens >= limit.tokens;
  const cost = limit.costUsd !== undefined && s.costUsd >= limit.costUsd;
  if (!tokens && !cost) return null;
  return `daily budget spent (${s.tokens} tokens, $${s.costUsd.toFixed(4)} since midnight UTC; agent.budget.seatDaily ${limit.tokens ?? "-"} tokens / $${limit.costUsd ?? "-"})`;
}
