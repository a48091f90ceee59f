// TaskRun on in-memory collaborators: every way a run can stop ends in exactly one close — complete,
// a templated block, or a recorded lost lease — and cleanup runs in reverse order even when a step
// fails. No processes, no real waits: the timers, the keeper and the tools are driven by hand.
import type { RetryPolicy } from "../../src/run/context.js";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { LeaseClock, type Renewal } from "../../src/lease/clock.js";
import { afterAll, describe, expect, it } from "vitest";
import type { AgentEvent, AgentRunInput } from "../../src/agents/port.js";
import { timingFor } from "../../src/config/timing.js";
import type { GateConfig } from "../../src/gate/gate.js";
import { hardenedGit } from "../../src/git/runner.js";
import { HeldLease, type HoldDeps } from "../../src/lease/held.js";
import type { LeaseKeeperDeps } from "../../src/lease/keeper.js";
import { leaseFrom, leaseOfReceipt } from "../../src/lease/lease.js";
import type { CloseIntent } from "../../src/outbox/outbox.js";
import type { ClaimPolicy } from "../../src/run/work/claims.js";
import { hasAllFields } from "../../src/result/template.js";
import { type RunReport, TaskRun } from "../../src/run/task-run.js";
import { type TestBoard, testBoard } from "../helpers/in-process-board.js";
import { FakeCloser, ManualFactories, ScriptAgent, aborted, fakeWorkspaces, finished } from "../helpers/fakes.js";
import { testSeatRun } from "../helpers/seat-run.js";

const NOW = 1_800_000_000_000;
const clock = { now: () => NOW };
const GATE: GateConfig = {
  commands: [],
  bodyVerification: false,
  allowedCommands: [],
  timeoutSeconds: 5,
  outputTailChars: 400,
  requireChanges: false,
  allowDirty: true,
  minItems: 0,
};
const RESULT = { ok: true, status: "ok", items: 1 };
const GIT = { globalConfig: join(mkdtempSync(join(tmpdir(), "hkb-git-")), "config"), passEnv: [] };

interface Setup {
  agent: ScriptAgent;
  make?: ManualFactories;
  closer?: FakeCloser;
  shutdown?: AbortController;
  gate?: Partial<GateConfig>;
  renewal?: Renewal;
  /** The board (the emulator, in this process) and what happens on it right before and after the claim. */
  board?: TestBoard;
  beforeClaim?: (board: TestBoard, id: string) => Promise<void>;
  afterClaim?: (board: TestBoard, id: string) => Promise<void>;
  /** The claim's `show` was lost: the run reads the run id itself. */
  unread?: boolean;
  /** How the seat checks a limit or failed login the agent reports (default: it confirms them). */
  claims?: ClaimPolicy;
  /** agent.retries and its backoff (default: 2 retries, 10 s × 2^(n−1), at most 60 s). */
  retry?: RetryPolicy;
  /** The lease's own heartbeat loop (LeaseKeeper over the board), its waits on the manual timers; default: a keeper driven by hand. */
  realKeeper?: boolean;
}

/** How the run's lease is held: the fixed clock and the manual timers; the keeper by hand unless `realKeeper`. */
const holdOf = (s: Setup, make: ManualFactories): HoldDeps => ({
  clock,
  timer: (at, fire) => make.timer(at, fire),
  ...(s.realKeeper ? {} : { keeper: (d: LeaseKeeperDeps) => make.keeper(d) }),
});

const boards: TestBoard[] = [];
afterAll(() => {
  for (const b of boards) b.cleanup();
});

const CONFIRMS: ClaimPolicy = { check: async () => ({ verdict: "confirmed", detail: "the seat's own request met it" }), unconfirmedPauseMs: 600_000 };

