// `hermes-bridge usage [--since 7d] [--by task|seat|board|day] [--csv|--json]`: tokens and cost from the
// board's own records (observe/usage-report.ts) — every seat that works the configured boards, not only
// this one. Needs no agent settings.
import { reportOptions } from "./ops-config.js";
import { buildBoards, redactorFor } from "../daemon/build.js";
import { type UsageKey, type UsageReport, collectRuns, usageReport } from "../observe/usage-report.js";
import { termSafe } from "../result/text.js";
import { systemClock } from "../time/clock.js";

export interface UsageOptions {
  config?: string;
  since?: string;
  by?: string;
  csv?: boolean;
  json?: boolean;
  flags: Record<string, string | undefined>;
}

const KEYS: readonly UsageKey[] = ["task", "seat", "board", "day"];

/** One CSV cell: quoted when needed; a text cell a spreadsheet would run as a formula (=, +, -, @, tab, CR) gets a leading quote. */
export function csvCell(v: string | number): string {
  let s = String(v);
  if (typeof v === "string" && /^[=+\-@\t\r]/.test(s)) s = `'${s}`;
  return /[",\n\r]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

export function renderUsage(r: UsageReport, as: "text" | "csv" | "json"): string {
  if (as === "json") return `${JSON.stringify(r, null, 2)}\n`;
  const all = [...r.rows, r.total];
  const lines = all.map((x) => [x.key, x.runs, x.unmeasured, x.tokensIn, x.tokensOut, Number(x.costUsd.toFixed(6))]);
  if (as === "csv") {
    const head = [r.by, "runs", "unmeasured_runs", "tokens_in", "tokens_out", "cost_usd", "reopen_runs"];
    return `${[head, ...lines.map((l, i) => [...l, all[i]?.reopens ?? 0])].map((l) => l.map(csvCell).join(",")).join("\n")}\n`;
  }
  const head = `usage since ${r.since} by ${r.by} (boards: ${r.boards.join(", ")})\n`;
  const fmt = (l: (string | number)[]) =>
    `${termSafe(String(l[0]), 40).padEnd(40)} ${String(l[1]).padStart(5)} ${String(l[2]).padStart(11)} ${String(l[3]).padStart(11)} ${String(l[4]).padStart(11)} ${String(l[5]).padStart(11)}`;
  // A cost no agent reported is unknown, never $0 (status, stats and the fleet say the same); `+`: some runs had none.
  const cost = (x: (typeof all)[number]) => (x.costKnownRuns === 0 ? "unknown" : `$${x.costUsd.toFixed(4)}${x.costKnownRuns < x.runs ? "+" : ""}`);
  const body = [
    fmt([r.by.toUpperCase(), "RUNS", "UNMEASURED", "TOKENS IN", "TOKENS OUT", "COST"]),
    ...lines.map((l, i) => fmt([...l.slice(0, 5), cost(all[i] as (typeof all)[number])])),
  ].join("\n");
  const noCost = r.total.runs - r.total.costKnownRuns;
  const notes = [
    noCost ? `${noCost} run(s) reported no cost: a + marks a sum without them (the real spend is higher).` : null,
    r.total.unmeasured ? `${r.total.unmeasured} run(s) reported no usage: the real spend is higher than shown.` : null,
    r.total.reopens ? `${r.total.reopens} run(s) re-worked a task reopened after it was done (a reopen, not a second success).` : null,
    r.otherRuns ? `${r.otherRuns} run(s) in the window were not closed by a bridge (no usage record).` : null,
    r.untrusted.length
      ? `${r.untrusted.length} run(s) not counted, their usage record cannot be trusted:\n${r.untrusted
          .slice(0, 10)
          .map((u) => `  ${termSafe(u.key, 80)}: ${termSafe(u.why, 120)}`)
          .join("\n")}${r.untrusted.length > 10 ? `\n  … and ${r.untrusted.length - 10} more (--json lists them all)` : ""}`
      : null,
  ].filter(Boolean);
  return `${head}${body}\n${notes.length ? `\n${notes.join("\n")}\n` : ""}`;
}

export async function usageCommand(
  o: UsageOptions,
  env: NodeJS.ProcessEnv = process.env,
  print: (s: string) => void = (s) => process.stdout.write(s),
  now = systemClock.now(),
): Promise<number> {
  const { by, since, c } = await reportOptions<UsageKey>("usage", o, KEYS, env, now);
  const boards = buildBoards(c, env, redactorFor(c, env));
  try {
    const runs = await collectRuns(boards);
    print(renderUsage(usageReport(runs, { since, by, boards: c.boards }), o.json ? "json" : o.csv ? "csv" : "text"));
    return 0;
  } finally {
    await Promise.all(boards.map((b) => b.close()));
  }
}
