// `npm run bench:stats [-- --runs 10000] [--repeats 5]`: the bridge's own time to read 10,000 runs for
// `hermes-bridge stats` — each task's `show --json` text parsed as the wire is (board/parse.ts), its runs
// classified (observe/stats-runs.ts), the report summed by seat and by day (observe/stats-report.ts) and
// printed as the table and as JSON. The board's own time (one `show` call per task) is not in it: the texts
// are made up front, shaped as Hermes prints them (a claim, heartbeats, a close; metadata.bridge on a
// complete, the usage line on a block, a hand-back, a lost lease, a run still open). The goal: under 2 s.
// Results go to bench/results-stats.json.
import { writeFileSync } from "node:fs";
import { parseShow } from "../src/board/parse.js";
import { usageLine } from "../src/board/card.js";
import type { TaskDetail } from "../src/board/port.js";
import { renderStats } from "../src/cli/stats-render.js";
import { DEFAULT_LEVELS } from "../src/observe/service-levels.js";
import { statsReport } from "../src/observe/stats-report.js";
import { type Sourced, statRuns } from "../src/observe/stats-runs.js";
import { eachTask } from "../src/observe/usage-report.js";
import { median } from "./lib/proc.js";

const argOf = (n: string) => (process.argv.includes(`--${n}`) ? process.argv[process.argv.indexOf(`--${n}`) + 1] : undefined);
const RUNS = Number(argOf("runs") ?? 10_000);
const REPEATS = Number(argOf("repeats") ?? 5);
const PER_TASK = 4;
const T0 = 1_796_000_000;
const SEATS = ["ws1/claude-1", "ws1/claude-2", "ws2/codex-1", "gpu/llm"];
const CAUSES = ["test failure", "environment", "human decision needed", "spec undecided", "auth missing"];

const task = (id: string) => ({
  id,
  title: `task ${id}`,
  body: "Do the thing.\n\n## Verification\nnpm test",
  assignee: "pool",
  status: "done",
  priority: 0,
  tenant: null,
  workspace_kind: "scratch",
  workspace_path: `/srv/hermes/kanban/boards/main/workspaces/${id}`,
  branch_name: null,
  project_id: null,
  created_by: "user",
  created_at: T0,
  started_at: T0 + 5,
  completed_at: T0 + 900,
  result: null,
  skills: [],
  max_retries: null,
  model_override: null,
  provider_override: null,
  session_id: null,
  workflow_template_id: null,
  current_step_key: null,
});

/** One task's `show --json`: PER_TASK runs, each ending another way (a run id of its own). */
function showText(n: number, firstRun: number): string {
  const id = `t_${n.toString(16).padStart(8, "0")}`;
  const events: unknown[] = [{ kind: "created", payload: { status: "ready", assignee: "pool" }, created_at: T0, run_id: null }];
  const runs: unknown[] = [];
  let t = T0 + 5;
  for (let k = 0; k < PER_TASK; k += 1) {
    const run = firstRun + k;
    const seat = SEATS[(n + k) % SEATS.length] ?? "s";
    const ends = (n * PER_TASK + k) % 10;
    events.push({ kind: "claimed", payload: { lock: `vm:${1000 + run}`, expires: t + 900, run_id: run }, created_at: t, run_id: run });
    for (let h = 1; h <= 3; h += 1) events.push({ kind: "heartbeat", payload: { note: `step ${h} of the work` }, created_at: t + h * 60, run_id: run });
    const end = t + 240 + ((n * 7 + k * 13) % 600);
    const usage = { tokens: { input: 12_000 + n, output: 900 + k }, costUsd: 0.05 + (n % 7) / 100, turns: 3 + (n % 5) };
    const base = { id: run, profile: "pool", step_key: null, worker_pid: null, started_at: t, error: null };
    if (ends < 6) {
      const metadata = {
        ok: true,
        status: "ok",
        items: 1,
        metrics: {},
        note: "done",
        artifacts: [],
        error: null,
        bridge: {
          trace_id: `tr-${run}`,
          seat,
          host: "vm",
          usage: "measured",
          agent: "claude-code",
          run_id: run,
          duration_ms: (end - t) * 1000,
          turns: usage.turns,
          cost_usd: usage.costUsd,
          tokens: usage.tokens,
        },
      };
      runs.push({ ...base, status: "done", outcome: "completed", summary: "Implemented it.", metadata, ended_at: end });
      events.push({ kind: "completed", payload: { summary: "Implemented it.", result_len: 0 }, created_at: end, run_id: run });
      events.push({ kind: "review_reopened", payload: null, created_at: end + 30, run_id: null });
    } else if (ends < 8) {
      const reason = `cause: ${CAUSES[n % CAUSES.length]}\nwhat happened: it did not work (workspace /srv/x, run ${run}, trace tr-${run})\noptions: A) fix it; B) leave it\nrecommendation: A\nnext action needed: fix it, then unblock\n${usageLine(usage, "m", seat, { agent: "claude-code", retries: ends === 7 ? ["crash"] : [] })}`;
      runs.push({ ...base, status: "blocked", outcome: "blocked", summary: reason, metadata: null, ended_at: end });
      events.push({ kind: "blocked", payload: { reason, kind: "needs_input", recurrences: 1 }, created_at: end, run_id: run });
      events.push({ kind: "unblocked", payload: null, created_at: end + 60, run_id: null });
    } else if (ends === 8) {
      const reason = `usage limit of seat ${seat}: handed back to the lane 'pool' (seat.onLimit: handoff; no action needed) ${usageLine(usage, "m", seat, { agent: "claude-code" })}`;
      runs.push({ ...base, status: "reclaimed", outcome: "reclaimed", summary: null, metadata: null, ended_at: end });
      events.push({ kind: "reclaimed", payload: { manual: true, reason, prev_lock: `vm:${1000 + run}` }, created_at: end, run_id: run });
    } else {
      runs.push({ ...base, status: "reclaimed", outcome: "reclaimed", summary: null, metadata: null, ended_at: end });
      events.push({ kind: "reclaimed", payload: { manual: true, reason: "taken back" }, created_at: end, run_id: run });
    }
    t = end + 90;
  }
  return JSON.stringify({ task: task(id), latest_summary: null, parents: [], children: [], comments: [], events, runs });
}