function start(s: Setup) {
  const make = s.make ?? new ManualFactories();
  const closer = s.closer ?? new FakeCloser();
  const shutdown = s.shutdown ?? new AbortController();
  const ws = fakeWorkspaces();
  const timing = timingFor({ claim: { ttlSeconds: 900, maxTtlSeconds: 14400 }, heartbeat: {} }, 900);
  let calls: () => string[] = () => [];
  let onBoard: (t: TestBoard) => void = () => undefined;
  const boardP = new Promise<TestBoard>((resolve) => {
    onBoard = resolve;
  });
  const run = (async () => {
    const t = s.board ?? (await testBoard());
    onBoard(t);
    boards.push(t);
    const board = t.board;
    const id = await t.seed("a task");
    await s.beforeClaim?.(t, id);
    const receipt = await board.claim(id, 900);
    await s.afterClaim?.(t, id);
    const detail = s.unread ? null : await board.show(id);
    const base = leaseOfReceipt("b", { ...receipt, claimedAt: NOW });
    const lease = detail ? leaseFrom(base, detail) : base;
    const from = t.transport.calls.length;
    calls = () => t.transport.calls.slice(from);
    const fencing = { retry: { retries: 0, minDelayMs: 0, maxDelayMs: 0, deadlineMs: 1000 }, clock, author: "seat" };
    const leaseClock = new LeaseClock(timing, NOW + timing.runSeconds * 1000, s.renewal);
    const claims = s.claims ?? CONFIRMS;
    const seat = testSeatRun({
      closer,
      clock,
      workspaces: ws,
      make,
      shutdown: shutdown.signal,
      git: hardenedGit(process.env, GIT),
      checkClaim: claims.check,
      settings: {
        retry: s.retry ?? { retries: 2, baseMs: 10_000, maxMs: 60_000 },
        gate: { ...GATE, ...(s.gate ?? {}) },
        unconfirmedPauseMs: claims.unconfirmedPauseMs,
      },
    });
    const held = HeldLease.of(board, { lease, detail }, { fencing, hold: holdOf(s, make) }, leaseClock, { contextText: "# context", reclaimed: false });
    return new TaskRun(seat, { board, held, agent: s.agent, traceId: "trace-0123456789" }).run();
  })();
  /** The board calls the run made (from its lease on). */
  return {
    report: run,
    make,
    closer,
    shutdown,
    calls: () => calls(),
    deadline: NOW + timing.runSeconds * 1000,
    board: boardP,
    heartbeatMs: timing.heartbeatSeconds * 1000,
  };
}

/** An agent that works until stopped (hard stop), reporting progress first. */
const worksUntilStopped = (extra: AgentEvent[] = []) =>
  new ScriptAgent(async function* (input: AgentRunInput) {
    yield { type: "started", pid: 4242 };
    yield { type: "session", id: "sess-1" };
    yield { type: "progress", note: "halfway" };
    for (const e of extra) yield e;
    await aborted(input.signal);
    yield finished({ exitCode: null, signal: "SIGTERM", reason: "aborted" });
  });

/** Yields to the event loop until `cond` holds (the scripted agent's events are in flight). */
const until = async (cond: () => boolean) => {
  for (let i = 0; i < 1000 && !cond(); i += 1) await new Promise((r) => setImmediate(r));
  expect(cond()).toBe(true);
};

const keeperOf = (make: ManualFactories) => {
  if (!make.keeperDeps) throw new Error("the run has no keeper yet");
  return make.keeperDeps;
};

const block = (closer: FakeCloser): Extract<CloseIntent, { type: "block" }> => {
  expect(closer.intents).toHaveLength(1);
  const i = closer.intents[0];
  if (i?.type !== "block") throw new Error(`expected a block, got ${JSON.stringify(i)}`);
  expect(hasAllFields(i.reason)).toBe(true);
  return i;
};

