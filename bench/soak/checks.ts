// The soak's end-of-run audit, read from the emulator's own database and the bridges' outboxes.
import Database from "better-sqlite3";
import { hasAllFields } from "../../src/result/template.js";
import type { OutboxEntry } from "../../src/outbox/outbox.js";

export interface Audit {
  tasks: number;
  runningLeft: number;
  neverClosed: string[];
  closedTwice: string[];
  closedWithoutLease: string[];
  badBlocks: string[];
  secretsFound: string[];
  claims: number;
  claimsAccounted: number;
  statuses: Record<string, number>;
  /** How many tasks took 1, 2, … runs. */
  runsPerTask: Record<string, number>;
  /** Ended runs that continued a cut run's session, and those that started fresh. */
  resumedRuns: number;
  freshRuns: number;
}

interface Ev {
  task_id: string;
  run_id: number | null;
  kind: string;
  payload: string | null;
}

/**
 * How the harness opens the board's database to look at it: not read-only — a daemon or CLI the soak
 * killed mid-write leaves a hot journal, which the next connection must roll back, and a read-only one
 * cannot ("attempt to write a readonly database"). The harness writes nothing itself.
 */
export const HARNESS_DB = { fileMustExist: true } as const;

export function audit(dbPath: string, secrets: string[], outboxes: OutboxEntry[]): Audit {
  const db = new Database(dbPath, HARNESS_DB);
  try {
    const tasks = db.prepare("SELECT id, status FROM tasks").all() as { id: string; status: string }[];
    const events = db.prepare("SELECT task_id, run_id, kind, payload FROM task_events ORDER BY id").all() as Ev[];
    const runs = db.prepare("SELECT id, task_id, status, outcome, metadata FROM task_runs").all() as {
      id: number;
      task_id: string;
      status: string;
      outcome: string | null;
      metadata: string | null;
    }[];
    const statuses: Record<string, number> = {};
    for (const t of tasks) statuses[t.status] = (statuses[t.status] ?? 0) + 1;
    const terminalKinds = new Set(["completed", "blocked", "block_loop_detected", "dependency_wait"]);
    const claimed = new Set(events.filter((e) => e.kind === "claimed" && e.run_id !== null).map((e) => e.run_id));
    const terminalByRun = new Map<number, number>();
    const closedWithoutLease: string[] = [];
    for (const e of events) {
      if (!terminalKinds.has(e.kind)) continue;
      if (e.run_id === null || !claimed.has(e.run_id)) closedWithoutLease.push(`${e.task_id}:${e.kind}:run=${e.run_id}`);
      else terminalByRun.set(e.run_id, (terminalByRun.get(e.run_id) ?? 0) + 1);
    }
    // A synthesized run (status 'completed') is what an unfenced complete leaves behind.
    for (const r of runs) if (r.status === "completed") closedWithoutLease.push(`${r.task_id}:synthesized-run=${r.id}`);
    const closedTwice = [...terminalByRun].filter(([, n]) => n > 1).map(([run]) => `run ${run}`);
    const badBlocks = events
      .filter((e) => e.kind === "blocked" && !hasAllFields(String((JSON.parse(e.payload ?? "{}") as { reason?: string }).reason ?? "")))
      .map((e) => `${e.task_id}:run=${e.run_id}`);
    const dump = JSON.stringify([
      db.prepare("SELECT * FROM task_comments").all(),
      db.prepare("SELECT * FROM task_runs").all(),
      events,
      db.prepare("SELECT id, title, body, result FROM tasks").all(),
    ]);
    const secretsFound = secrets.filter((s) => dump.includes(s));
    const reclaimedRuns = new Set(events.filter((e) => e.kind === "reclaimed").map((e) => e.run_id));
    const outboxRuns = new Set(outboxes.map((o) => o.runId));
    let accounted = 0;
    for (const run of claimed) if ((run !== null && terminalByRun.has(run)) || reclaimedRuns.has(run) || outboxRuns.has(run)) accounted += 1;
    const perTask = new Map<string, number>();
    for (const r of runs) perTask.set(r.task_id, (perTask.get(r.task_id) ?? 0) + 1);
    const runsPerTask: Record<string, number> = {};
    for (const n of perTask.values()) runsPerTask[n] = (runsPerTask[n] ?? 0) + 1;
    // A resumed run says so: metadata.bridge.session.resumed on a complete, "(resumed)" in a block's session line.
    const resumedCompletes = runs.filter(
      (r) => r.metadata && (JSON.parse(r.metadata) as { bridge?: { session?: { resumed?: boolean } } }).bridge?.session?.resumed,
    ).length;
    const resumedBlocks = events.filter(
      (e) => e.kind === "blocked" && /^session: \S+ \(resumed\)/m.test(String((JSON.parse(e.payload ?? "{}") as { reason?: string }).reason ?? "")),
    ).length;
    const ended = runs.filter((r) => r.outcome === "completed" || r.outcome === "blocked").length;
    return {
      runsPerTask,
      resumedRuns: resumedCompletes + resumedBlocks,
      freshRuns: ended - resumedCompletes - resumedBlocks,
      tasks: tasks.length,
      runningLeft: tasks.filter((t) => t.status === "running").length,
      neverClosed: tasks.filter((t) => !["done", "blocked", "triage"].includes(t.status)).map((t) => `${t.id}:${t.status}`),
      closedTwice,
      closedWithoutLease,
      badBlocks,
      secretsFound,
      claims: claimed.size,
      claimsAccounted: accounted,
      statuses,
    };
  } finally {
    db.close();
  }
}

/** One task's history, in order, for a human to audit end to end. */
export function history(dbPath: string, taskId: string): string[] {
  const db = new Database(dbPath, HARNESS_DB);
  try {
    const rows = db.prepare("SELECT run_id, kind, payload, created_at FROM task_events WHERE task_id = ? ORDER BY id").all(taskId) as {
      run_id: number | null;
      kind: string;
      payload: string | null;
      created_at: number;
    }[];
    return rows.map((r) => `${new Date(r.created_at * 1000).toISOString().slice(11, 19)} run=${r.run_id ?? "-"} ${r.kind} ${(r.payload ?? "").slice(0, 160)}`);
  } finally {
    db.close();
  }
}

export function failures(a: Audit): string[] {
  const f: string[] = [];
  if (a.runningLeft) f.push(`tasks left running: ${a.runningLeft}`);
  if (a.neverClosed.length) f.push(`tasks never closed: ${a.neverClosed.join(", ")}`);
  if (a.closedTwice.length) f.push(`runs closed twice: ${a.closedTwice.join(", ")}`);
  if (a.closedWithoutLease.length) f.push(`closed without the lease: ${a.closedWithoutLease.join(", ")}`);
  if (a.badBlocks.length) f.push(`blocks missing template fields: ${a.badBlocks.join(", ")}`);
  if (a.secretsFound.length) f.push(`planted secrets on the board: ${a.secretsFound.length}`);
  if (a.claimsAccounted !== a.claims) f.push(`claims not accounted for: ${a.claims - a.claimsAccounted} of ${a.claims}`);
  return f;
}
