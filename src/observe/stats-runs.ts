// One task's runs as `hermes-bridge stats` counts them, from the board's own records — the run (its outcome
// and times), the events (claims, the ready-making events before them, reclaims, reopens), the bridge's
// close record (`metadata.bridge` of a complete, the `usage:` line of every other close: board/card.ts) — and,
// for a run the board shows no close of the bridge's, the outbox of its seat where this host has it (a close
// that never landed is a dead letter there, a lease the seat lost is `lease_lost`). Pure: no store of its own.
import { type RetryCause, type RunCost, runCost } from "../board/card.js";
import type { TaskDetail, TaskEvent, TaskRunRecord } from "../board/port.js";
import { CAUSES } from "../result/template.js";
import { distrustOf } from "./usage-report.js";

/** How a run ended, for the figures: `closed` is completed + blocked + lost + dead letters. */
export type StatOutcome = "completed" | "blocked" | "lost" | "given_back" | "dead_letter" | "in_flight";
/** Why a run was given back (a hand-back or a park): no person asked, the task goes on. */
export type GivenBack = "limit" | "unreachable" | "shutdown" | "board" | "other";
export const BLOCK_CAUSES = [...CAUSES, "other"] as const;
export type BlockCause = (typeof BLOCK_CAUSES)[number];

export interface StatRun {
  board: string;
  task: string;
  runId: number;
  seat: string | null;
  agent: string | null;
  outcome: StatOutcome;
  cause?: BlockCause;
  givenBack?: GivenBack;
  /** A complete that was a review hand-off (the gate passed; a reviewer decides). */
  review?: boolean;
  /** Reopens and review round trips that sent this run's close back (events after it). */
  reopened: number;
  retries: RetryCause[];
  /** When the run ended (or started, while in flight), epoch ms: what `--since` and `--by day` read. */
  at: number;
  pickupMs: number | null;
  runMs: number | null;
  /** Claimed → done/blocked: from the first claim after the task's last close to this close (hand-backs and retries in it). */
  closeMs: number | null;
  turns: number | null;
  tokensIn: number;
  tokensOut: number;
  costUsd: number;
  measured: boolean;
  costKnown: boolean;
}

/** What the seat's outbox says of a run whose close the board does not show (by board/task/run). */
export interface OutboxFact {
  seat: string;
  /** dead: the close failed for good (failed, dead); lost: the seat recorded its lease lost; landed: done or refused. */
  state: "dead" | "lost" | "landed";
}

export type Sourced = { source: "bridge"; run: StatRun } | { source: "other"; at: number } | { source: "untrusted"; at: number; key: string; why: string };

const CLOSE_EVENTS = new Set(["blocked", "block_loop_detected", "reclaimed", "scheduled", "review_requested", "completed"]);
/** Events that send a close back: a review sent back (0.20/0.21), changes requested, a done task reopened (0.21.6's `reopen`). */
export const REOPEN_EVENTS: ReadonlySet<string> = new Set(["review_reopened", "changes_requested", "reopened"]);
const LOST_COMMENT = /^hermes-kanban-bridge \(seat (\S+)\): run (\d+) lost its lease/;

const s = (epochS: number | null) => (epochS === null ? null : epochS * 1000);

/** The block's cause: the first line of the bridge's templated reason (`cause: …`). */
function causeOf(text: string): BlockCause {
  const c = /^cause: (.+)$/.exec(text.split("\n")[0] ?? "")?.[1]?.trim();
  return (BLOCK_CAUSES as readonly string[]).includes(c ?? "") ? (c as BlockCause) : "other";
}

function givenBackOf(text: string): GivenBack {
  if (/seat\.onLimit: (?:handoff|wait)/.test(text)) return "limit";
  if (/could not reach its API/.test(text)) return "unreachable";
  if (/shutdown\.inFlight: handback/.test(text)) return "shutdown";
  return "other";
}

/** The claim of a run and the ready-making event before it (pickup), by the events' order. */
function claimOf(events: readonly TaskEvent[], runId: number): { claimedAt: number | null; readyAt: number | null } {
  const i = events.findIndex((e) => e.kind === "claimed" && (e.runId === runId || e.claim?.runId === runId));
  if (i < 0) return { claimedAt: null, readyAt: null };
  const ready = events.slice(0, i).findLast((e) => e.readyMaking);
  return { claimedAt: events[i]?.createdAt ?? null, readyAt: ready?.createdAt ?? null };
}

function outcomeOf(
  run: TaskRunRecord,
  cost: RunCost | null,
  closeText: string,
  manualReclaim: boolean,
  fact: OutboxFact | undefined,
  lostSaid: boolean,
): Partial<StatRun> & { outcome: StatOutcome } {
  if (cost) {
    if (run.outcome === "completed") return { outcome: "completed" };
    if (run.outcome === "review_requested") return { outcome: "completed", review: true };
    if (run.outcome === "blocked") return { outcome: "blocked", cause: causeOf(closeText) };
    if (run.outcome === "reclaimed" || run.outcome === "scheduled") return { outcome: "given_back", givenBack: givenBackOf(closeText) };
  }
  // 0.20 takes no metadata on a review hand-off: the bridge's record of it is the hand-off itself.
  if (run.outcome === "review_requested") return { outcome: "completed", review: true };
  if (fact?.state === "dead") return { outcome: "dead_letter" };
  // The seat recorded the lease lost (its outbox), or said so on the task (lost at its close).
  if (fact?.state === "lost" || lostSaid) return { outcome: "lost" };
  if (run.endedAt === null) return { outcome: "in_flight" };
  // Ended with no close of the bridge's: by someone's hand (a reclaim, another's close) the lease was lost;
  // by the claim's expiry (a stale lock, a dispatcher's verdict) the bridge's close never landed.
  if (run.outcome === "reclaimed" && !manualReclaim) return { outcome: "dead_letter" };
  // A person's reclaim of a running task is a stop made on the board (issue 49): given back, never a failure.
  if (run.outcome === "reclaimed") return { outcome: "given_back", givenBack: "board" };
  if (run.outcome === "timed_out" || run.outcome === "stale" || run.outcome === "crashed" || run.outcome === "gave_up") return { outcome: "dead_letter" };
  return { outcome: "lost" };
}

