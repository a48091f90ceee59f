// A seat's status snapshot: what a daemon writes to <stateDir>/status.json and serves at /status, and
// the one schema the fleet reads every snapshot with — its own seats' files and remote seats alike.
// A snapshot is another party's data: strings bounded, numbers finite, anything else a reason (the
// row says `unreadable` and why), never a crash, never a cell that is not plain text.
import { z } from "zod";
import type { Hours, Spend } from "../state/ledger.js";

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
    /** What an operator runs to end an auth pause (the agent's login), when the seat knows it. */
    fix?: string | null;
    /** Why the seat claims nothing more today (agent.budget.seatDaily spent), or null. */
    budget: string | null;
    /** How the agent is confined (agent.isolation): bwrap, or none (and why). */
    isolation?: { mode: string; why: string };
    /** How the agent's runs are capped (agent.limits): systemd, cgroup, rlimit (per process, weaker) or none (and why). */
    limits?: { mode: string; why: string };
    /** The agents' network (proxy · host · none) and the hosts their proxies refused since start, most recent first. */
    network?: { mode: string; blocked: { host: string; port: number; count: number; last: string; advice?: string; housekeeping?: boolean }[] };
  };
  /** What this seat spent (its ledger): since midnight UTC and in the last 5 hours. */
  usage: { today: Spend; window5h: Spend; last24h?: Hours };
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
    /** The task's title (untrusted: redacted, at most 200 characters). */
    title?: string | null;
    lastNote: string | null;
    /** The last operator note handed to the running agent. */
    lastOperatorNote: { id: string; author: string; postedAt: string | null; deliveredAt: string | null; text: string } | null;
  }[];
  outbox: { backlog: number; path: string; alertsQueued: number };
  orphans: { board: string; taskId: string }[];
  quarantined: { file: string; why: string; at: string }[];
  lastErrors: { at: string; what: string }[];
}

const text = (max: number) => z.string().max(max);
/** The longest why of a seat's isolation and limits a snapshot holds (the status writer cuts to it: status.ts). */
export const WHY_MAX = { isolation: 500, limits: 2000 } as const;
const count = z.number().int().min(0).max(Number.MAX_SAFE_INTEGER);
const amount = z.number().finite().min(0);
const isoText = text(40).nullable();
const SpendSchema = z.object({ tokens: amount, costUsd: amount, runs: count, unmeasured: count, noCost: count.optional() });
const hourly = z.array(count).length(24);
const HoursSchema = z.object({
  from: text(40),
  done: hourly,
  blocked: hourly,
  other: hourly,
  // finer, where the seat knows: done, each block cause, lost, dead letter, given back, other
  outcomes: z
    .record(text(40), hourly)
    .refine((o) => Object.keys(o).length <= 16, "at most 16 outcomes")
    .optional(),
  runTimes: z
    .object({
      edges: z.array(amount).max(12),
      counts: z.array(count).max(13),
      n: count,
      p50: amount.nullable(),
      p95: amount.nullable(),
    })
    .refine((r) => r.counts.length === r.edges.length + 1, "one count more than edges")
    .optional(),
  verdicts: z
    .array(z.object({ level: text(40), text: text(300) }))
    .max(5)
    .optional(),
});

/** What the fleet reads of a snapshot (other keys are ignored): bounded, finite, typed. */
export const FleetSnapshotSchema = z.object({
  at: text(40).optional(),
  pid: count.optional(),
  stopping: z.boolean().optional(),
  seat: z
    .object({
      name: text(200).optional(),
      assignee: text(200).optional(),
      agent: text(100).optional(),
      state: z.enum(["working", "idle", "paused", "auth", "budget", "stopping"]).optional(),
      paused: z.boolean().optional(),
      pausedUntil: isoText.optional(),
      reason: text(2000).nullable().optional(),
      fix: text(2000).nullable().optional(),
      budget: text(2000).nullable().optional(),
      isolation: z.object({ mode: text(20), why: text(WHY_MAX.isolation) }).optional(),
      limits: z.object({ mode: text(20), why: text(WHY_MAX.limits) }).optional(),
      network: z
        .object({
          mode: text(20),
          blocked: z
            .array(
              z.object({
                host: text(253),
                port: z.number().int().min(0).max(65535),
                count,
                last: text(40),
                advice: text(253).optional(),
                housekeeping: z.boolean().optional(),
              }),
            )
            .max(50),
        })
        .optional(),
    })
    .optional(),
  runs: z
    .array(
      z.object({
        board: text(200),
        task: text(200),
        phase: text(40),
        ageSeconds: z.number().finite(),
        lastHeartbeat: isoText,
        deadline: isoText,
        title: text(200).nullable().optional(),
        lastNote: text(2000).nullable().optional(),
      }),
    )
    .max(64)
    .optional(),
  usage: z.object({ today: SpendSchema, window5h: SpendSchema, last24h: HoursSchema.optional() }).optional(),
  outbox: z.object({ backlog: count }).optional(),
  lastErrors: z
    .array(z.object({ what: text(4000) }))
    .max(100)
    .optional(),
});

export type FleetSnapshot = z.output<typeof FleetSnapshotSchema>;

/** A snapshot's text → the fleet's view of it, or why it cannot be read (the first problem, with its key path). */
export function parseSnapshot(raw: string): { snapshot: FleetSnapshot } | { error: string } {
  let doc: unknown;
  try {
    doc = JSON.parse(raw);
  } catch {
    return { error: "not JSON" };
  }
  const r = FleetSnapshotSchema.safeParse(doc);
  if (r.success) return { snapshot: r.data };
  const i = r.error.issues[0];
  return { error: `not a status snapshot: ${i?.path.join(".") || "(root)"}: ${i?.message ?? "invalid"}` };
}
