// The usage report (`hermes-bridge usage`): tokens and cost by task, seat, board or day, read from the
// board's own records — every run a bridge closed carries its usage (a complete's `metadata.bridge`; a
// block's, schedule's or hand-back's `usage:` line) — so it covers every seat of every host that works
// the board. Runs whose agent reported nothing are counted as unmeasured, never as free; runs no bridge
// closed (Hermes's own workers, manual closes) are counted apart.
import type { Board, TaskDetail, TaskRunRecord } from "../board/port.js";
import { type RunCost, cardRecordProblem, runCost } from "../board/card.js";

export type UsageKey = "task" | "seat" | "board" | "day";

export interface UsageRow {
  key: string;
  runs: number;
  unmeasured: number;
  /** Runs that re-worked a task reopened after it was done (0.21.6 `reopen`): a reopen, not a second success. */
  reopens: number;
  tokensIn: number;
  tokensOut: number;
  /** The sum of the costs agents reported; `costKnownRuns` of `runs` reported one (none: the cost is unknown, never $0). */
  costUsd: number;
  costKnownRuns: number;
}

export interface UsageReport {
  since: string;
  by: UsageKey;
  boards: string[];
  rows: UsageRow[];
  total: UsageRow;
  /** Runs in the window that no bridge closed (no usage record). */
  otherRuns: number;
  /** Runs whose usage record cannot be trusted (edited after the close, not a bridge's claim, bad values): not counted. */
  untrusted: { key: string; why: string }[];
}

/** One closed run with what it cost, as the card records it. */
export interface CardRun {
  board: string;
  task: string;
  run: TaskRunRecord;
  cost: RunCost | null;
  /** Why the run's usage record is not counted, or null (card totals are advisory: any board writer can edit a done card). */
  distrust: string | null;
  /** The run re-worked a reopened task: a `reopened` event came before its start with no completion between. */
  reopen: boolean;
}

/**
 * The board's own record of a reopen (its `reopened` event) before the run's claim, with no completion between — by
 * the events' order (the board lists them by time, then as written: kanban_db.py `list_events`): a run, its close and
 * a reopen can share one second.
 */
function reworksReopen(d: TaskDetail, run: TaskRunRecord): boolean {
  const claimed = d.events.findIndex((e) => e.kind === "claimed" && e.runId === run.id);
  const before = claimed >= 0 ? d.events.slice(0, claimed) : d.events.filter((e) => e.createdAt <= (run.startedAt ?? Number.POSITIVE_INFINITY));
  const reopened = before.findLastIndex((e) => e.kind === "reopened");
  return reopened >= 0 && !before.slice(reopened).some((e) => e.kind === "completed");
}

const CLOSE_EVENTS = new Set(["blocked", "block_loop_detected", "reclaimed", "scheduled"]);

/** A claim lock that is neither a bridge's named claimer nor a 0.20 `<host>:<pid>` lock (which any worker has). */
const foreignClaimer = (lock: string) => !lock.startsWith("hermes-bridge:") && !/^[^:\s]+:\d+$/.test(lock);

/** Why a run's usage record is not the bridge's own, or null. */
export function distrustOf(d: TaskDetail, run: TaskRunRecord, cost: RunCost | null): string | null {
  if (!cost) return null;
  const edited = d.events.find((e) => e.runId === run.id && e.kind === "edited");
  if (edited) return "its record was edited after the close (kanban edit)";
  const lock = d.events.find((e) => e.runId === run.id && e.claim !== null)?.claim?.lock;
  if (typeof lock === "string" && foreignClaimer(lock)) return `its claim (${lock.slice(0, 80)}) was not a bridge's`;
  return cardRecordProblem(run);
}

/** The run's record: its summary/error and the reasons of the events that closed it (a reclaim keeps its reason only there). */
export function cardRuns(board: string, d: TaskDetail): CardRun[] {
  return d.runs.map((run) => {
    const reasons = d.events.filter((e) => e.runId === run.id && CLOSE_EVENTS.has(e.kind)).map((e) => e.reason ?? "");
    const cost = runCost({ ...run, reasons });
    return { board, task: d.task.id, run, cost, distrust: distrustOf(d, run, cost), reopen: reworksReopen(d, run) };
  });
}

