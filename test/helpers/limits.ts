// A seat that hits its usage limit mid-task, continued without an operator (seat.onLimit), on the
// emulator (test/integration/limits.test.ts) and on the real Hermes CLI (test/real/limits.test.ts):
// `handoff` — seat A gives the task back to the lane and seat B (same assignee) completes it at once;
// `wait` — seat A parks it and completes it itself after the reset, resuming its session. No operator
// command in between; the task is never blocked and never passes through triage.
import { expect } from "vitest";
import type { RunReport } from "../../src/run/task-run.js";
import { AGENT, type Bridge, runBridge, SEAT } from "./bridge.js";
import type { Emu, ShowDoc } from "./emulator.js";

function seat(
  emu: Emu,
  name: string,
  mode: "handoff" | "wait",
  env: Record<string, string>,
  agent: Record<string, unknown> = {},
  seatCfg: Record<string, unknown> = {},
): Promise<Bridge> {
  return runBridge(emu, {
    once: false,
    stateName: `state-${name}`,
    env: { ...env, FIXTURE_SEAT: name },
    base: {
      seat: { name, onLimit: mode, limitMarginSeconds: 0, ...seatCfg },
      discovery: { watch: true, sweepSeconds: 3600, debounceMs: 20 },
      agent: {
        kind: "command",
        command: [process.execPath, AGENT],
        killGraceSeconds: 1,
        passEnv: ["FIXTURE_LIMITED", "FIXTURE_SEAT", "FIXTURE_RESET_MS", "FIXTURE_RUNS_FILE"],
        ...agent,
      },
    },
  });
}

export async function limitContinues(emu: Emu, mode: "handoff" | "wait", resetMs: number): Promise<{ doc: ShowDoc; reports: RunReport[] }> {
  const id = await emu.createTask("pooled job", { assignee: SEAT, body: "MODE:pool" });
  const a = await seat(emu, "seat-a", mode, { FIXTURE_LIMITED: "1", FIXTURE_RESET_MS: String(resetMs) });
  const seats = [a];
  try {
    if (mode === "handoff") {
      // seat B joins once A works on the task (the race for the first claim is A's)
      await a.monitor.next("claimed", (e) => e.taskId === id);
      seats.push(await seat(emu, "seat-b", mode, {}));
    }
    const first = await a.monitor.closed(id);
    expect(first).toMatchObject({ decision: "block", handedOff: mode, close: "applied", cut: "usage_limit" });
    const parked = await emu.show(id);
    if (mode === "handoff") {
      // (a command agent's limit is its word: no check of the seat can confirm it, and the card says so)
      expect(parked.comments.at(-1)?.body).toMatch(
        /seat seat-a\): this seat hit its usage limit \(usage, unconfirmed\) until 20\d\d-.*seat\.onLimit: handoff/s,
      );
      expect(parked.comments.at(-1)?.body).toMatch(/did not confirm it \(this agent kind has no way to check it from outside/);
    } else {
      expect(["scheduled", "ready", "running", "done"]).toContain(parked.task.status);
      expect(
        parked.comments.some((c) => /^SCHEDULED: usage limit of seat seat-a \(usage, unconfirmed\) until 20\d\d-.*seat seat-a continues/.test(c.body)),
      ).toBe(true);
    }
    // done by a seat of the lane: seat B at once (handoff), seat A once its limit resets (wait)
    const ms = mode === "handoff" ? 90_000 : resetMs + 60_000;
    await Promise.any(seats.map((s) => s.monitor.next("run:closed", (r) => r.taskId === id && r.decision === "complete", { ms })));
    const doc = await emu.show(id);
    const kinds = doc.events.map((e) => e.kind);
    expect(kinds).not.toContain("blocked");
    expect(kinds).not.toContain("block_loop_detected");
    expect(doc.task.status).toBe("done");
    return { doc, reports: seats.flatMap((s) => s.reports) };
  } finally {
    for (const s of seats) await s.daemon.stop();
  }
}

/**
 * A command agent whose account is limited until a fixed instant `resetMs` after its first run (agent.mjs
 * `limited-until`), the seat's config as shipped but for `onLimit` (and a limit margin of 0, so the test waits the
 * reset only): the task ends done by itself — on the same seat after the reset (wait), on a sibling at once
 * (handoff) — never blocked; returns the board's record and when each run started.
 */
export async function limitedUntil(
  emu: Emu,
  mode: "handoff" | "wait",
  resetMs: number,
  seatCfg: Record<string, unknown> = {},
): Promise<{ doc: ShowDoc; runs: { at: number; seat: string }[]; until: number }> {
  const id = await emu.createTask("limited account", { assignee: SEAT, body: "MODE:limited-until" });
  const file = `${emu.dir}/runs`;
  // the agent keeps its account's state beside the test (outside any workspace): no jail of its own here
  const none = { isolation: { mode: "none" } };
  const seats = [await seat(emu, "seat-a", mode, { FIXTURE_LIMITED: "1", FIXTURE_RESET_MS: String(resetMs), FIXTURE_RUNS_FILE: file }, none, seatCfg)];
  try {
    if (mode === "handoff") {
      await seats[0]?.monitor.next("claimed", (e) => e.taskId === id);
      seats.push(await seat(emu, "seat-b", mode, { FIXTURE_RUNS_FILE: file }, none, seatCfg));
    }
    // the reset, the seat's margin after it, and room for a slow board (real Hermes on a busy machine)
    const ms = resetMs + Number(seatCfg.limitMarginSeconds ?? 0) * 1000 + 120_000;
    await Promise.any(seats.map((s) => s.monitor.next("run:closed", (r) => r.taskId === id && r.decision === "complete", { ms })));
    const doc = await emu.show(id);
    const { readFileSync } = await import("node:fs");
    const runs = readFileSync(file, "utf8")
      .trim()
      .split("\n")
      .map((l) => ({ at: Number(l.split(" ")[0]), seat: l.split(" ")[1] ?? "" }));
    return { doc, runs, until: Number(readFileSync(`${file}.until`, "utf8")) };
  } finally {
    for (const s of seats) await s.daemon.stop();
  }
}
