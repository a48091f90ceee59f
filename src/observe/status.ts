// The status snapshot: served at /status, written to <stateDir>/status.json, printed by `status`.
import type { Metrics } from "./metrics.js";
import { type StatusSnapshot, WHY_MAX } from "./snapshot.js";
import type { Outbox } from "../outbox/outbox.js";
import type { Hours, Spend } from "../state/ledger.js";
import { writeStateFile } from "../state/atomic.js";
import { statePath } from "../state/layout.js";
import { isoOrNull } from "../time/clock.js";

export type { StatusSnapshot } from "./snapshot.js";

/** A task in flight as the snapshot reads it: its slot, and its run's record once it has one (daemon/launcher.ts RunSlot). */
export interface RunView {
  board: string;
  taskId: string;
  startedAt: number;
  adopted: boolean;
  run: {
    record: {
      runId: number | null;
      traceId: string;
      phase: string;
      lastHeartbeat: number | null;
      deadline: number;
      title?: string | null;
      story: { lastNote?: string | undefined };
      operatorNote: { id: string; author: string; postedAt: number; deliveredAt: number; body: string } | null;
    };
  } | null;
}

/** The seat's pause as the snapshot reads it (daemon/seat.ts SeatState). */
export interface SeatView {
  paused(): boolean;
  authFailed(): boolean;
  pausedUntil(): number | null;
  readonly reason: string | null;
  readonly fix: string | null;
}

export function writeStatusFile(stateDir: string, s: StatusSnapshot): void {
  writeStateFile(statePath(stateDir, "status"), `${JSON.stringify(s, null, 2)}\n`);
}

/** ISO text of a time, null for none — total: a time out of range is null, never a throw. */
export const iso = (ms: number | null): string | null => isoOrNull(ms);

export interface SnapshotInput {
  now: number;
  pid: number;
  alertsBacklog: number;
  quarantined: { file: string; why: string; at: string }[];
  /** Who the seat is: its name, lane, agent kind, boards, and its heartbeat interval (seconds, at the configured TTL). */
  who: { seat: string; assignee: string; agent: string; boards: readonly string[]; heartbeatSeconds: number };
  seat: SeatView;
  metrics: Metrics | undefined;
  inflight: RunView[];
  outbox: Outbox;
  healthy: boolean;
  stopping: boolean;
  orphans: { board: string; taskId: string }[];
  lastErrors: { at: string; what: string }[];
  transports: Map<string, { mode: string; why: string }>;
  spend: { today: Spend; window5h: Spend; budget: string | null; hours?: Hours | null };
  /** How the agent is confined (agent.isolation). */
  isolation?: { mode: string; why: string } | undefined;
  /** How the agent's runs are capped (agent.limits): systemd, cgroup, rlimit (per process, weaker) or none. */
  limits?: { mode: string; why: string } | undefined;
  /** The agents' network (agent.isolation.network, as the jail has it) and the hosts refused since start. */
  network?: StatusSnapshot["seat"]["network"] | undefined;
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
  i.metrics?.heartbeatAge.set(Math.max(0, ...i.inflight.map((r) => (i.now - (r.run?.record.lastHeartbeat ?? r.startedAt)) / 1000)));
  i.metrics?.heartbeatInterval.set(i.who.heartbeatSeconds);
  return {
    at: isoOrNull(i.now) ?? new Date(0).toISOString(),
    pid: i.pid,
    seat: {
      name: i.who.seat,
      assignee: i.who.assignee,
      agent: i.who.agent,
      state: seatState(i, paused),
      paused,
      pausedUntil: paused ? (iso(i.seat.pausedUntil()) ?? "until an operator fixes it") : null,
      reason: paused ? i.seat.reason : null,
      fix: paused && i.seat.authFailed() ? i.seat.fix : null,
      budget: i.spend.budget,
      // Cut to what a reader takes (a host's long cgroup paths in a why would make the whole snapshot unreadable).
      ...(i.isolation ? { isolation: bounded(i.isolation, WHY_MAX.isolation) } : {}),
      ...(i.limits ? { limits: bounded(i.limits, WHY_MAX.limits) } : {}),
      ...(i.network ? { network: i.network } : {}),
    },
    usage: { today: i.spend.today, window5h: i.spend.window5h, ...(i.spend.hours ? { last24h: i.spend.hours } : {}) },
    boards: [...i.who.boards],
    transports: Object.fromEntries(i.transports),
    healthy: i.healthy,
    stopping: i.stopping,
    runs: i.inflight.map((slot) => runRow(slot, i)),
    outbox: { backlog, path: i.outbox.path, alertsQueued: i.alertsBacklog },
    orphans: i.orphans,
    quarantined: [...i.quarantined],
    lastErrors: [...i.lastErrors],
  };
}

const bounded = (w: { mode: string; why: string }, max: number) => ({ mode: w.mode, why: w.why.length > max ? `${w.why.slice(0, max - 2)} …` : w.why });

/** One run of the snapshot, read from the run's own record (a slot without a run is still claiming). */
function runRow(slot: RunView, i: SnapshotInput): StatusSnapshot["runs"][number] {
  const r = slot.run?.record;
  const note = r?.operatorNote ?? null;
  return {
    board: slot.board,
    task: slot.taskId,
    runId: r?.runId ?? null,
    traceId: r?.traceId ?? "",
    phase: r?.phase ?? "claiming",
    ageSeconds: Math.round((i.now - slot.startedAt) / 1000),
    lastHeartbeat: iso(r?.lastHeartbeat ?? null),
    deadline: iso(r?.deadline ?? null),
    adopted: slot.adopted,
    title: r?.title ? i.redact(r.title).slice(0, 200) : null,
    lastNote: r?.story.lastNote ? i.redact(r.story.lastNote) : null,
    lastOperatorNote: note
      ? { id: note.id, author: note.author, postedAt: iso(note.postedAt), deliveredAt: iso(note.deliveredAt), text: i.redact(note.body).slice(0, 500) }
      : null,
  };
}
