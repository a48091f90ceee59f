// `hermes-bridge stats` on hand-made boards (show --json documents, parsed as the wire is): how each run is
// classified from the board's own records and the seat's outbox, how rows are summed, the nearest-rank
// quantiles, the service levels' verdicts, and the table within 100 columns.
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { usageLine } from "../../src/board/card.js";
import { parseShow } from "../../src/board/parse.js";
import { renderStats } from "../../src/cli/stats-render.js";
import { DEFAULT_LEVELS, nearestRank, quantiles, verdicts } from "../../src/observe/service-levels.js";
import { statsReport } from "../../src/observe/stats-report.js";
import { type OutboxFact, statRuns } from "../../src/observe/stats-runs.js";

const base = JSON.parse(readFileSync("test/fixtures/hermes/show-running.json", "utf8")) as { task: Record<string, unknown> };
const T0 = 1_796_000_000;

interface Ev {
  kind: string;
  at: number;
  run?: number;
  payload?: Record<string, unknown>;
}
interface Run {
  id: number;
  outcome: string | null;
  from: number;
  to: number | null;
  summary?: string;
  metadata?: Record<string, unknown>;
}

/** A task's `show --json`, as the CLI prints it. */
function doc(id: string, events: Ev[], runs: Run[], comments: string[] = []) {
  const text = JSON.stringify({
    ...base,
    task: { ...base.task, id, status: "done" },
    latest_summary: null,
    comments: comments.map((body, i) => ({ author: "seat", body, created_at: T0 + i })),
    events: events.map((e) => ({ kind: e.kind, payload: e.payload ?? null, created_at: T0 + e.at, run_id: e.run ?? null })),
    runs: runs.map((r) => ({
      id: r.id,
      profile: "pool",
      step_key: null,
      status: r.outcome ?? "running",
      outcome: r.outcome,
      summary: r.summary ?? null,
      error: null,
      metadata: r.metadata ?? null,
      worker_pid: null,
      started_at: T0 + r.from,
      ended_at: r.to === null ? null : T0 + r.to,
    })),
  });
  return parseShow(text);
}

const created: Ev = { kind: "created", at: 0, payload: { status: "ready" } };
const claimed = (run: number, at: number, lock = "vm:1"): Ev => ({ kind: "claimed", at, run, payload: { lock, run_id: run, expires: T0 + 999 } });
const bridge = (o: Record<string, unknown>) => ({ ok: true, bridge: { seat: "box/a", agent: "command", usage: "measured", ...o } });
const blockText = (cause: string, usage: string) => `cause: ${cause}\nwhat happened: x\noptions: A) a\nrecommendation: a\nnext action needed: a\n${usage}`;

