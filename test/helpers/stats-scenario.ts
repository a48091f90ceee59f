// A mixed run of ~50 tasks across three seats, for `hermes-bridge stats` (test/integration/stats.test.ts on
// the emulator, test/real/stats.test.ts on real Hermes): seats A and B share the lane `pool` (command
// agents), seat C works the lane `claude-lane` (the Claude Code adapter in front of the fake CLI, which
// reports tokens and cost). Completes; each of the template's five block causes; a crash retried and then
// completed, and one that uses its retries up; a run an operator takes back (a stop made on the board: given back); a usage-limit
// hand-back; a review round trip; a lost lease (seat A, restarted behind a network cut with short claims: its
// claim runs out while it cannot reach the board, the dispatcher releases it, its close lands too late); and a
// dead letter (seat B, restarted in front of a CLI whose `block` never lands). `countFromBoard` counts the
// same figures from `show --json` of each task and the seats' outbox files, written apart from the bridge's
// own code: the test holds `stats` to it.
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { expect } from "vitest";
import { statsCommand } from "../../src/cli/stats.js";
import type { StatsReport } from "../../src/observe/stats-report.js";
import type { RunReport } from "../../src/run/task-run.js";
import { AGENT, type Bridge, runBridge } from "./bridge.js";
import type { Emu } from "./emulator.js";

export const FAKE_CLI = resolve("test/fixtures/agents/fake-cli.mjs");
export const FAIL_VERB = resolve("test/fixtures/fail-verb.sh");
export const CUT_BOARD = resolve("test/fixtures/cut-board.sh");
export const SEATS = { a: "host-a/seat-a", b: "host-b/seat-b", c: "host-c/seat-c" } as const;

/** The pool lane's tasks besides the plain completes: mode, how many. */
const MIXED: [string, number][] = [
  ["crash-once", 1],
  ["crash-always", 1],
  ["notok", 2],
  ["silent", 2],
  ["block", 2],
  ["block CAUSE:auth-missing", 1],
  ["crash", 2],
  ["wait-file", 1],
  ["review", 1],
];

export interface Scenario {
  tasks: string[];
  root: string;
  stateDirs: Record<keyof typeof SEATS, string>;
  dead: string;
  /** The task whose first run lost its lease (its claim ran out and was released while its seat was cut off). */
  lost: string;
  /** The task an operator took back (`reclaim`) while its agent worked. */
  taken: string;
  review: string;
  reports: RunReport[];
}

const closedBy = (seats: Bridge[], match: (r: RunReport) => boolean, ms: number) => Promise.any(seats.map((s) => s.monitor.next("run:closed", match, { ms })));

