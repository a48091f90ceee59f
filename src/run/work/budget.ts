// Budgets (agent.budget): per task — tokens and/or cost summed over the task's runs as its cards record
// them (board/card.ts) plus this run so far — and per seat per day (the seat's ledger plus this
// run). A run that crosses one is stopped politely and the task blocked naming the spend and the budget.
// Runs whose agent reported no usage are counted as unmeasured, never as free: the block says so. What a
// run spent is the agent's report or, where larger, what the run's proxy counted on the API route
// (`spentUsage`: any process of the jail can spend the seat's key, the CLI reports only its own calls).
import type { Usage } from "../../agents/port.js";
import type { ApiUse } from "../../egress/api-usage.js";
import type { BudgetConfig, BudgetLimits } from "../context.js";
import type { TaskRunRecord } from "../../board/port.js";
import { runCost } from "../../board/card.js";
import type { Spend } from "../../state/ledger.js";

export interface Overrun {
  scope: "task" | "seat-day";
  spent: { tokens: number; costUsd: number };
  limit: BudgetLimits;
  /** Earlier runs whose usage was never reported (the real spend is higher than shown). */
  unmeasured: number;
}

const tokensOf = (u: Usage | null) => (u?.tokens ? u.tokens.input + u.tokens.output : 0);

/**
 * What a run spent, for its budgets and the seat's books: the agent's report, each token count raised to what
 * the run's proxy counted on the API route where that is larger. The proxy knows no prices: a cost is the
 * agent's. A run whose agent reported nothing but whose proxy counted tokens is measured by those tokens.
 */
export function spentUsage(cli: Usage | null, api: ApiUse | undefined): Usage | null {
  if (!api || api.tokens.input + api.tokens.output === 0) return cli;
  const t = cli?.tokens;
  const input = Math.max(t?.input ?? 0, api.tokens.input);
  const output = Math.max(t?.output ?? 0, api.tokens.output);
  return { ...(cli ?? {}), tokens: { ...(t ?? {}), input, output } };
}

/** The task's earlier runs (not `currentRun`), from `show`. */
export function priorSpend(runs: readonly TaskRunRecord[], currentRun: number | null): Spend {
  const s: Spend = { tokens: 0, costUsd: 0, runs: 0, unmeasured: 0 };
  for (const r of runs) {
    if (r.id === currentRun) continue;
    const c = runCost(r);
    if (!c) continue;
    s.runs += 1;
    s.tokens += c.tokensIn + c.tokensOut;
    s.costUsd += c.costUsd;
    if (!c.measured) s.unmeasured += 1;
  }
  return s;
}

function over(limit: BudgetLimits | undefined, tokens: number, costUsd: number): boolean {
  if (!limit) return false;
  return (limit.tokens !== undefined && tokens > limit.tokens) || (limit.costUsd !== undefined && costUsd > limit.costUsd);
}

/** The first budget this run's usage so far crosses, or null. */
export function overrun(cfg: BudgetConfig, prior: Spend, seatToday: Spend, current: Usage | null): Overrun | null {
  const t = tokensOf(current);
  const c = current?.costUsd ?? 0;
  const task = { tokens: prior.tokens + t, costUsd: prior.costUsd + c };
  if (cfg.task && over(cfg.task, task.tokens, task.costUsd)) return { scope: "task", spent: task, limit: cfg.task, unmeasured: prior.unmeasured };
  const day = { tokens: seatToday.tokens + t, costUsd: seatToday.costUsd + c };
  if (cfg.seatDaily && over(cfg.seatDaily, day.tokens, day.costUsd))
    return { scope: "seat-day", spent: day, limit: cfg.seatDaily, unmeasured: seatToday.unmeasured };
  return null;
}

const fmt = (v: { tokens?: number | undefined; costUsd?: number | undefined }) =>
  [v.tokens !== undefined ? `${v.tokens} tokens` : null, v.costUsd !== undefined ? `$${v.costUsd.toFixed(4)}` : null].filter(Boolean).join(" / ");

/** The spend in the budget's own terms (a cost is shown where the budget has one or the agent reported one). */
const spentText = (o: Overrun) => fmt({ tokens: o.spent.tokens, costUsd: o.limit.costUsd !== undefined || o.spent.costUsd > 0 ? o.spent.costUsd : undefined });

/** The spend and the budget in words (the block names both). */
export function overrunText(o: Overrun): string {
  const what = o.scope === "task" ? "this task's budget (agent.budget.task, summed over its runs)" : "this seat's daily budget (agent.budget.seatDaily)";
  const unmeasured = o.unmeasured ? ` ${o.unmeasured} earlier run(s) reported no usage: the real spend is higher.` : "";
  return `The run was stopped at ${what}: spent ${spentText(o)}, budget ${fmt(o.limit)}.${unmeasured}`;
}