/** Every run of one task, sourced: the bridge's (classified), another worker's, or one whose record cannot be trusted. */
export function statRuns(board: string, d: TaskDetail, outbox: ReadonlyMap<string, OutboxFact> = new Map()): Sourced[] {
  const costs = d.runs.map((run) => {
    const closing = d.events.filter((e) => e.runId === run.id && CLOSE_EVENTS.has(e.kind));
    return { run, closing, cost: runCost({ ...run, reasons: closing.map((e) => e.reason ?? "") }) };
  });
  const lostComments = new Map<number, string>();
  for (const c of d.comments) {
    const m = LOST_COMMENT.exec(c.body);
    if (m?.[1] && m[2]) lostComments.set(Number(m[2]), m[1]);
  }
  const lockOf = (id: number) => d.events.find((e) => e.runId === id && e.claim)?.claim?.lock ?? "";
  const factOf = (id: number) => outbox.get(`${board}/${d.task.id}/${id}`);
  // A run is a bridge's by its close record, its seat's outbox, the bridge's lost-lease comment or a bridge's named claim;
  // a 0.20 `<host>:<pid>` lock (any worker's) only on a task a bridge works (one of its runs is a bridge's by the rest).
  const evident = (id: number, cost: RunCost | null) =>
    cost !== null || factOf(id) !== undefined || lostComments.has(id) || lockOf(id).startsWith("hermes-bridge:");
  const bridgeTask = costs.some((c) => evident(c.run.id, c.cost));
  let episode: number | null = null;
  const out: Sourced[] = [];
  const byRun = new Map<number, StatRun>();
  for (const { run, closing, cost } of costs) {
    const { claimedAt, readyAt } = claimOf(d.events, run.id);
    const start = s(claimedAt) ?? s(run.startedAt);
    if (episode === null) episode = start;
    const at = s(run.endedAt) ?? s(run.startedAt) ?? 0;
    const fact = factOf(run.id);
    const ours = evident(run.id, cost) || (bridgeTask && /^[^:\s]+:\d+$/.test(lockOf(run.id)));
    const distrust = distrustOf(d, run, cost);
    const ended = run.outcome === "completed" || run.outcome === "blocked" || run.outcome === "review_requested";
    if (!ours || distrust) {
      if (ended) episode = null;
      if (!ours) out.push({ source: "other", at });
      else out.push({ source: "untrusted", at, key: `${board}/${d.task.id} run ${run.id}`, why: distrust ?? "" });
      continue;
    }
    const text =
      [...closing.map((e) => e.reason ?? ""), run.summary ?? "", run.error ?? ""].find((t) => t.startsWith("cause: ") || t.includes("usage: ")) ?? "";
    const manual = closing.some((e) => e.kind === "reclaimed" && e.manual === true);
    const o = outcomeOf(run, cost, text, manual, fact, lostComments.has(run.id));
    const r: StatRun = {
      board,
      task: d.task.id,
      runId: run.id,
      seat: cost?.seat ?? fact?.seat ?? lostComments.get(run.id) ?? null,
      agent: cost?.agent ?? null,
      ...o,
      reopened: 0,
      retries: cost?.retries ?? [],
      at,
      pickupMs: claimedAt !== null && readyAt !== null ? (claimedAt - readyAt) * 1000 : null,
      runMs: cost?.durationMs ?? (run.endedAt !== null && run.startedAt !== null ? (run.endedAt - run.startedAt) * 1000 : null),
      closeMs: null,
      turns: cost?.turns ?? null,
      tokensIn: cost?.tokensIn ?? 0,
      tokensOut: cost?.tokensOut ?? 0,
      costUsd: cost?.costUsd ?? 0,
      measured: cost?.measured ?? false,
      costKnown: cost?.costKnown ?? false,
    };
    if (
      (run.outcome === "completed" || run.outcome === "blocked") &&
      (o.outcome === "completed" || o.outcome === "blocked") &&
      episode !== null &&
      run.endedAt !== null
    )
      r.closeMs = Math.max(0, run.endedAt * 1000 - episode);
    if (ended) episode = null;
    byRun.set(run.id, r);
    out.push({ source: "bridge", run: r });
  }
  // A reopen counts against the close it sent back: the last run that ended before it.
  for (const e of d.events) {
    if (!REOPEN_EVENTS.has(e.kind)) continue;
    const before = d.runs.filter((r) => r.endedAt !== null && r.endedAt <= e.createdAt).at(-1);
    const r = before ? byRun.get(before.id) : undefined;
    if (r) r.reopened += 1;
  }
  return out;
}