/** Runs the scenario on `emu`: `completes` plain completes in the pool lane, `claude` in seat C's. */
export async function runScenario(emu: Emu, o: { completes: number; claude: number; ms: number }): Promise<Scenario> {
  const root = join(emu.dir, "seats");
  const stateDirs = { a: join(root, "a"), b: join(root, "b"), c: join(root, "c") };
  const hermes = (extra: Record<string, unknown> = {}) => ({
    command: emu.command,
    home: emu.home,
    callServer: emu.real ? "auto" : "on",
    env: { ...emu.extraEnv, ...(emu.real ? { HOME: emu.dir } : {}) },
    retry: { retries: 3, minDelayMs: 20, maxDelayMs: 200, deadlineSeconds: 30 },
    ...extra,
  });
  const pool = (name: string, dir: string, env: Record<string, string>, extra: Record<string, unknown> = {}, protocol?: { minTtlSeconds: number }) =>
    runBridge(emu, {
      seat: "pool",
      once: false,
      env,
      ...(protocol ? { protocol } : {}),
      base: {
        seat: { name, onLimit: "handoff", limitMarginSeconds: 0, unconfirmedPauseMinutes: 0.02 },
        stateDir: dir,
        hermes: hermes(),
        discovery: { watch: false, sweepSeconds: 1, debounceMs: 20 },
        agent: {
          kind: "command",
          command: [process.execPath, AGENT],
          killGraceSeconds: 1,
          isolation: { mode: "none" },
          passEnv: ["FIXTURE_LIMITED", "FIXTURE_SEAT", "FIXTURE_RESET_MS"],
          retryBackoffSeconds: 0.05,
        },
        ...extra,
      },
    });
  const tasks: string[] = [];
  const add = async (title: string, assignee: string, body: string, priority = 0) => {
    const id = await emu.createTask(title, { assignee, body, priority });
    tasks.push(id);
    return id;
  };
  // The limited task first, for seat A alone: its first run meets the limit and hands it back to the lane.
  const limited = await add("limited", "pool", "MODE:pool", 9);
  const byMode = new Map<string, string>();
  for (const [mode, n] of MIXED) for (let i = 0; i < n; i += 1) byMode.set(`${mode}#${i}`, await add(`${mode} ${i}`, "pool", `MODE:${mode}`));
  for (let i = 0; i < o.completes; i += 1) await add(`complete ${i}`, "pool", "MODE:complete");
  for (let i = 0; i < o.claude; i += 1) await add(`claude ${i}`, "claude-lane", "Do the thing.");
  const a = await pool(SEATS.a, stateDirs.a, { FIXTURE_LIMITED: "1", FIXTURE_SEAT: "seat-a", FIXTURE_RESET_MS: "1000" });
  const seats: Bridge[] = [a];
  const reports: RunReport[] = [];
  try {
    await a.monitor.next("claimed", (e) => e.taskId === limited, { ms: o.ms });
    seats.push(await pool(SEATS.b, stateDirs.b, { FIXTURE_SEAT: "seat-b" }));
    seats.push(
      await runBridge(emu, {
        seat: "claude-lane",
        once: false,
        env: { FAKE_CLI: "claude", FAKE_SCRIPT: "complete" },
        base: {
          seat: { name: SEATS.c },
          stateDir: stateDirs.c,
          hermes: hermes(),
          discovery: { watch: false, sweepSeconds: 1, debounceMs: 20 },
          agent: {
            kind: "claude-code",
            command: [process.execPath, FAKE_CLI],
            passEnv: ["FAKE_CLI", "FAKE_SCRIPT"],
            killGraceSeconds: 1,
            isolation: { mode: "none" },
          },
        },
      }),
    );
    const pooled = seats.slice(0, 2);
    // A lease an operator takes back while the agent works; the run after it completes.
    const taken = byMode.get("wait-file#0") ?? "";
    await Promise.any(pooled.map((s) => s.monitor.phase(taken, "working", o.ms)));
    const reclaim = await emu.kanban(["reclaim", taken, "--reason", "taken back by an operator"]);
    if (reclaim.code !== 0) throw new Error(`reclaim failed: ${reclaim.stderr}`);
    await closedBy(pooled, (r) => r.taskId === taken && r.decision === "lost", o.ms);
    await go(emu, taken);
    // A review round trip: handed over for review, sent back, completed.
    const review = byMode.get("review#0") ?? "";
    const handed = await closedBy(pooled, (r) => r.taskId === review, o.ms);
    const back = await emu.kanban(["reopen-review", review, "--reason", "add a test for the empty input"]);
    if (back.code !== 0) throw new Error(`reopen-review failed: ${back.stderr}`);
    const final = (r: RunReport) => r.decision === "complete" || (r.decision === "block" && !r.handedOff);
    await Promise.all(tasks.map((id) => closedBy(seats, (r) => r.taskId === id && final(r) && (id !== review || r.runId !== handed.runId), o.ms)));
  } finally {
    for (const s of seats) {
      await s.daemon.stop();
      reports.push(...s.reports);
    }
  }
  // A lost lease: seat A again, every board call through a network cut (cut-board.sh; a call per process, so
  // each one meets it) and claims of `ttl` seconds. The cut starts while its agent works: no heartbeat, no
  // close gets through; the claim runs out, the dispatcher releases it (a stale lock, no person's reclaim),
  // then the cut ends: the seat's close lands too late, on a run no longer its own — a `lease_lost` entry.
  // (5 s: the shortest claim the config takes, all of it run time; 10 s on real Hermes, whose calls are Python starts.)
  const ttl = emu.real ? 10 : 5;
  const lost = await add("lost lease", "pool", "MODE:wait-file");
  const cut = join(emu.dir, "network-cut");
  const phase: Bridge[] = [];
  let dead = "";
  try {
    const a2 = await pool(
      SEATS.a,
      stateDirs.a,
      {},
      {
        hermes: hermes({ command: ["/bin/sh", CUT_BOARD, ...emu.command], callServer: "off", env: { ...hermes().env, CUT_FILE: cut } }),
        claim: { ttlSeconds: ttl, safetySeconds: 0 },
        // (its stop below waits for that run's close, however long the cut lasts)
        shutdown: { graceSeconds: o.ms / 1000 },
      },
      { minTtlSeconds: ttl },
    );
    phase.push(a2);
    const claim = await a2.monitor.next("claimed", (e) => e.taskId === lost, { ms: o.ms });
    await a2.monitor.phase(lost, "working", o.ms);
    writeFileSync(cut, "");
    // Beside it, a dead letter: seat B again, in front of a CLI whose `block` never lands (seat A is busy); its
    // second slot takes the lost task's next run while that close is still being tried.
    dead = await add("dead letter", "pool", "MODE:block");
    const b2 = await pool(
      SEATS.b,
      stateDirs.b,
      {},
      {
        hermes: hermes({ command: ["/bin/sh", FAIL_VERB, ...emu.command], callServer: "off", env: { ...hermes().env, FAIL_VERB: "block" } }),
        concurrency: 2,
      },
    );
    phase.push(b2);
    await b2.monitor.next("claimed", (e) => e.taskId === dead, { ms: o.ms });
    // The gateway's part, once the board's clock is past the claim's expiry: one dispatcher pass releases it.
    await pastExpiry(emu, lost, claim.runId);
    const pass = await emu.kanban(["dispatch", "--json"]);
    if (pass.code !== 0) throw new Error(`dispatch failed: ${pass.stderr}`);
    expect((JSON.parse(pass.stdout) as { reclaimed: number }).reclaimed).toBe(1);
    // Seat A stops claiming (its run's close still to land), so the task's next run is seat B's, on a claim
    // of the usual length; then the cut ends.
    const stopped = a2.daemon.stop();
    await go(emu, lost);
    rmSync(cut);
    await a2.monitor.next("run:closed", (r) => r.taskId === lost && r.runId === claim.runId && r.close === "lease_lost", { ms: o.ms });
    await stopped;
    await Promise.all([
      b2.monitor.next("run:closed", (r) => r.taskId === lost && r.decision === "complete", { ms: o.ms }),
      b2.monitor.next("run:closed", (r) => r.taskId === dead && (r.close === "dead" || r.close === "failed"), { ms: o.ms }),
    ]);
  } finally {
    rmSync(cut, { force: true });
    for (const s of phase) {
      await s.daemon.stop();
      reports.push(...s.reports);
    }
  }
  return { tasks, root, stateDirs, dead, lost, taken: byMode.get("wait-file#0") ?? "", review: byMode.get("review#0") ?? "", reports };
}