describe("stats: each run from the board's records", () => {
  const board = "b";
  const tasks = [
    // completed after a retried crash, measured, 5 s pickup, 2 s run, 7 s claim → done
    doc(
      "t_1",
      [created, claimed(1, 5), { kind: "completed", at: 12, run: 1 }],
      [
        {
          id: 1,
          outcome: "completed",
          from: 5,
          to: 12,
          metadata: bridge({ run_id: 1, duration_ms: 2000, turns: 3, tokens: { input: 100, output: 10 }, cost_usd: 0.5, retries: [{ cause: "crash" }] }),
        },
      ],
    ),
    // blocked (test failure) by seat b's claude-code, its usage line saying it all; unblocked, then handed back at a limit
    doc(
      "t_2",
      [
        created,
        claimed(2, 1),
        { kind: "blocked", at: 4, run: 2, payload: { reason: "x" } },
        { kind: "unblocked", at: 10 },
        claimed(3, 13),
        {
          kind: "reclaimed",
          at: 20,
          run: 3,
          payload: { manual: true, reason: "limit (seat.onLimit: handoff) usage: unmeasured (the agent reported none) · seat box/b" },
        },
      ],
      [
        {
          id: 2,
          outcome: "blocked",
          from: 1,
          to: 4,
          summary: blockText(
            "test failure",
            usageLine({ tokens: { input: 5, output: 1 }, costUsd: 0.01, turns: 2 }, undefined, "box/b", { agent: "claude-code", retries: ["api"] }),
          ),
        },
        { id: 3, outcome: "reclaimed", from: 13, to: 20 },
      ],
    ),
    // an operator took the lease (manual reclaim, no close of the bridge's: the seat from its outbox), then a TTL
    // reclaim (a close that never landed), then a run still open whose close the outbox says failed
    doc(
      "t_3",
      [
        created,
        claimed(4, 1),
        { kind: "reclaimed", at: 3, run: 4, payload: { manual: true, reason: "operator" } },
        claimed(5, 4),
        { kind: "reclaimed", at: 30, run: 5, payload: { stale_lock: "vm:1" } },
        claimed(6, 31),
        claimed(7, 40),
      ],
      [
        { id: 4, outcome: "reclaimed", from: 1, to: 3 },
        { id: 5, outcome: "reclaimed", from: 4, to: 30 },
        { id: 6, outcome: "reclaimed", from: 31, to: 35 },
        { id: 7, outcome: null, from: 40, to: null },
      ],
      ["hermes-kanban-bridge (seat box/a): run 6 lost its lease before it could complete; its result was NOT applied"],
    ),
    // a review hand-off sent back, then done by Codex (tokens, no cost) — 0.20: no metadata on the hand-off
    doc(
      "t_4",
      [created, claimed(8, 2), { kind: "review_requested", at: 5, run: 8 }, { kind: "review_reopened", at: 9 }, claimed(9, 10)],
      [
        { id: 8, outcome: "review_requested", from: 2, to: 5, summary: "please review" },
        { id: 9, outcome: "completed", from: 10, to: 16, metadata: bridge({ run_id: 9, duration_ms: 6000, agent: "codex", tokens: { input: 20, output: 2 } }) },
      ],
    ),
    // another worker's run (a named claim not a bridge's), and a done card edited after its close
    doc(
      "t_5",
      [created, claimed(10, 1, "hermes-worker:x"), claimed(11, 3), { kind: "edited", at: 9, run: 11 }],
      [
        { id: 10, outcome: "completed", from: 1, to: 2 },
        { id: 11, outcome: "completed", from: 3, to: 8, metadata: bridge({ run_id: 11 }) },
      ],
    ),
  ];
  const outbox = new Map<string, OutboxFact>([
    ["b/t_3/4", { seat: "box/a", state: "lost" }],
    ["b/t_3/7", { seat: "box/b", state: "dead" }],
  ]);
  const all = tasks.flatMap((d) => statRuns(board, d, outbox));
  const runs = all.flatMap((s) => (s.source === "bridge" ? [s.run] : []));
  const of = (id: number) => runs.find((r) => r.runId === id);

  it("classifies every run: done, blocked by cause, given back, lost, dead letters, a review round trip, others apart", () => {
    expect(of(1)).toMatchObject({ outcome: "completed", seat: "box/a", agent: "command", retries: ["crash"], pickupMs: 5000, runMs: 2000, closeMs: 7000 });
    expect(of(1)).toMatchObject({ turns: 3, tokensIn: 100, tokensOut: 10, costUsd: 0.5, measured: true, costKnown: true });
    expect(of(2)).toMatchObject({ outcome: "blocked", cause: "test failure", seat: "box/b", agent: "claude-code", retries: ["api"], turns: 2, costUsd: 0.01 });
    expect(of(2)?.runMs).toBe(3000); // no duration_ms: the board's times
    expect(of(3)).toMatchObject({ outcome: "given_back", givenBack: "limit", seat: "box/b", measured: false, pickupMs: 3000, closeMs: null });
    expect(of(4)).toMatchObject({ outcome: "lost", seat: "box/a" });
    expect(of(5)).toMatchObject({ outcome: "dead_letter", seat: null, pickupMs: 1000 }); // the reclaim before it made the task ready
    expect(of(6)).toMatchObject({ outcome: "lost", seat: "box/a" }); // lost at its close: the bridge's comment names the seat
    expect(of(7)).toMatchObject({ outcome: "dead_letter", seat: "box/b" });
    expect(of(8)).toMatchObject({ outcome: "completed", review: true, reopened: 1, closeMs: null, measured: false });
    expect(of(9)).toMatchObject({ outcome: "completed", closeMs: 6000, pickupMs: 1000 });
    expect(all.filter((s) => s.source === "other")).toHaveLength(1);
    expect(all.filter((s) => s.source === "untrusted").map((s) => (s.source === "untrusted" ? s.why : ""))).toEqual([
      "its record was edited after the close (kanban edit)",
    ]);
  });

  it("a claim that ran out while its seat could not reach the board, released by the dispatcher: lost by the seat's word, else a dead letter", () => {
    // run 1: the dispatcher's reclaim of an expired claim (a stale lock, no `manual`); run 2 done after it
    const d = doc(
      "t_6",
      [
        created,
        claimed(1, 1),
        { kind: "reclaimed", at: 9, run: 1, payload: { stale_lock: "vm:1", worker_pid: null, claim_expires: T0 + 7, now: T0 + 9, heartbeat_stale: false } },
        claimed(2, 11),
        { kind: "completed", at: 13, run: 2 },
      ],
      [
        { id: 1, outcome: "reclaimed", from: 1, to: 9 },
        { id: 2, outcome: "completed", from: 11, to: 13, metadata: bridge({ run_id: 2, duration_ms: 1000 }) },
      ],
    );
    const first = (o: Map<string, OutboxFact>, doc0 = d) =>
      statRuns(board, doc0, o).flatMap((s) => (s.source === "bridge" && s.run.runId === 1 ? [s.run] : []))[0];
    // the seat's close came too late and found the run not its own: its outbox says lease_lost
    expect(first(new Map([["b/t_6/1", { seat: "box/a", state: "lost" }]]))).toMatchObject({ outcome: "lost", seat: "box/a", runMs: 8000, pickupMs: 1000 });
    // only the seat's comment on the task says so (its outbox is on another host)
    const said = doc("t_6", [], [], ["hermes-kanban-bridge (seat box/a): run 1 lost its lease before it could block; its result was NOT applied"]);
    expect(first(new Map(), { ...d, comments: said.comments })).toMatchObject({ outcome: "lost", seat: "box/a" });
    // no word of its seat: a close that never landed before the claim ran out
    expect(first(new Map())).toMatchObject({ outcome: "dead_letter", seat: null });
    // a closed episode: the lost run is no close of its own, the done run closes from the first claim
    const runs2 = statRuns(board, d, new Map([["b/t_6/1", { seat: "box/a", state: "lost" }]]));
    expect(runs2.flatMap((s) => (s.source === "bridge" ? [[s.run.runId, s.run.outcome, s.run.closeMs]] : []))).toEqual([
      [1, "lost", null],
      [2, "completed", 12000],
    ]);
  });

  it("sums rows: rates of closed runs, nearest-rank quantiles, spend apart from unmeasured runs; the levels crossed", () => {
    const r = statsReport(all, { since: 0, by: "seat", boards: [board], levels: { ...DEFAULT_LEVELS, minRuns: 1 } });
    const t = r.total;
    expect(t).toMatchObject({ runs: 9, attempts: 11, retries: 2, completed: 3, reviewHandoffs: 1, blocked: 1, lost: 2, givenBack: 1, deadLetters: 2 });
    expect(t).toMatchObject({ reopened: 1, closed: 8, inFlight: 0, turns: 5, tokensIn: 125, tokensOut: 13, unmeasured: 6, costUnknown: 1 });
    expect(t.retriesByCause).toEqual({ crash: 1, api: 1, connection: 0 });
    expect(t.blockedByCause["test failure"]).toBe(1);
    expect([t.successRate, t.failureRate, t.deadLetterRate]).toEqual([3 / 8, 5 / 8, 2 / 8]);
    expect(t.costUsd).toBeCloseTo(0.51);
    expect(t.costPerCompleted).toBeCloseTo(0.17);
    expect(t.verdicts.map((v) => v.level)).toEqual(["failure_rate", "dead_letter_rate"]);
    expect(r.otherRuns).toBe(1);
    expect(r.untrusted).toHaveLength(1);
    expect(r.rows.map((x) => x.key)).toEqual(["box/a", "box/b", "(unknown seat)"]);
    // a window that starts later leaves the earlier runs out
    expect(statsReport(all, { since: (T0 + 15) * 1000, by: "seat", boards: [board], levels: DEFAULT_LEVELS }).total.runs).toBe(5); // runs 3, 5, 6, 7 (started 40, in flight), 9
    expect(statsReport(all, { since: 0, by: "kind", boards: [board], levels: DEFAULT_LEVELS }).rows.map((x) => x.key)).toEqual([
      "(unknown kind)",
      "claude-code",
      "codex",
      "command",
    ]); // by runs, then by name
  });

  it("the table: aligned sections within 100 columns (long keys cut), the levels crossed flagged; CSV and JSON carry the same", () => {
    const long = runs.map((x) => ({ ...x, seat: `${x.seat ?? "x"}-${"very-long-seat-name-".repeat(4)}` }));
    const r = statsReport(
      long.map((run) => ({ source: "bridge" as const, run })),
      { since: 0, by: "seat", boards: ["b"], levels: { ...DEFAULT_LEVELS, minRuns: 1 } },
    );
    const text = renderStats(r, "text");
    for (const line of text.split("\n")) expect(line.length, line).toBeLessThanOrEqual(100);
    for (const s of ["OUTCOMES", "RATES (of closed runs) AND RETRIES", "TIMES p50/p95/p99", "BLOCKED BY CAUSE, GIVEN BACK BY WHY", "SPEND"])
      expect(text).toContain(`\n${s}\n`);
    expect(text).toMatch(/^total\s+9\s+11\s+3\s+1\s+2\s+1\s+2\s+1\s+0$/m);
    expect(text).toMatch(/^total\s+8\s+37\.5%\s+62\.5% !\s+25\.0% !/m);
    expect(text).toContain("\n  total\n    failure rate 62.5 % ≥ 5.0 % (5 of 8 closed runs; serviceLevels.failureRate)\n");
    expect(text).toContain("\n    dead-letter rate 25.0 % ≥ 1.0 % (2 of 8 closes never landed; serviceLevels.deadLetterRate)\n");
    const csv = renderStats(r, "csv").trim().split("\n");
    const head = csv[0]?.split(",") ?? [];
    const total = csv.at(-1)?.split(",") ?? [];
    expect(Number(total[head.indexOf("dead_letters")])).toBe(2);
    expect(total[head.indexOf("findings")]).toBe("failure_rate dead_letter_rate");
    expect(JSON.parse(renderStats(r, "json")).total).toEqual(JSON.parse(JSON.stringify(r.total)));
  });
});

