// The seed's service levels (seeds/001: investigate a failure rate of 5 %, alert on a dead-letter rate of
// 1 %, watch p95 processing time) as one verdict, whoever asks: `hermes-bridge stats` (the board's records),
// the fleet page (a seat's own last 24 hours, from its ledger) and the Prometheus rules (which read the same
// levels from the seat's /metrics: hkb_service_level_*). Pure; the levels are config (`serviceLevels`).

export interface ServiceLevels {
  /** (blocked + lost + dead letters) ÷ closed at or above this is a finding. */
  failureRate: number;
  /** Dead letters ÷ closed at or above this is a finding. */
  deadLetterRate: number;
  /** The run time's p95 above this (seconds) is a finding. */
  runTimeP95Seconds: number;
  /** Fewer closed runs (or timed runs) than this in the window: no verdict — a rate of 1 in 3 says little. */
  minRuns: number;
}

export const DEFAULT_LEVELS: ServiceLevels = { failureRate: 0.05, deadLetterRate: 0.01, runTimeP95Seconds: 600, minRuns: 10 };

/** 42s · 7m05s · 1h12m: short enough for three in a cell. */
export function duration(s: number | null): string {
  if (s === null) return "-";
  const t = Math.round(s);
  if (t < 60) return `${t}s`;
  if (t < 3600) return `${Math.floor(t / 60)}m${String(t % 60).padStart(2, "0")}s`;
  return `${Math.floor(t / 3600)}h${String(Math.floor((t % 3600) / 60)).padStart(2, "0")}m`;
}

export interface Quantiles {
  n: number;
  /** Seconds; null with no value. */
  p50: number | null;
  p95: number | null;
  p99: number | null;
}

/** The nearest-rank quantile of sorted values (the smallest value with at least q of them at or below it). */
export function nearestRank(sorted: readonly number[], q: number): number | null {
  if (sorted.length === 0) return null;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))] ?? null;
}

/** p50 / p95 / p99 of durations in milliseconds, as seconds. */
export function quantiles(ms: readonly number[]): Quantiles {
  const s = [...ms].sort((a, b) => a - b).map((v) => v / 1000);
  return { n: s.length, p50: nearestRank(s, 0.5), p95: nearestRank(s, 0.95), p99: nearestRank(s, 0.99) };
}

/** The run-time buckets of the fleet's distribution (seconds, upper bounds; one more bucket above the last). */
export const RUN_TIME_EDGES = [60, 300, 900, 1800, 3600] as const;

/** Run times (ms) by bucket, with their p50 and p95 (seconds). */
export function distribution(ms: readonly number[]): { edges: number[]; counts: number[]; n: number; p50: number | null; p95: number | null } {
  const counts: number[] = Array(RUN_TIME_EDGES.length + 1).fill(0);
  for (const v of ms) {
    const i = RUN_TIME_EDGES.findIndex((e) => v / 1000 <= e);
    const b = i < 0 ? RUN_TIME_EDGES.length : i;
    counts[b] = (counts[b] ?? 0) + 1;
  }
  const q = quantiles(ms);
  return { edges: [...RUN_TIME_EDGES], counts, n: q.n, p50: q.p50, p95: q.p95 };
}

export type Level = "failure_rate" | "dead_letter_rate" | "run_time_p95";

export interface Verdict {
  level: Level;
  value: number;
  limit: number;
  /** One line for a person: what crossed which level, and the key that sets it. */
  text: string;
}

export interface Tally {
  closed: number;
  failed: number;
  deadLetters: number;
  runTime: Quantiles;
}

const pct = (v: number) => `${(v * 100).toFixed(1)} %`;

/** The levels a tally crosses (none under `minRuns`). */
export function verdicts(t: Tally, l: ServiceLevels): Verdict[] {
  const out: Verdict[] = [];
  if (t.closed >= l.minRuns && t.closed > 0) {
    const failure = t.failed / t.closed;
    if (failure >= l.failureRate && t.failed > 0)
      out.push({
        level: "failure_rate",
        value: failure,
        limit: l.failureRate,
        text: `failure rate ${pct(failure)} ≥ ${pct(l.failureRate)} (${t.failed} of ${t.closed} closed runs; serviceLevels.failureRate)`,
      });
    const dead = t.deadLetters / t.closed;
    if (dead >= l.deadLetterRate && t.deadLetters > 0)
      out.push({
        level: "dead_letter_rate",
        value: dead,
        limit: l.deadLetterRate,
        text: `dead-letter rate ${pct(dead)} ≥ ${pct(l.deadLetterRate)} (${t.deadLetters} of ${t.closed} closes never landed; serviceLevels.deadLetterRate)`,
      });
  }
  const p95 = t.runTime.p95;
  if (p95 !== null && t.runTime.n >= l.minRuns && p95 > l.runTimeP95Seconds)
    out.push({
      level: "run_time_p95",
      value: p95,
      limit: l.runTimeP95Seconds,
      text: `p95 run time ${Math.round(p95)} s > ${l.runTimeP95Seconds} s (${t.runTime.n} runs; serviceLevels.runTimeP95Seconds)`,
    });
  return out;
}