/** Lets a `MODE:wait-file` task's agent finish: the file it waits for, in the task's workspace. */
async function go(emu: Emu, id: string): Promise<void> {
  const ws = (await emu.show(id)).task.workspace_path;
  if (ws) writeFileSync(join(ws, "go"), "");
}

/**
 * Until the board's clock is past the claim of run `runId` (its `claimed` event's `expires`, epoch seconds):
 * Hermes releases a claim once `claim_expires < now`, in whole seconds. The claim's expiry is the board's
 * own record and the only event there is — a real CLI's clock cannot be moved — so this waits for it.
 */
async function pastExpiry(emu: Emu, id: string, runId: number | null): Promise<void> {
  const claimed = (await emu.show(id)).events.find((e) => e.kind === "claimed" && (e.run_id === runId || e.payload?.run_id === runId));
  const expires = Number(claimed?.payload?.expires);
  if (!Number.isFinite(expires)) throw new Error(`no claim of run ${runId} of ${id} with an expiry`);
  const at = (expires + 1) * 1000;
  while (Date.now() < at) await new Promise((r) => setTimeout(r, at - Date.now()));
}

/** A task as `show --json` prints it (what the count reads). */
interface Doc {
  task: { id: string };
  comments: { author: string; body: string }[];
  events: { kind: string; payload: Record<string, unknown> | null; run_id: number | null; created_at: number }[];
  runs: {
    id: number;
    outcome: string | null;
    summary: string | null;
    metadata: Record<string, unknown> | null;
    started_at: number | null;
    ended_at: number | null;
  }[];
}

