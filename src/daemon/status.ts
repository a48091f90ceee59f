// The status snapshot: served at /status, written to <stateDir>/status.json, printed by `status`.
import { renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Config } from "../config/schema.js";
import { timingFor } from "../config/timing.js";
import type { Metrics } from "../observe/metrics.js";
import type { Outbox } from "../outbox/outbox.js";
import type { Spend } from "../state/ledger.js";
import type { InFlight } from "./launcher.js";
import type { SeatState } from "./seat.js";

export interface StatusSnapshot {
  at: string;
  /** The daemon's process id (status tells a stale file from a running daemon with it). */
  pid: number;
  seat: {
    /** seat.name (host/state dir by default) and the lane (assignee) it works. */
    name: string;
    assignee: string;
    agent: string;
    /** working (runs in flight) · idle · paused (usage limit, until pausedUntil) · auth (needs an operator) · budget (daily budget spent) · stopping */
    state: "working" | "idle" | "paused" | "auth" | "budget" | "stopping";
    paused: boolean;
    pausedUntil: string | null;
    reason: string | null;
    /** Why the seat claims nothing more today (agent.budget.seatDaily spent), or null. */
    budget: string | null;
  };
  /** What this seat spent (its ledger): since midnight UTC and in the last 5 hours. */
  usage: { today: Spend; window5h: Spend };
  boards: string[];
  /** How each board's calls reach the CLI (hermes.callServer): the call server, or one process each. */
  transports: Record<string, { mode: string; why: string }>;
  healthy: boolean;
  stopping: boolean;
  runs: {
    board: string;
    task: string;
    runId: number | null;
    traceId: string;
    phase: string;
    ageSeconds: number;
    lastHeartbeat: string | null;
    deadline: string | null;
    adopted: boolean;
    lastNote: string | null;
    /** The last operator note handed to the running agent. */
    lastOperatorNote: { id: string; author: string; postedAt: string | null; deliveredAt: string | null; text: string } | null;
  }[];
  outbox: { backlog: number; path: string; alertsQueued: number };
  orphans: { board: string; taskId: string }[];
  quarantined: { file: string; why: string; at: string }[];
  lastErrors: { at: string; what: string }[];
}

export function writeStatusFile(stateDir: string, s: StatusSnapshot): void {
  const f = join(stateDir, "status.json");
  writeFileSync(`${f}.tmp`, `${JSON.stringify(s, null, 2)}\n`, { mode: 0o600 });
  renameSync(`${f}.tmp`, f);
}

export function iso(ms: number | null): string | null {
  return ms === null || !Number.isFinite(ms) ? null : new Date(ms).toISOString();
}

export interface SnapshotInput {
  now: number;
  pid: number;
  alertsBacklog: number;
  quarantined: { file: string; why: string; at: string }[];
  config: Config;
  seat: SeatState;
  metrics: Metrics | undefined;
  inflight: InFlight[];
  outbox: Outbox;
  healthy: boolean;
  stopping: boolean;
  orphans: { board: string; taskId: string }[];
  lastErrors: { at: string; what: string }[];
  transports: Map<string, { mode: string; why: string }>;
  spend: { today: Spend; window5h: Spend; budget: string | null };
  /** Agent text (the last note) is shown redacted, as on the board. */
  redact: (text: string) => string;
}

function seatState(i: SnapshotInput, paused: boolean): StatusSnapshot["seat"]["state"] {
  if (i.stopping) return "stopping";
  if (paused) return i.seat.authFailed() ? "auth" : "paused";
  if (i.inflight.length > 0) return "working";
  return i.spend.budget ? "budget" : "idle";
}

/** The snapshot, refreshing the gauges that are read rather than counted. */
export function buildSnapshot(i: SnapshotInput): StatusSnapshot {
  const paused = i.seat.paused();
  const backlog = i.outbox.backlog();
  i.metrics?.seatPaused.set(paused ? 1 : 0);
  i.metrics?.inFlight.set(i.inflight.length);
  i.metrics?.outboxBacklog.set(backlog);
  i.metrics?.seatAuthFailed.set(i.seat.authFailed() ? 1 : 0);
  i.metrics?.alertsQueued.set(i.alertsBacklog);
  i.metrics?.heartbeatAge.set(Math.max(0, ...i.inflight.map((r) => (i.now - (r.lastHeartbeat ?? r.startedAt)) / 1000)));
  i.metrics?.heartbeatInterval.set(timingFor(i.config, i.config.claim.ttlSeconds).heartbeatSeconds);
  return {
    at: new Date(i.now).toISOString(),
    pid: i.pid,
    seat: {
      name: i.config.seat.name,
      assignee: i.config.assignee,
      agent: i.config.agent.kind,
      state: seatState(i, paused),
      paused,
      pausedUntil: paused ? (iso(i.seat.pausedUntil()) ?? "until an operator fixes it") : null,
      reason: paused ? i.seat.reason : null,
      budget: i.spend.budget,
    },
    usage: { today: i.spend.today, window5h: i.spend.window5h },
    boards: i.config.boards,
    transports: Object.fromEntries(i.transports),
    healthy: i.healthy,
    stopping: i.stopping,
    runs: i.inflight.map((r) => ({
      board: r.board,
      task: r.taskId,
      runId: r.runId,
      traceId: r.traceId,
      phase: r.phase,
      ageSeconds: Math.round((i.now - r.startedAt) / 1000),
      lastHeartbeat: iso(r.lastHeartbeat),
      deadline: iso(r.deadline || null),
      adopted: r.adopted,
      lastNote: r.run?.lastNote ? i.redact(r.run.lastNote) : null,
      lastOperatorNote: r.operatorNote
        ? {
            id: r.operatorNote.id,
            author: r.operatorNote.author,
            postedAt: iso(r.operatorNote.postedAt),
            deliveredAt: iso(r.operatorNote.deliveredAt),
            text: i.redact(r.operatorNote.body).slice(0, 500),
          }
        : null,
    })),
    outbox: { backlog, path: i.outbox.path, alertsQueued: i.alertsBacklog },
    orphans: i.orphans,
    quarantined: [...i.quarantined],
    lastErrors: [...i.lastErrors],
  };
}
