// How `hermes-bridge stats` prints its report: a table (sections of aligned columns, each within 100
// columns: outcomes, rates, times, blocks and hand-backs, spend; then the service levels crossed and what
// is counted apart), CSV (one row per key, every figure a column) or JSON (the report as it is). Every
// cell of another party's text goes through termSafe / csvCell.
import { RETRY_CAUSES } from "../board/card.js";
import { type Quantiles, duration } from "../observe/service-levels.js";
import type { StatsReport, StatsRow } from "../observe/stats-report.js";
import { BLOCK_CAUSES } from "../observe/stats-runs.js";
import { termSafe } from "../result/text.js";
import { csvCell } from "./usage.js";

const KEY = 26;

const pct = (v: number | null) => (v === null ? "-" : `${(v * 100).toFixed(1)}%`);
const money = (v: number | null) => (v === null ? "-" : `$${v.toFixed(4)}`);
const q3 = (q: Quantiles) => (q.n === 0 ? "-" : `${duration(q.p50)}/${duration(q.p95)}/${duration(q.p99)}`);
const flag = (r: StatsRow, level: string) => (r.verdicts.some((v) => v.level === level) ? " !" : "  ");

function table(title: string, by: string, head: string[], widths: number[], rows: StatsRow[], cells: (r: StatsRow) => string[]): string {
  const line = (key: string, cs: string[]) => `${termSafe(key, KEY).padEnd(KEY)}${cs.map((c, i) => c.padStart(widths[i] ?? 8)).join("")}`;
  return [title, line(by.toUpperCase(), head), ...rows.map((r) => line(r.key, cells(r)))].join("\n");
}

export function renderStatsText(r: StatsReport): string {
  const rows = [...r.rows, r.total];
  const l = r.levels;
  const head = [
    `stats since ${r.since} by ${r.by} (boards: ${termSafe(r.boards.join(", "), 60)})`,
    `levels: failure rate < ${pct(l.failureRate)}, dead letters < ${pct(l.deadLetterRate)}, p95 run time <= ${l.runTimeP95Seconds}s (from ${l.minRuns} runs)`,
  ].join("\n");
  const sections = [
    table("OUTCOMES", r.by, ["RUNS", "TRIES", "DONE", "BLOCKED", "LOST", "BACK", "DEAD", "REOPEN", "RUNNING"], [7, 7, 7, 9, 6, 6, 6, 8, 9], rows, (x) =>
      [x.runs, x.attempts, x.completed, x.blocked, x.lost, x.givenBack, x.deadLetters, x.reopened, x.inFlight].map(String),
    ),
    table(
      "RATES (of closed runs) AND RETRIES",
      r.by,
      ["CLOSED", "SUCCESS", "FAILURE", "DEAD LTR", ...RETRY_CAUSES.map((c) => c.toUpperCase())],
      [8, 9, 10, 10, 7, 5, 11],
      rows,
      (x) => [
        String(x.closed),
        pct(x.successRate),
        pct(x.failureRate) + flag(x, "failure_rate"),
        pct(x.deadLetterRate) + flag(x, "dead_letter_rate"),
        ...RETRY_CAUSES.map((c) => String(x.retriesByCause[c])),
      ],
    ),
    table("TIMES p50/p95/p99", r.by, ["PICKUP", "RUN", "TO CLOSE"], [22, 24, 24], rows, (x) => [
      q3(x.pickup),
      q3(x.runTime) + flag(x, "run_time_p95"),
      q3(x.timeToClose),
    ]),
    table(
      "BLOCKED BY CAUSE, GIVEN BACK BY WHY",
      r.by,
      ["HUMAN", "TEST", "ENV", "AUTH", "SPEC", "OTHER", "LIMIT", "API", "STOP", "BOARD", "OTHER"],
      [6, 5, 5, 5, 5, 6, 7, 5, 5, 6, 6],
      rows,
      (x) =>
        [
          ...BLOCK_CAUSES.map((c) => x.blockedByCause[c]),
          x.givenBackBy.limit,
          x.givenBackBy.unreachable,
          x.givenBackBy.shutdown,
          x.givenBackBy.board,
          x.givenBackBy.other,
        ].map(String),
    ),
    table("SPEND", r.by, ["TURNS", "TOKENS IN", "TOKENS OUT", "COST", "PER DONE", "UNMEASURED"], [7, 11, 11, 11, 11, 11], rows, (x) => [
      String(x.turns),
      String(x.tokensIn),
      String(x.tokensOut),
      x.costKnownRuns ? money(x.costUsd) : "unknown",
      money(x.costPerCompleted),
      String(x.unmeasured + x.costUnknown),
    ]),
  ];
  const findings = rows.flatMap((x) => (x.verdicts.length ? [`  ${termSafe(x.key, 96)}`, ...x.verdicts.map((v) => `    ${v.text}`)] : []));
  const t = r.total;
  const notes = [
    findings.length ? `Service levels crossed (!):\n${findings.join("\n")}` : "No service level crossed.",
    t.unmeasured || t.costUnknown ? `${t.unmeasured} run(s) reported no usage, ${t.costUnknown} tokens but no cost: the spend is higher than shown.` : null,
    r.otherRuns ? `${r.otherRuns} run(s) in the window were not a bridge's (not counted).` : null,
    r.untrusted.length
      ? `${r.untrusted.length} run(s) not counted, their record cannot be trusted:\n${r.untrusted
          .slice(0, 10)
          .map((u) => `  ${termSafe(u.key, 96)}\n    ${termSafe(u.why, 94)}`)
          .join("\n")}${r.untrusted.length > 10 ? `\n  … and ${r.untrusted.length - 10} more (--json lists them all)` : ""}`
      : null,
    "Where each figure comes from: hermes-bridge stats --help (docs/stats.md).",
  ].filter(Boolean);
  return `${head}\n\n${sections.join("\n\n")}\n\n${notes.join("\n")}\n`;
}