export interface Count {
  runs: number;
  retries: Record<string, number>;
  completed: number;
  reviewHandoffs: number;
  blocked: Record<string, number>;
  lost: number;
  givenBack: number;
  deadLetters: number;
  reopened: number;
  closed: number;
  pickup: number[];
  runTime: number[];
  timeToClose: number[];
  turns: number;
  tokensIn: number;
  tokensOut: number;
  costUsd: number;
  unmeasured: number;
}

const empty = (): Count => ({
  runs: 0,
  retries: {},
  completed: 0,
  reviewHandoffs: 0,
  blocked: {},
  lost: 0,
  givenBack: 0,
  deadLetters: 0,
  reopened: 0,
  closed: 0,
  pickup: [],
  runTime: [],
  timeToClose: [],
  turns: 0,
  tokensIn: 0,
  tokensOut: 0,
  costUsd: 0,
  unmeasured: 0,
});

/** What each seat's outbox says of its runs — landed, never landed (failed, dead), lost — as `task/run` → seat and state: read off the journal's lines. */
export function fromOutboxes(dirs: string[]): Map<string, { seat: string; state: string }> {
  const out = new Map<string, { seat: string; state: string }>();
  for (const dir of dirs) {
    let text = "";
    try {
      text = readFileSync(join(dir, "outbox.jsonl"), "utf8");
    } catch {
      continue;
    }
    const entries = new Map<string, { task: string; run: number | null; seat: string; state: string }>();
    for (const line of text.split("\n").filter(Boolean)) {
      const r = JSON.parse(line) as { op: string; entry?: { id: string; taskId: string; runId: number | null; seat: string }; id?: string; state?: string };
      if (r.op === "intent" && r.entry) entries.set(r.entry.id, { task: r.entry.taskId, run: r.entry.runId, seat: r.entry.seat, state: "pending" });
      const e = r.id ? entries.get(r.id) : undefined;
      if (r.op === "state" && e && r.state) e.state = r.state;
    }
    for (const e of entries.values()) {
      const state = e.state === "failed" || e.state === "dead" ? "dead" : e.state === "lease_lost" ? "lost" : "landed";
      if (out.get(`${e.task}/${e.run}`)?.state !== "landed") out.set(`${e.task}/${e.run}`, { seat: e.seat, state });
    }
  }
  return out;
}

const READY = new Set(["promoted", "unblocked", "reclaimed", "assigned", "review_reopened"]);

/** The figures of every run, by seat and in total, counted from the tasks' `show --json` and the outboxes
 * (a run the board shows no close of: its seat, and whether its close failed or its lease was lost). */
