// The status snapshot: served at /status, written to <stateDir>/status.json, printed by `status`.
import { renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";

export interface StatusSnapshot {
  at: string;
  seat: { assignee: string; paused: boolean; pausedUntil: string | null; reason: string | null };
  boards: string[];
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
  }[];
  outbox: { backlog: number; path: string };
  orphans: { board: string; taskId: string }[];
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