const tasks = Math.ceil(RUNS / PER_TASK);
const texts = Array.from({ length: tasks }, (_, n) => showText(n, n * PER_TASK + 1));
const bytes = texts.reduce((a, s) => a + s.length, 0);
// The board as `stats` reads it: `list`, then one `show` per task — here answered at once with the text.
const board = {
  slug: "main",
  listTasks: async () => texts.map((_, n) => ({ id: String(n) }) as never),
  show: async (id: string): Promise<TaskDetail> => parseShow(texts[Number(id)] ?? ""),
};

interface Sample {
  readMs: number;
  reportMs: number;
  renderMs: number;
  totalMs: number;
  cpuMs: number;
}

async function once(): Promise<Sample> {
  const cpu = process.cpuUsage();
  const t0 = performance.now();
  const runs: Sourced[] = [];
  await eachTask([board], (slug, d) => runs.push(...statRuns(slug, d)));
  const t1 = performance.now();
  const bySeat = statsReport(runs, { since: 0, by: "seat", boards: ["main"], levels: DEFAULT_LEVELS });
  const byDay = statsReport(runs, { since: 0, by: "day", boards: ["main"], levels: DEFAULT_LEVELS });
  const t2 = performance.now();
  const out = renderStats(bySeat, "text").length + renderStats(byDay, "json").length;
  const t3 = performance.now();
  const used = process.cpuUsage(cpu);
  if (bySeat.total.runs !== tasks * PER_TASK || out === 0) throw new Error(`read ${bySeat.total.runs} runs, not ${tasks * PER_TASK}`);
  return { readMs: t1 - t0, reportMs: t2 - t1, renderMs: t3 - t2, totalMs: t3 - t0, cpuMs: (used.user + used.system) / 1000 };
}

await once(); // warm
const samples: Sample[] = [];
for (let i = 0; i < REPEATS; i += 1) samples.push(await once());
const med = (k: keyof Sample) => Math.round(median(samples.map((s) => s[k])));
const result = {
  at: new Date().toISOString(),
  node: process.version,
  runs: tasks * PER_TASK,
  tasks,
  showJsonBytes: bytes,
  repeats: REPEATS,
  median: { readMs: med("readMs"), reportMs: med("reportMs"), renderMs: med("renderMs"), totalMs: med("totalMs"), cpuMs: med("cpuMs") },
  goalMs: 2000,
  note: "the bridge's own time: show --json texts parsed, runs classified, reports by seat and by day, the table and JSON printed; the board's own time (one show per task) not included",
};
writeFileSync("bench/results-stats.json", `${JSON.stringify(result, null, 2)}\n`);
console.log(JSON.stringify(result, null, 2));
