// `hermes-bridge stats`: the runs of every seat of the boards (stats-runs.ts) summed by seat, agent kind,
// board, day or task over a window — outcomes, rates, p50/p95/p99 of pickup, run time and time to close,
// turns, tokens and cost (per completed task) — and the service levels each row crosses (service-levels.ts).
// Runs whose agent reported no usage are counted apart (unmeasured), never as free; runs of other workers
// and runs whose record cannot be trusted are counted apart too.
import { RETRY_CAUSES, type RetryCause } from "../board/card.js";
import { type Quantiles, type ServiceLevels, type Verdict, quantiles, verdicts } from "./service-levels.js";
import { BLOCK_CAUSES, type BlockCause, type GivenBack, type Sourced, type StatRun } from "./stats-runs.js";

export type StatsKey = "seat" | "kind" | "board" | "day" | "task";
export const STATS_KEYS: readonly StatsKey[] = ["seat", "kind", "board", "day", "task"];
const GIVEN_BACK: readonly GivenBack[] = ["limit", "unreachable", "shutdown", "board", "other"];

export interface StatsRow {
  key: string;
  /** Runs of the bridge in the window (closed, given back, in flight). */
  runs: number;
  inFlight: number;
  /** Agent attempts: each run's first, plus its retries (agent.retries). */
  attempts: number;
  retries: number;
  retriesByCause: Record<RetryCause, number>;
  /** Closes that passed the gate (a review hand-off among them). */
  completed: number;
  reviewHandoffs: number;
  blocked: number;
  blockedByCause: Record<BlockCause, number>;
  lost: number;
  givenBack: number;
  givenBackBy: Record<GivenBack, number>;
  deadLetters: number;
  /** Reopens and review round trips that sent a close back. */
  reopened: number;
  /** completed + blocked + lost + dead letters (a hand-back is no close: the task goes on). */
  closed: number;
  successRate: number | null;
  failureRate: number | null;
  deadLetterRate: number | null;
  pickup: Quantiles;
  runTime: Quantiles;
  timeToClose: Quantiles;
  /** Turns summed over the runs that reported them (`turnsRuns`). */
  turns: number;
  turnsRuns: number;
  tokensIn: number;
  tokensOut: number;
  /** Dollars of the runs that reported a cost; `costUnknown` and `unmeasured` runs are not in it (never free). */
  costUsd: number;
  unmeasured: number;
  costUnknown: number;
  /** Runs that reported a cost: with none, the row's dollars are unknown (not zero). */
  costKnownRuns: number;
  /** costUsd ÷ completed (every run's cost, the failed ones' too); null with nothing completed or no cost known. */
  costPerCompleted: number | null;
  verdicts: Verdict[];
}

export interface StatsReport {
  since: string;
  by: StatsKey;
  boards: string[];
  levels: ServiceLevels;
  rows: StatsRow[];
  total: StatsRow;
  /** Runs in the window that no bridge claimed (Hermes's own workers, manual runs). */
  otherRuns: number;
  /** Runs whose record cannot be trusted (edited after the close, a foreign claimer, bad numbers): not counted. */
  untrusted: { key: string; why: string }[];
}

const count = <K extends string>(keys: readonly K[]) => Object.fromEntries(keys.map((k) => [k, 0])) as Record<K, number>;
const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);

function keyOf(r: StatRun, by: StatsKey): string {
  if (by === "task") return `${r.board}/${r.task}`;
  if (by === "board") return r.board;
  if (by === "day") return day(r.at);
  if (by === "kind") return r.agent ?? "(unknown kind)";
  return r.seat ?? "(unknown seat)";
}

