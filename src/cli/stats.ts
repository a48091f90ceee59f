// `hermes-bridge stats [--since 7d] [--by seat|kind|board|day|task] [--csv|--json]`: how the seats of the
// configured boards did — outcomes, rates, p50/p95/p99, spend — from the board's own records and the
// outboxes of the seats this host keeps (observe/stats-*.ts). No store of its own; needs no agent settings.
import { dirname } from "node:path";
import { reportOptions } from "./ops-config.js";
import { buildBoards, redactorFor } from "../daemon/build.js";
import { STATS_KEYS, type StatsKey, statsReport } from "../observe/stats-report.js";
import { type Sourced, statRuns } from "../observe/stats-runs.js";
import { outboxFacts, seatDirs } from "../observe/stats-sources.js";
import { eachTask } from "../observe/usage-report.js";
import { systemClock } from "../time/clock.js";
import { renderStats } from "./stats-render.js";

export interface StatsOptions {
  config?: string;
  since?: string;
  by?: string;
  csv?: boolean;
  json?: boolean;
  /** The directory holding the seats' state dirs (their outboxes); default fleet.root, else the parent of the state dir. */
  root?: string;
  flags: Record<string, string | undefined>;
}

export async function statsCommand(
  o: StatsOptions,
  env: NodeJS.ProcessEnv = process.env,
  print: (s: string) => void = (s) => process.stdout.write(s),
  now = systemClock.now(),
): Promise<number> {
  const { by, since, c } = await reportOptions<StatsKey>("stats", o, STATS_KEYS, env, now);
  const facts = outboxFacts(await seatDirs(o.root ?? c.fleet.root ?? (c.stateDir ? dirname(c.stateDir) : undefined), [c.stateDir]));
  const boards = buildBoards(c, env, redactorFor(c, env));
  try {
    const runs: Sourced[] = [];
    await eachTask(boards, (slug, d) => runs.push(...statRuns(slug, d, facts)));
    print(renderStats(statsReport(runs, { since, by, boards: c.boards, levels: c.serviceLevels }), o.json ? "json" : o.csv ? "csv" : "text"));
    return 0;
  } finally {
    await Promise.all(boards.map((b) => b.close()));
  }
}