describe("service levels", () => {
  it("nearest rank: the smallest value with at least q of them at or below it", () => {
    const v = Array.from({ length: 100 }, (_, i) => i + 1);
    expect([nearestRank(v, 0.5), nearestRank(v, 0.95), nearestRank(v, 0.99)]).toEqual([50, 95, 99]);
    expect(nearestRank([7], 0.99)).toBe(7);
    expect(nearestRank([], 0.5)).toBeNull();
    expect(quantiles([3000, 1000, 2000])).toEqual({ n: 3, p50: 2, p95: 3, p99: 3 });
  });

  it("a rate at the level is a finding, one below is not; nothing under minRuns; p95 above its level", () => {
    const q = (n: number, s: number) => quantiles(Array.from({ length: n }, () => s * 1000));
    expect(verdicts({ closed: 20, failed: 1, deadLetters: 0, runTime: q(20, 10) }, DEFAULT_LEVELS).map((v) => v.level)).toEqual(["failure_rate"]);
    expect(verdicts({ closed: 21, failed: 1, deadLetters: 0, runTime: q(21, 10) }, DEFAULT_LEVELS)).toEqual([]);
    expect(verdicts({ closed: 100, failed: 1, deadLetters: 1, runTime: q(100, 10) }, DEFAULT_LEVELS).map((v) => v.level)).toEqual(["dead_letter_rate"]);
    expect(verdicts({ closed: 101, failed: 1, deadLetters: 1, runTime: q(101, 10) }, DEFAULT_LEVELS)).toEqual([]);
    expect(verdicts({ closed: 9, failed: 9, deadLetters: 9, runTime: q(9, 9999) }, DEFAULT_LEVELS)).toEqual([]);
    const slow = verdicts({ closed: 10, failed: 0, deadLetters: 0, runTime: q(10, 601) }, DEFAULT_LEVELS);
    expect(slow.map((v) => v.text)).toEqual(["p95 run time 601 s > 600 s (10 runs; serviceLevels.runTimeP95Seconds)"]);
    expect(verdicts({ closed: 10, failed: 0, deadLetters: 0, runTime: q(10, 600) }, DEFAULT_LEVELS)).toEqual([]);
  });
});