/** One row of runs. */
export function statsRow(key: string, runs: readonly StatRun[], levels: ServiceLevels): StatsRow {
  const n = (o: StatRun["outcome"]) => runs.filter((r) => r.outcome === o).length;
  const retriesByCause = count(RETRY_CAUSES);
  const blockedByCause = count(BLOCK_CAUSES);
  const givenBackBy = count(GIVEN_BACK);
  for (const r of runs) {
    for (const c of r.retries) retriesByCause[c] += 1;
    if (r.outcome === "blocked") blockedByCause[r.cause ?? "other"] += 1;
    if (r.outcome === "given_back") givenBackBy[r.givenBack ?? "other"] += 1;
  }
  const [completed, blocked, lost, deadLetters] = [n("completed"), n("blocked"), n("lost"), n("dead_letter")];
  const closed = completed + blocked + lost + deadLetters;
  const failed = blocked + lost + deadLetters;
  const retries = runs.reduce((a, r) => a + r.retries.length, 0);
  const rate = (x: number) => (closed > 0 ? x / closed : null);
  const timed = (f: (r: StatRun) => number | null) => runs.map(f).filter((v): v is number => v !== null);
  const runTime = quantiles(timed((r) => (r.outcome === "in_flight" ? null : r.runMs)));
  const costUsd = runs.reduce((a, r) => a + (r.costKnown ? r.costUsd : 0), 0);
  const costKnownRuns = runs.filter((r) => r.costKnown).length;
  return {
    key,
    runs: runs.length,
    inFlight: n("in_flight"),
    attempts: runs.length + retries,
    retries,
    retriesByCause,
    completed,
    reviewHandoffs: runs.filter((r) => r.review).length,
    blocked,
    blockedByCause,
    lost,
    givenBack: n("given_back"),
    givenBackBy,
    deadLetters,
    reopened: runs.reduce((a, r) => a + r.reopened, 0),
    closed,
    successRate: rate(completed),
    failureRate: rate(failed),
    deadLetterRate: rate(deadLetters),
    pickup: quantiles(timed((r) => r.pickupMs)),
    runTime,
    timeToClose: quantiles(timed((r) => r.closeMs)),
    turns: runs.reduce((a, r) => a + (r.turns ?? 0), 0),
    turnsRuns: runs.filter((r) => r.turns !== null).length,
    tokensIn: runs.reduce((a, r) => a + r.tokensIn, 0),
    tokensOut: runs.reduce((a, r) => a + r.tokensOut, 0),
    costUsd,
    unmeasured: runs.filter((r) => !r.measured).length,
    costUnknown: runs.filter((r) => r.measured && !r.costKnown).length,
    costKnownRuns,
    costPerCompleted: completed > 0 && costKnownRuns > 0 ? costUsd / completed : null,
    verdicts: verdicts({ closed, failed, deadLetters, runTime }, levels),
  };
}

/** Sums the runs that ended (or, in flight, started) at or after `since` (epoch ms) by the key. */
export function statsReport(all: readonly Sourced[], o: { since: number; by: StatsKey; boards: string[]; levels: ServiceLevels }): StatsReport {
  const groups = new Map<string, StatRun[]>();
  const inWindow: StatRun[] = [];
  let otherRuns = 0;
  const untrusted: StatsReport["untrusted"] = [];
  for (const s of all) {
    const at = s.source === "bridge" ? s.run.at : s.at;
    if (at < o.since) continue;
    if (s.source === "other") otherRuns += 1;
    else if (s.source === "untrusted") untrusted.push({ key: s.key, why: s.why });
    else {
      inWindow.push(s.run);
      const k = keyOf(s.run, o.by);
      const g = groups.get(k) ?? [];
      g.push(s.run);
      groups.set(k, g);
    }
  }
  const rows = [...groups.entries()].map(([k, runs]) => statsRow(k, runs, o.levels));
  rows.sort((a, b) => (o.by === "day" ? a.key.localeCompare(b.key) : b.runs - a.runs || a.key.localeCompare(b.key)));
  return {
    since: new Date(o.since).toISOString(),
    by: o.by,
    boards: o.boards,
    levels: o.levels,
    rows,
    total: statsRow("total", inWindow, o.levels),
    otherRuns,
    untrusted,
  };
}