const CSV_HEAD = [
  "runs",
  "attempts",
  "retries",
  ...RETRY_CAUSES.map((c) => `retries_${c}`),
  "completed",
  "review_handoffs",
  "blocked",
  ...BLOCK_CAUSES.map((c) => `blocked_${c.replace(/ /g, "_")}`),
  "lost",
  "given_back",
  "given_back_limit",
  "given_back_unreachable",
  "given_back_shutdown",
  "given_back_board",
  "given_back_other",
  "dead_letters",
  "reopened",
  "in_flight",
  "closed",
  "success_rate",
  "failure_rate",
  "dead_letter_rate",
  ...["pickup", "run_time", "time_to_close"].flatMap((q) => [`${q}_p50_s`, `${q}_p95_s`, `${q}_p99_s`]),
  "turns",
  "turns_runs",
  "tokens_in",
  "tokens_out",
  "cost_usd",
  "cost_per_completed_usd",
  "unmeasured_runs",
  "cost_unknown_runs",
  "findings",
];

const num = (v: number | null) => (v === null ? "" : Number(v.toFixed(6)));

function csvRow(x: StatsRow): (string | number)[] {
  return [
    x.key,
    x.runs,
    x.attempts,
    x.retries,
    ...RETRY_CAUSES.map((c) => x.retriesByCause[c]),
    x.completed,
    x.reviewHandoffs,
    x.blocked,
    ...BLOCK_CAUSES.map((c) => x.blockedByCause[c]),
    x.lost,
    x.givenBack,
    x.givenBackBy.limit,
    x.givenBackBy.unreachable,
    x.givenBackBy.shutdown,
    x.givenBackBy.board,
    x.givenBackBy.other,
    x.deadLetters,
    x.reopened,
    x.inFlight,
    x.closed,
    num(x.successRate),
    num(x.failureRate),
    num(x.deadLetterRate),
    ...[x.pickup, x.runTime, x.timeToClose].flatMap((q) => [num(q.p50), num(q.p95), num(q.p99)]),
    x.turns,
    x.turnsRuns,
    x.tokensIn,
    x.tokensOut,
    x.costKnownRuns ? num(x.costUsd) : "",
    num(x.costPerCompleted),
    x.unmeasured,
    x.costUnknown,
    x.verdicts.map((v) => v.level).join(" "),
  ];
}

export function renderStats(r: StatsReport, as: "text" | "csv" | "json"): string {
  if (as === "json") return `${JSON.stringify(r, null, 2)}\n`;
  if (as === "csv") return `${[[r.by, ...CSV_HEAD], ...[...r.rows, r.total].map(csvRow)].map((l) => l.map(csvCell).join(",")).join("\n")}\n`;
  return renderStatsText(r);
}