export function countFromBoard(docs: Doc[], outbox: Map<string, { seat: string; state: string }>): Map<string, Count> {
  const by = new Map<string, Count>();
  const row = (k: string) => by.get(k) ?? (by.set(k, empty()).get(k) as Count);
  for (const d of docs) {
    let episode: number | null = null;
    const seatsOfRuns = new Map<number, string>();
    for (const run of d.runs) {
      const closing = d.events.filter((e) => e.run_id === run.id && ["blocked", "reclaimed", "scheduled", "completed"].includes(e.kind));
      const reason = String(closing.find((e) => typeof e.payload?.reason === "string")?.payload?.reason ?? "");
      const bridge = (run.metadata?.bridge ?? null) as {
        seat?: string;
        duration_ms?: number;
        turns?: number;
        cost_usd?: number;
        tokens?: { input: number; output: number };
      } | null;
      // the bridge's usage line ends its text (a reclaim's reason is kept on one line: it ends that line)
      const tail = (t: string) => {
        const l = t.split("\n").at(-1) ?? "";
        return l.startsWith("usage: ") ? l : l.includes(" usage: ") ? l.slice(l.lastIndexOf(" usage: ") + 1) : "";
      };
      const line = [run.summary ?? "", reason].map(tail).find(Boolean) ?? "";
      const claimAt = d.events.findIndex((e) => e.kind === "claimed" && (e.run_id === run.id || e.payload?.run_id === run.id));
      const claimed = d.events[claimAt];
      const kept = outbox.get(`${d.task.id}/${run.id}`);
      const deadSeat = kept?.state === "dead" ? kept.seat : undefined;
      const seat = bridge?.seat ?? / · seat (\S+)/.exec(line)?.[1] ?? kept?.seat ?? "(unknown seat)";
      seatsOfRuns.set(run.id, seat);
      const counts = [row(seat), row("total")];
      const each = (f: (c: Count) => void) => {
        for (const c of counts) f(c);
      };
      each((c) => (c.runs += 1));
      for (const e of d.events.filter((x) => x.run_id === run.id && x.kind === "heartbeat")) {
        const cause = /^hermes-kanban-bridge: retry \d+ of \d+ \((\w+)\)/.exec(String(e.payload?.note ?? ""))?.[1];
        if (cause) each((c) => (c.retries[cause] = (c.retries[cause] ?? 0) + 1));
      }
      const start = claimed ? claimed.created_at : run.started_at;
      if (episode === null) episode = start;
      if (run.outcome === "completed" || run.outcome === "review_requested") {
        each((c) => (c.completed += 1));
        if (run.outcome === "review_requested") each((c) => (c.reviewHandoffs += 1));
      } else if (run.outcome === "blocked") {
        const cause = /^cause: (.+)$/.exec((run.summary ?? reason).split("\n")[0] ?? "")?.[1] ?? "other";
        each((c) => (c.blocked[cause] = (c.blocked[cause] ?? 0) + 1));
      } else if (run.outcome === "reclaimed" && / · seat /.test(line)) each((c) => (c.givenBack += 1));
      // a person's reclaim of the running task: a stop made on the board, given back (never lost)
      else if (run.outcome === "reclaimed" && closing.some((e) => e.kind === "reclaimed" && e.payload?.manual === true)) each((c) => (c.givenBack += 1));
      else if (deadSeat) each((c) => (c.deadLetters += 1));
      // the dispatcher released the claim once it had run out (a stale lock: no person's hand), and the seat's
      // close came too late — its outbox recorded the lease lost
      else if (
        run.outcome === "reclaimed" &&
        closing.some((e) => e.kind === "reclaimed" && typeof e.payload?.stale_lock === "string") &&
        kept?.state === "lost"
      )
        each((c) => (c.lost += 1));
      else if (run.ended_at !== null) throw new Error(`the count cannot tell how run ${run.id} of ${d.task.id} ended (${run.outcome})`);
      if (claimed) {
        const ready = d.events.slice(0, claimAt).findLast((e) => READY.has(e.kind) || (e.kind === "created" && e.payload?.status === "ready"));
        if (ready) each((c) => c.pickup.push(claimed.created_at - ready.created_at));
      }
      const ended = run.ended_at !== null;
      if (ended) {
        const t = bridge?.duration_ms !== undefined ? bridge.duration_ms / 1000 : (run.ended_at ?? 0) - (run.started_at ?? 0);
        each((c) => c.runTime.push(t));
      }
      const closes = run.outcome === "completed" || run.outcome === "review_requested" || run.outcome === "blocked";
      if ((run.outcome === "completed" || run.outcome === "blocked") && episode !== null) {
        const from = episode;
        each((c) => c.timeToClose.push((run.ended_at ?? 0) - from));
      }
      if (closes) episode = null;
      const turns = bridge?.turns ?? Number(/, (\d+) turns?|^usage: (\d+) turns?/.exec(line)?.slice(1).find(Boolean) ?? 0);
      each((c) => (c.turns += turns));
      const said = /(\d+) input \/ (\d+) output/.exec(line);
      const tokens = bridge?.tokens ?? (said ? { input: Number(said[1]), output: Number(said[2]) } : null);
      if (tokens)
        each((c) => {
          c.tokensIn += tokens.input;
          c.tokensOut += tokens.output;
        });
      const cost = bridge?.cost_usd ?? null;
      if (cost !== null) each((c) => (c.costUsd += cost));
      if (!tokens && cost === null) each((c) => (c.unmeasured += 1));
    }
    for (const e of d.events.filter((x) => x.kind === "review_reopened")) {
      const before = d.runs.filter((r) => r.ended_at !== null && r.ended_at <= e.created_at).at(-1);
      const seat = before ? seatsOfRuns.get(before.id) : undefined;
      if (seat) for (const c of [row(seat), row("total")]) c.reopened += 1;
    }
  }
  for (const c of by.values()) c.closed = c.completed + Object.values(c.blocked).reduce((a, b) => a + b, 0) + c.lost + c.deadLetters;
  return by;
}

