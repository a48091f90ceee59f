// A seat's status snapshot input (observe/status.ts buildSnapshot) as a quiet seat gives it, for tests that
// look at one part of what an operator reads (its limits, its whys' bounds): `over` sets that part.
import type { Outbox } from "../../src/outbox/outbox.js";
import type { SnapshotInput } from "../../src/observe/status.js";

const spend = { tokens: 0, costUsd: 0, runs: 0, unmeasured: 0 };

export function snapshotInput(over: Partial<SnapshotInput> = {}): SnapshotInput {
  return {
    now: Date.UTC(2026, 11, 5),
    pid: 632,
    alertsBacklog: 0,
    quarantined: [],
    who: { seat: "seathost/claude-1", assignee: "claude", agent: "claude-code", boards: ["main"], heartbeatSeconds: 120 },
    seat: { paused: () => false, authFailed: () => false, pausedUntil: () => null, reason: null, fix: null },
    metrics: undefined,
    inflight: [],
    outbox: { backlog: () => 0, path: "/x/outbox.jsonl" } as unknown as Outbox,
    healthy: true,
    stopping: false,
    orphans: [],
    lastErrors: [],
    transports: new Map(),
    spend: { today: spend, window5h: spend, budget: null },
    redact: (t) => t,
    ...over,
  };
}
