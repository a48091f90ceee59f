// The session journal: per board + task, what the next run of this seat needs to continue a cut run
// — the agent's session handle, why and when the last run ended, what it saw and changed. Durable
// (state dir, 0600, atomic writes), parsed with zod on read (a bad file is quarantined, never trusted).
// Kept when the task completes (cut `done`: the board may reopen it — Hermes 0.21.6 `reopen` — and the
// next run resumes the session), pruned once such a record is old (`prune`).
import { mkdirSync, readdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { z } from "zod";
import { readSmallFile } from "../state/read.js";
import { quarantine } from "../state/quarantine.js";
import { writeStateFile } from "../state/atomic.js";

export const CUT_REASONS = [
  "deadline",
  "usage_limit",
  "auth",
  "shutdown",
  "lease_lost",
  "crash",
  "stall",
  "unresolved",
  "blocked",
  "failed",
  "gate",
  "budget",
  "cap",
  "review",
  "done",
] as const;
export type CutReason = (typeof CUT_REASONS)[number];

const LastRun = z.object({
  runId: z.number().int().nullable(),
  traceId: z.string(),
  cut: z.enum(CUT_REASONS),
  at: z.string(),
  note: z.string().nullable(),
  changedFiles: z.array(z.string()).default([]),
  /** Comments on the task when the run ended: later ones are "new" for the continuation prompt. */
  commentsSeen: z.number().int().min(0),
  summary: z.string().nullable().default(null),
});

const RecordSchema = z.object({
  v: z.literal(1),
  board: z.string(),
  task: z.string(),
  agent: z.string(),
  session: z.string().nullable(),
  /** The local workspace the session ran in (Claude finds sessions by cwd). */
  workspace: z.string().nullable(),
  runs: z.number().int().min(0),
  resumes: z.number().int().min(0),
  failedSessions: z.array(z.string()).default([]),
  lastRun: LastRun.nullable(),
  /** Mid-run: comments the running agent has seen (its prompt, notes handed over) — a crash keeps it. */
  commentsSeen: z.number().int().min(0).optional(),
});

export type SessionRecord = z.output<typeof RecordSchema>;
export type LastRunInfo = z.output<typeof LastRun>;

const safe = (s: string) => s.replace(/[^A-Za-z0-9_-]/g, "_");

export class SessionJournal {
  constructor(readonly dir: string) {}

  private file(board: string, task: string): string {
    return join(this.dir, `${safe(board)}__${safe(task)}.json`);
  }

  /** The task's durable directory (saved local-LLM history), created 0700. */
  taskDir(board: string, task: string): string {
    const d = join(this.dir, `${safe(board)}__${safe(task)}`);
    mkdirSync(d, { recursive: true, mode: 0o700 });
    return d;
  }

  async get(board: string, task: string): Promise<SessionRecord | null> {
    const f = this.file(board, task);
    const r = await readSmallFile(f, 256 * 1024);
    if ("error" in r) {
      quarantine(f, r.error);
      return null;
    }
    if (r.text === null) return null;
    try {
      const parsed = RecordSchema.safeParse(JSON.parse(r.text));
      if (parsed.success && parsed.data.board === board && parsed.data.task === task) return parsed.data;
    } catch {
      // falls through to quarantine
    }
    quarantine(f, "not a valid session record");
    return null;
  }

  put(rec: SessionRecord): void {
    mkdirSync(this.dir, { recursive: true, mode: 0o700 });
    const f = this.file(rec.board, rec.task);
    writeStateFile(f, `${JSON.stringify(rec)}\n`);
  }

  /**
   * Drops the records of tasks completed more than `maxAgeMs` ago (a reopen after that starts fresh, with
   * the earlier run's summary on the board): the journal does not grow with every task a seat finished.
   */
  async prune(now: number, maxAgeMs: number): Promise<number> {
    let dropped = 0;
    let names: string[];
    try {
      names = readdirSync(this.dir).filter((n) => n.endsWith(".json"));
    } catch {
      return 0;
    }
    for (const n of names) {
      const [board, task] = n.slice(0, -".json".length).split("__");
      if (!board || !task) continue;
      const rec = await this.get(board, task);
      const at = rec?.lastRun?.cut === "done" ? Date.parse(rec.lastRun.at) : Number.NaN;
      if (rec && now - at > maxAgeMs) {
        this.remove(rec.board, rec.task);
        dropped += 1;
      }
    }
    return dropped;
  }

  /** The task's record is of no more use (pruned): its file and its directory. */
  remove(board: string, task: string): void {
    rmSync(this.file(board, task), { force: true });
    rmSync(join(this.dir, `${safe(board)}__${safe(task)}`), { recursive: true, force: true });
  }

  static fresh(board: string, task: string, agent: string): SessionRecord {
    return { v: 1, board, task, agent, session: null, workspace: null, runs: 0, resumes: 0, failedSessions: [], lastRun: null };
  }
}