/** Nearest rank, as the bridge documents it (seconds). */
export function nearest(values: number[], q: number): number | null {
  const s = [...values].sort((x, y) => x - y);
  return s.length ? (s[Math.max(0, Math.ceil(q * s.length) - 1)] ?? null) : null;
}

/** `stats` (JSON, table, CSV; by seat, kind, task, day, board) against the count from the board. */
export async function verifyStats(emu: Emu, s: Scenario): Promise<{ text: string; json: StatsReport }> {
  const docs = (await Promise.all(s.tasks.map((t) => emu.kanban(["show", t, "--json"])))).map((r) => JSON.parse(r.stdout) as Doc);
  const count = countFromBoard(docs, fromOutboxes(Object.values(s.stateDirs)));
  const stats = async (by: string, as: "json" | "csv" | "text" = "json") => {
    let out = "";
    // (the emulator speaks the call-server protocol: one process for every show, as a seat's daemon has it)
    const flags = {
      board: emu.slug,
      hermes: emu.command.join(" "),
      "hermes-home": emu.home,
      "state-dir": s.stateDirs.a,
      "call-server": emu.real ? "auto" : "on",
    };
    const env = { ...process.env, ...emu.extraEnv, ...(emu.real ? { HOME: emu.dir } : {}) };
    const code = await statsCommand({ by, since: "1d", root: s.root, json: as === "json", csv: as === "csv", flags }, env, (x) => (out += x));
    expect(code).toBe(0);
    return out;
  };
  const json = JSON.parse(await stats("seat")) as StatsReport;
  const rows = new Map([...json.rows, json.total].map((r) => [r.key, r]));
  expect([...rows.keys()].sort()).toEqual([...count.keys()].sort());
  const q = (v: number[]) => ({ n: v.length, p50: nearest(v, 0.5), p95: nearest(v, 0.95), p99: nearest(v, 0.99) });
  for (const [key, c] of count) {
    const r = rows.get(key);
    const blocked = Object.values(c.blocked).reduce((a, b) => a + b, 0);
    const retries = Object.values(c.retries).reduce((a, b) => a + b, 0);
    expect({ key, ...r }).toMatchObject({
      key,
      runs: c.runs,
      attempts: c.runs + retries,
      retries,
      completed: c.completed,
      reviewHandoffs: c.reviewHandoffs,
      blocked,
      lost: c.lost,
      givenBack: c.givenBack,
      deadLetters: c.deadLetters,
      reopened: c.reopened,
      closed: c.closed,
      inFlight: 0,
      turns: c.turns,
      tokensIn: c.tokensIn,
      tokensOut: c.tokensOut,
      unmeasured: c.unmeasured,
      pickup: q(c.pickup),
      timeToClose: q(c.timeToClose),
    });
    for (const [cause, n] of Object.entries(c.retries)) expect(r?.retriesByCause[cause as "crash"]).toBe(n);
    for (const [cause, n] of Object.entries(c.blocked)) expect(r?.blockedByCause[cause as "environment"]).toBe(n);
    expect(r?.runTime.n).toBe(c.runTime.length);
    for (const p of [0.5, 0.95, 0.99] as const) expect(r?.runTime[p === 0.5 ? "p50" : p === 0.95 ? "p95" : "p99"]).toBeCloseTo(nearest(c.runTime, p) ?? 0, 3);
    expect(r?.costUsd).toBeCloseTo(c.costUsd, 6);
    if (c.closed === 0)
      expect([r?.successRate, r?.failureRate, r?.deadLetterRate]).toEqual([null, null, null]); // no rate of nothing
    else {
      expect(r?.successRate).toBeCloseTo(c.completed / c.closed, 9);
      expect(r?.failureRate).toBeCloseTo((c.closed - c.completed) / c.closed, 9);
      expect(r?.deadLetterRate).toBeCloseTo(c.deadLetters / c.closed, 9);
    }
    if (c.completed) expect(r?.costPerCompleted).toBeCloseTo(c.costUsd / c.completed, 9);
  }
  // the scenario's mix is all there: each cause, a retried crash and one out of retries, a loss, a hand-back, a dead letter, a round trip
  const t = json.total;
  expect(
    Object.entries(t.blockedByCause)
      .filter(([, n]) => n > 0)
      .map(([k]) => k)
      .sort(),
  ).toEqual(["auth missing", "environment", "human decision needed", "spec undecided", "test failure"].sort());
  // the operator's reclaim of a running task is a stop made on the board: given back, like the limit's hand-back;
  // the claim that ran out while its seat was cut off, released by the dispatcher, is the one lease lost (seat A's)
  expect(t).toMatchObject({ retriesByCause: { crash: 3 }, lost: 1, givenBack: 2, deadLetters: 1, reopened: 1 });
  expect(rows.get(SEATS.a)?.lost).toBe(1);
  // (sent back, the task goes to whichever seat of the lane claims it: the other one hands it over again)
  expect(t.reviewHandoffs).toBeGreaterThanOrEqual(1);
  expect(t.givenBackBy.limit).toBe(1);
  expect(rows.get(SEATS.c)).toMatchObject({ unmeasured: 0, completed: s.tasks.length > 0 ? rows.get(SEATS.c)?.runs : 0 });
  expect(rows.get(SEATS.c)?.costPerCompleted).toBeCloseTo(0.01, 9);
  // the seed's levels: ~a quarter of the closes failed, one never landed
  expect(t.verdicts.map((v) => v.level).sort()).toEqual(["dead_letter_rate", "failure_rate"]);

  // the table: every line within 100 columns, the same numbers, the findings flagged
  const text = await stats("seat", "text");
  mkdirSync("test-artifacts", { recursive: true });
  writeFileSync("test-artifacts/stats-table.txt", text);
  for (const line of text.split("\n")) expect(line.length).toBeLessThanOrEqual(100);
  const outcomes = text.split("\n\n").find((p) => p.startsWith("OUTCOMES")) ?? "";
  const total = outcomes.split("\n").find((l) => l.startsWith("total")) ?? "";
  expect(total.trim().split(/\s+/).slice(1).map(Number)).toEqual([
    t.runs,
    t.attempts,
    t.completed,
    t.blocked,
    t.lost,
    t.givenBack,
    t.deadLetters,
    t.reopened,
    t.inFlight,
  ]);
  expect(text).toMatch(/^total\s+\d+\s+[\d.]+%\s+[\d.]+% !\s+[\d.]+% !/m);
  expect(text).toContain("Service levels crossed (!):");
  expect(text).toMatch(/\n {2}total\n {4}failure rate [\d.]+ % ≥ 5\.0 % \(\d+ of \d+ closed runs; serviceLevels\.failureRate\)\n/);
  // CSV: one row per seat and the total, the same figures
  const csv = (await stats("seat", "csv")).trim().split("\n");
  const head = csv[0]?.split(",") ?? [];
  const totalRow = csv.find((l) => l.startsWith("total,"))?.split(",") ?? [];
  const cell = (name: string) => Number(totalRow[head.indexOf(name)]);
  expect([cell("runs"), cell("completed"), cell("dead_letters"), cell("retries_crash"), cell("blocked_auth_missing")]).toEqual([
    t.runs,
    t.completed,
    t.deadLetters,
    t.retriesByCause.crash,
    t.blockedByCause["auth missing"],
  ]);
  // by agent kind, by task, by day, by board: the same total
  const kinds = JSON.parse(await stats("kind")) as StatsReport;
  expect(Object.fromEntries(kinds.rows.map((r) => [r.key, r.runs]))).toMatchObject({ "claude-code": rows.get(SEATS.c)?.runs });
  expect(kinds.rows.map((r) => r.key)).toContain("command");
  const byTask = JSON.parse(await stats("task")) as StatsReport;
  expect(byTask.rows.map((r) => r.key).sort()).toEqual(s.tasks.map((id) => `${emu.slug}/${id}`).sort());
  // the task whose claim ran out: its first run lost, the next one done
  expect(byTask.rows.find((r) => r.key === `${emu.slug}/${s.lost}`)).toMatchObject({ runs: 2, lost: 1, completed: 1, deadLetters: 0 });
  for (const by of ["day", "board", "task", "kind"]) expect((JSON.parse(await stats(by)) as StatsReport).total).toEqual(t);
  return { text, json };
}