describe("TaskRun stop paths", () => {
  it("complete: the agent's outcome, after the gate, with usage and session in the metadata", async () => {
    const agent = new ScriptAgent(async function* () {
      yield { type: "session", id: "sess-9" };
      yield { type: "usage", usage: { tokens: { input: 5, output: 2 }, costUsd: 0.5, turns: 2, model: "m" } };
      yield { type: "outcome", request: { kind: "complete", summary: "did it", result: RESULT } };
      yield finished();
    });
    const { report, closer } = start({ agent });
    expect((await report).decision).toBe("complete");
    const i = closer.intents[0];
    expect(i).toMatchObject({
      type: "complete",
      summary: "did it",
      metadata: { ok: true, bridge: { session: { id: "sess-9", resumed: false }, tokens: { input: 5, output: 2 }, cost_usd: 0.5, turns: 2, model: "m" } },
    });
  });

  it("deadline: the polite stop at deadline − wrap-up, the hard stop at the deadline, a block naming the last note", async () => {
    const agent = worksUntilStopped();
    const { report, make, closer, deadline } = start({ agent });
    await agent.started;
    make.fireUntil(deadline - 60_000);
    expect(agent.inputs[0]?.wrapUp.aborted).toBe(true);
    expect(agent.inputs[0]?.signal.aborted).toBe(false);
    make.fireUntil(deadline);
    const r = await report;
    expect(r).toMatchObject({ decision: "block", cut: "deadline", cause: "environment" });
    const b = block(closer);
    expect(b.reason).toMatch(/did not finish before its deadline/);
    expect(b.reason).toMatch(/Last progress note: "halfway"/);
    expect(b.reason).toContain("session: sess-1 — unblock to continue");
  });

  it("a renewable claim: the deadline follows each renewal, up to the latest, and the block names the moved deadline", async () => {
    const agent = worksUntilStopped();
    const first = NOW + (900 - 60) * 1000;
    const latest = first + 600_000;
    // The claim may be renewed up to 1500 s after it was taken: a renewal asks for the TTL until the limit is near.
    const { report, make, closer } = start({ agent, renewal: { ttlSeconds: 900, latest, limitAt: NOW + 1_500_000 } });
    await agent.started;
    const ext = keeperOf(make).extend;
    expect(ext?.ttlSeconds()).toBe(900);
    ext?.onExtended(NOW + 1_200_000); // renewed: expires 1200 s after the claim
    make.fireUntil(first);
    expect(agent.inputs[0]?.wrapUp.aborted).toBe(false);
    ext?.onExtended(NOW + 9_000_000); // far beyond: held at `latest`
    make.fireUntil(latest - 1);
    expect(agent.inputs[0]?.wrapUp.aborted).toBe(true);
    expect(agent.inputs[0]?.signal.aborted).toBe(false);
    make.fireUntil(latest);
    expect((await report).cut).toBe("deadline");
    expect(block(closer).reason).toContain(`did not finish before its deadline (${new Date(latest).toISOString()}`);
  });

  it("a claim that cannot be renewed: the keeper is not asked to extend it", async () => {
    const agent = worksUntilStopped();
    const { report, make } = start({ agent });
    await agent.started;
    expect(keeperOf(make).extend).toBeUndefined();
    make.fireUntil(Number.MAX_SAFE_INTEGER);
    expect((await report).cut).toBe("deadline");
  });

  it("lease lost: Hermes gives the claim back, the next heartbeat hears it, the agent is stopped and the loss is recorded, nothing closed", async () => {
    const agent = worksUntilStopped();
    const { report, make, closer, board, heartbeatMs } = start({ agent, realKeeper: true });
    await agent.started;
    // The first beat (at once) found the task ours; the next waits one interval on the lease's timers.
    await make.timerAt(NOW + heartbeatMs);
    expect(agent.inputs[0]?.signal.aborted).toBe(false);
    await (await board).expire(); // the claim ran out on the board: a dispatch reclaimed the run
    make.fireUntil(NOW + heartbeatMs);
    await until(() => agent.inputs[0]?.signal.aborted === true);
    make.fireUntil(Number.MAX_SAFE_INTEGER); // the kill grace
    const r = await report;
    expect(r).toMatchObject({ decision: "lost", close: "lease_lost", cut: "lease_lost" });
    expect(closer.lost).toBe(1);
    expect(closer.intents).toEqual([]);
  });

  it("a claim reclaimed before its run id was read: the agent never starts, nothing is closed", async () => {
    const agent = new ScriptAgent(async function* () {
      yield { type: "outcome", request: { kind: "complete", summary: "should not run", result: RESULT } };
      yield finished();
    });
    const { report, closer, calls } = start({ agent, unread: true, afterClaim: (b) => b.expire() });
    expect(await report).toMatchObject({ decision: "lost", close: "lease_lost", runId: null });
    expect(agent.inputs).toHaveLength(0);
    expect(closer.intents).toHaveLength(0);
    expect(closer.lost).toBe(1);
    expect(calls().map((c) => c.split(" ")[0])).toEqual(["show"]);
  });

  it("a claim whose run id is read late still runs on that run, and every record of the run names it", async () => {
    const agent = new ScriptAgent(async function* () {
      yield { type: "outcome", request: { kind: "complete", summary: "ran", result: RESULT } };
      yield finished();
    });
    const board = await testBoard();
    await board.seed("an earlier task");
    await board.board.claim(await board.seed("another"), 900); // runs 1 is taken: ours is 2
    const { report, closer } = start({ agent, board, unread: true });
    expect(await report).toMatchObject({ decision: "complete", runId: 2 });
    expect(closer.intents).toHaveLength(1);
    expect(closer.intents[0]).toMatchObject({ type: "complete", metadata: { bridge: { run_id: 2 } } });
  });

  it("unresolved: heartbeats that cannot be confirmed stop the run with a block", async () => {
    const agent = worksUntilStopped();
    const { report, make, closer } = start({ agent });
    await agent.started;
    keeperOf(make).onUnresolved(new Error("board down"));
    make.fireUntil(Number.MAX_SAFE_INTEGER);
    expect((await report).cut).toBe("unresolved");
    expect(block(closer).reason).toMatch(/could not keep the lease confirmed with the board \(board down\)/);
  });

  it("shutdown: the forced shutdown stops the run with the shutting-down block", async () => {
    const agent = worksUntilStopped();
    const { report, make, closer, shutdown } = start({ agent });
    await agent.started;
    shutdown.abort(new Error("forced"));
    make.fireUntil(Number.MAX_SAFE_INTEGER);
    expect((await report).cut).toBe("shutdown");
    expect(block(closer).reason).toMatch(/The bridge was shutting down/);
  });

  it("auth: an auth failure stops the run at once and blocks for the operator", async () => {
    const agent = worksUntilStopped([{ type: "auth_failed", message: "Not logged in" }]);
    const { report, make, closer } = start({ agent });
    await agent.started;
    // The auth failure alone arms the kill grace: only that timer is fired, not the deadline's.
    await until(() => make.timers.some((t) => t.at === NOW + 1000));
    make.fireUntil(NOW + 1000);
    const r = await report;
    expect(r).toMatchObject({ authFailed: true, cut: "auth", cause: "auth missing" });
    expect(block(closer).kind).toBe("capability");
  });

  it("limit: a usage limit blocks as transient and reports the reset", async () => {
    const agent = new ScriptAgent(async function* () {
      yield { type: "limit", kind: "five_hour", resetsAt: NOW + 3_600_000, message: "limit" };
      yield finished({ exitCode: 1 });
    });
    const { report, closer } = start({ agent });
    const r = await report;
    expect(r.limit?.resetsAt).toBe(NOW + 3_600_000);
    expect(r.cut).toBe("usage_limit");
    expect(block(closer).kind).toBe("transient");
  });

  it("limit, not confirmed by the seat's check: handed on as a limit that pauses the seat briefly, the card says so", async () => {
    const agent = new ScriptAgent(async function* () {
      yield { type: "limit", kind: "five_hour", resetsAt: NOW + 168 * 3_600_000, message: "limit" };
      yield finished({ exitCode: 1 });
    });
    const checks: string[] = [];
    const claims: ClaimPolicy = {
      check: async (claim) => {
        checks.push(claim);
        return { verdict: "refuted", detail: "the seat's own request went through" };
      },
      unconfirmedPauseMs: 600_000,
    };
    const { report, closer } = start({ agent, claims });
    const r = await report;
    expect(checks).toEqual(["limit"]);
    expect(r.claimCheck).toMatchObject({ claim: "limit", verdict: "refuted" });
    // never the agent's week: the brief pause, then the seat checks again
    expect(r.limit?.resetsAt).toBe(NOW + 600_000);
    expect(r.limit?.kind).toBe("five_hour, unconfirmed");
    expect(block(closer).reason).toMatch(/did not confirm it \(the seat's own request went through\): the seat pauses 10 minutes at most/);
  });

  it("a failed login not confirmed by the seat's check is no auth block: handed on, the seat paused briefly", async () => {
    const agent = worksUntilStopped([{ type: "auth_failed", message: "Not logged in" }]);
    const claims: ClaimPolicy = { check: async () => ({ verdict: "refuted", detail: "the seat's own request went through" }), unconfirmedPauseMs: 600_000 };
    const { report, make } = start({ agent, claims });
    await agent.started;
    await until(() => make.timers.some((t) => t.at === NOW + 1000));
    make.fireUntil(NOW + 1000);
    const r = await report;
    expect(r.authFailed).toBeUndefined();
    expect(r).toMatchObject({ cut: "usage_limit", claimCheck: { claim: "auth", verdict: "refuted" } });
    expect(r.limit).toMatchObject({ kind: "login failure, unconfirmed", resetsAt: NOW + 600_000 });
  });

  it("a limit not confirmed, after another seat handed the task back at its limit: blocked for a person, no pause", async () => {
    const agent = new ScriptAgent(async function* () {
      yield { type: "limit", kind: "five_hour", resetsAt: NOW + 3_600_000, message: "limit" };
      yield finished({ exitCode: 1 });
    });
    const claims: ClaimPolicy = { check: async () => ({ verdict: "unknown", detail: "no way to tell" }), unconfirmedPauseMs: 600_000 };
    const { report, closer } = start({
      agent,
      claims,
      // Another seat claimed the task first and handed it back at its limit, as the bridge does.
      beforeClaim: async (b, id) => {
        expect((await b.emu.kanban(["claim", id])).code).toBe(0);
        const reason = "usage limit of seat other-seat (five_hour) until 2026-12-02T10:00:00.000Z: handed back to the lane 'seat'";
        expect((await b.emu.kanban(["reclaim", id, `--reason=${reason}`])).code).toBe(0);
      },
    });
    const r = await report;
    expect(r.limit).toBeUndefined();
    expect(r.cause).toBe("human decision needed");
    expect(block(closer).reason).toMatch(/handed back by seat other-seat at a usage limit\. Two seats in a row/);
  });

  it("stall: a run the silence watchdog stopped is blocked as stalled", async () => {
    const agent = new ScriptAgent(async function* () {
      yield { type: "progress", note: "thinking" };
      yield finished({ exitCode: null, signal: "SIGTERM", reason: "stalled" });
    });
    const { report, closer } = start({ agent });
    expect((await report).cut).toBe("stall");
    expect(block(closer).reason).toMatch(/went silent and was stopped as stalled/);
  });

  it("tools failure: a run whose tools cannot be served is blocked, and the keeper is still stopped", async () => {
    const make = new ManualFactories();
    make.toolsThrow = new Error("EADDRINUSE");
    const { report, closer } = start({ agent: new ScriptAgent(async function* () {}, true), make });
    expect((await report).decision).toBe("block");
    expect(block(closer).reason).toMatch(/The bridge could not run the task: EADDRINUSE/);
    expect(make.keeperStops).toBe(1);
  });

  it("gate failure: a failing verification command turns the complete into a test-failure block", async () => {
    const agent = new ScriptAgent(async function* () {
      yield { type: "outcome", request: { kind: "complete", summary: "done", result: RESULT } };
      yield finished();
    });
    const { report, closer } = start({ agent, gate: { commands: ["echo broken >&2; exit 3"] } });
    expect((await report).cut).toBe("gate");
    expect(block(closer).reason).toMatch(/verification failed: `echo broken >&2; exit 3` exited 3. Output tail: broken/);
  });

  it("close failure: a close that cannot even be journaled fails the run loudly", async () => {
    const closer = new FakeCloser();
    closer.failWith = new Error("ENOSPC");
    const agent = new ScriptAgent(async function* () {
      yield { type: "outcome", request: { kind: "complete", summary: "done", result: RESULT } };
      yield finished();
    });
    await expect(start({ agent, closer }).report).rejects.toThrow(/closing t_\w+ failed before it was journaled: ENOSPC/);
  });

  it("cleanup keeps going when a step fails: the tools are closed even if the keeper will not stop", async () => {
    const make = new ManualFactories();
    make.keeperStopThrows = true;
    const agent = new ScriptAgent(async function* () {
      yield { type: "outcome", request: { kind: "complete", summary: "done", result: RESULT } };
      yield finished();
    }, true);
    const r: RunReport = await start({ agent, make }).report;
    expect(r.decision).toBe("complete");
    expect(make.toolsClosed).toBe(1);
    expect(make.keeperStops).toBe(1);
  });
});

describe("retries before a block (agent.retries)", () => {
  const segv = finished({ exitCode: null, signal: "SIGSEGV" });
  const overloaded: AgentEvent = {
    type: "failed",
    cause: "environment",
    message: "Claude ended with an error (error_during_execution, HTTP 529): Overloaded",
    transient: "api",
  };
  /** The heartbeat notes the run posted (its CLI calls), in order. */
  const notes = (calls: () => string[]) => calls().filter((c) => c.startsWith("heartbeat"));
  const waitFor = async (make: ManualFactories, at: number) => {
    await make.timerAt(at);
    make.fireUntil(at);
  };

  it("a crash is retried after the backoff, resuming the attempt's session; the usage is the attempts' sum", async () => {
    const agent = new ScriptAgent(async function* (input) {
      if (!input.resume) {
        yield { type: "session", id: "sess-1" };
        yield { type: "usage", usage: { tokens: { input: 10, output: 1 }, costUsd: 0.1, turns: 1 } };
        yield segv;
        return;
      }
      yield { type: "usage", usage: { tokens: { input: 5, output: 2 }, costUsd: 0.05, turns: 2 } };
      yield { type: "outcome", request: { kind: "complete", summary: `resumed ${input.resume.session}`, result: RESULT } };
      yield finished();
    });
    const { report, make, closer, calls } = start({ agent });
    await waitFor(make, NOW + 10_000);
    const r = await report;
    expect(r).toMatchObject({ decision: "complete", usage: { tokens: { input: 15, output: 3 }, turns: 3 } });
    expect(r.usage?.costUsd).toBeCloseTo(0.15);
    expect(agent.inputs).toHaveLength(2);
    expect(agent.inputs[1]?.resume?.session).toBe("sess-1");
    expect(agent.inputs[1]?.resume?.prompt).toBe("continue the agent or the bridge stopped unexpectedly");
    expect(closer.intents[0]).toMatchObject({
      type: "complete",
      summary: "resumed sess-1",
      metadata: { bridge: { retries: [{ attempt: 1, cause: "crash", detail: "the agent was killed by SIGSEGV" }] } },
    });
    const hb = notes(calls);
    expect(hb).toHaveLength(1);
    expect(hb[0]).toContain("retry 1 of 2 (crash): the agent was killed by SIGSEGV; attempt 2 of 3 in 10 s, resuming session sess-1");
  });

  it("retries used up: the templated block names every attempt and its cause; the usage line says so", async () => {
    let n = 0;
    const agent = new ScriptAgent(async function* () {
      n += 1;
      if (n === 2) {
        yield overloaded;
        yield finished({ exitCode: 1 });
        return;
      }
      yield finished({ exitCode: 139, stderrTail: "Segmentation fault" });
    });
    const { report, make, closer, calls } = start({ agent });
    await waitFor(make, NOW + 10_000);
    await waitFor(make, NOW + 20_000); // base × 2^(n−1)
    const r = await report;
    expect(agent.inputs).toHaveLength(3);
    expect(agent.inputs.every((i) => i.resume === undefined)).toBe(true); // no session: fresh each time
    expect(r).toMatchObject({ decision: "block", cause: "environment" });
    const b = block(closer);
    expect(b.reason).toContain("The run was started again 2 times before this block (agent.retries): attempt 1 ended at");
    expect(b.reason).toContain("(crash: the agent exited with code 139 (signal 11))");
    expect(b.reason).toContain("(api: Claude ended with an error (error_during_execution, HTTP 529): Overloaded)");
    expect(b.reason.split("\n").at(-1)).toBe("usage: unmeasured (the agent reported none) · seat seat · agent script · retried 2 (crash, api)");
    expect(notes(calls).map((c) => /retry (\d) of 2 \((\w+)\)/.exec(c)?.slice(1).join(" "))).toEqual(["1 crash", "2 api"]);
  });

  it("the task's own ends are never retried: the agent's block, a failed result, a plain non-zero exit, a refusal", async () => {
    const ends: AgentEvent[][] = [
      [
        {
          type: "outcome",
          request: { kind: "block", block: { cause: "spec undecided", what_happened: "x", options: ["a"], recommendation: "a", next_action: "pick" } },
        },
        segv,
      ],
      [{ type: "outcome", request: { kind: "complete", summary: "tests failed", result: { ok: false, status: "error", items: 0 } } }, finished()],
      [finished({ exitCode: 3 })],
      [{ type: "failed", cause: "environment", message: "billing: credit balance too low" }, finished({ exitCode: 1 })],
    ];
    for (const events of ends) {
      const agent = new ScriptAgent(async function* () {
        for (const e of events) yield e;
      });
      const { report, closer } = start({ agent });
      await report;
      expect(agent.inputs).toHaveLength(1);
      expect(block(closer).reason).not.toContain("started again");
    }
  });

  it("no retry that could not start before the polite stop, none after a stop of the bridge's, none with agent.retries 0", async () => {
    for (const retry of [
      { retries: 2, baseMs: 3_600_000, maxMs: 3_600_000 },
      { retries: 0, baseMs: 1000, maxMs: 1000 },
    ]) {
      const agent = new ScriptAgent(async function* () {
        yield segv;
      });
      const r = await start({ agent, retry }).report;
      expect(agent.inputs).toHaveLength(1);
      expect(r).toMatchObject({ decision: "block", cause: "environment" });
    }
    // the seat stops while the run waits for its next attempt: the run decides with what it has
    const agent = new ScriptAgent(async function* () {
      yield segv;
    });
    const { report, make, shutdown, closer } = start({ agent });
    await make.timerAt(NOW + 10_000);
    shutdown.abort(new Error("stopping"));
    make.fireUntil(NOW + 5_000);
    const r = await report;
    expect(agent.inputs).toHaveLength(1);
    expect(r).toMatchObject({ cut: "shutdown" });
    expect(block(closer).reason).toContain("The run was started again 1 time before this block");
  });
});