/** Reads every task of the boards (archived ones included), a few at a time: each task's `show` to `visit`. */
export async function eachTask(
  boards: readonly Pick<Board, "slug" | "listTasks" | "show">[],
  visit: (board: string, d: TaskDetail) => void,
  signal?: AbortSignal,
  parallel = 4,
): Promise<void> {
  for (const b of boards) {
    const tasks = await b.listTasks({ archived: true }, signal);
    let next = 0;
    const worker = async () => {
      while (next < tasks.length) {
        const t = tasks[next++];
        if (t) visit(b.slug, await b.show(t.id, signal));
      }
    };
    await Promise.all(Array.from({ length: Math.min(parallel, tasks.length) }, worker));
  }
}

/** Every run of the boards with what it cost. */
export async function collectRuns(boards: readonly Board[], signal?: AbortSignal, parallel = 4): Promise<CardRun[]> {
  const out: CardRun[] = [];
  await eachTask(boards, (slug, d) => out.push(...cardRuns(slug, d)), signal, parallel);
  return out;
}

const day = (epochS: number) => new Date(epochS * 1000).toISOString().slice(0, 10);

function keyOf(r: CardRun, by: UsageKey): string {
  if (by === "task") return `${r.board}/${r.task}`;
  if (by === "board") return r.board;
  if (by === "day") return day(r.run.endedAt ?? r.run.startedAt ?? 0);
  return r.cost?.seat ?? "(unnamed seat)";
}

const empty = (key: string): UsageRow => ({ key, runs: 0, unmeasured: 0, reopens: 0, tokensIn: 0, tokensOut: 0, costUsd: 0, costKnownRuns: 0 });

function add(row: UsageRow, c: RunCost, reopen: boolean): void {
  row.runs += 1;
  if (reopen) row.reopens += 1;
  if (!c.measured) row.unmeasured += 1;
  row.tokensIn += c.tokensIn;
  row.tokensOut += c.tokensOut;
  row.costUsd += c.costUsd;
  if (c.costKnown ?? c.costUsd > 0) row.costKnownRuns += 1;
}

/** Sums the runs that ended at or after `since` (epoch ms) by the key. */
export function usageReport(runs: readonly CardRun[], o: { since: number; by: UsageKey; boards: string[] }): UsageReport {
  const rows = new Map<string, UsageRow>();
  const total = empty("total");
  let otherRuns = 0;
  const untrusted: UsageReport["untrusted"] = [];
  for (const r of runs) {
    const ended = r.run.endedAt ?? r.run.startedAt;
    if (ended === null || ended * 1000 < o.since) continue;
    if (!r.cost) {
      if (r.run.endedAt !== null) otherRuns += 1;
      continue;
    }
    if (r.distrust) {
      untrusted.push({ key: `${r.board}/${r.task} run ${r.run.id}`, why: r.distrust });
      continue;
    }
    const key = keyOf(r, o.by);
    const row = rows.get(key) ?? empty(key);
    rows.set(key, row);
    add(row, r.cost, r.reopen);
    add(total, r.cost, r.reopen);
  }
  const sorted = [...rows.values()].sort((a, b) =>
    o.by === "day" ? a.key.localeCompare(b.key) : b.costUsd - a.costUsd || b.tokensIn + b.tokensOut - (a.tokensIn + a.tokensOut) || a.key.localeCompare(b.key),
  );
  return { since: new Date(o.since).toISOString(), by: o.by, boards: o.boards, rows: sorted, total, otherRuns, untrusted };
}

/** `--since`: an ISO date/time, or a duration back from now (`7d`, `24h`, `90m`). */
export function parseSince(v: string, now: number): number | null {
  const rel = /^(\d+)([dhm])$/.exec(v.trim());
  if (rel) return now - Number(rel[1]) * { d: 86_400_000, h: 3_600_000, m: 60_000 }[rel[2] as "d" | "h" | "m"];
  const t = Date.parse(v);
  return Number.isNaN(t) ? null : t;
}
