// Continuity decisions (pure): whether the next run of a task resumes the agent's session, starts
// fresh, or has used up its resume budget; why the last run was cut, in words; and the continuation
// prompt's variables (what arrived on the board since the cut).
import type { TaskDetail } from "../board/port.js";
import type { CutReason, LastRunInfo, SessionRecord } from "./journal.js";

export type RunPlan =
  | { mode: "fresh"; note: string | null }
  | { mode: "resume"; session: string; last: LastRunInfo | null }
  | { mode: "exhausted"; resumes: number; session: string };

export interface PlanOptions {
  agent: string;
  resumable: boolean;
  enabled: boolean;
  budget: number;
  /** The local workspace of this run (Claude finds its sessions by cwd). */
  workspace: string;
}

export function planRun(rec: SessionRecord | null, o: PlanOptions): RunPlan {
  if (!rec?.session) return { mode: "fresh", note: null };
  if (!o.enabled) return { mode: "fresh", note: "agent.resume is off" };
  if (!o.resumable || rec.agent !== o.agent) return { mode: "fresh", note: `the last session was of agent ${rec.agent}, this seat runs ${o.agent}` };
  if (rec.failedSessions.includes(rec.session)) return { mode: "fresh", note: `session ${rec.session} could not be resumed before` };
  if (rec.workspace !== null && rec.workspace !== o.workspace) return { mode: "fresh", note: `the workspace moved (${rec.workspace} → ${o.workspace})` };
  if (rec.resumes >= o.budget) return { mode: "exhausted", resumes: rec.resumes, session: rec.session };
  return { mode: "resume", session: rec.session, last: rec.lastRun };
}

const CUT_TEXT: Record<CutReason, string> = {
  deadline: "it reached its deadline (the claim's TTL minus the safety margin)",
  usage_limit: "the seat hit a usage limit",
  auth: "the agent lost its login",
  shutdown: "the bridge was shutting down",
  lease_lost: "the bridge lost the lease on the task",
  crash: "the agent or the bridge stopped unexpectedly",
  stall: "the agent went silent and was stopped as stalled",
  unresolved: "the bridge could not confirm the lease with the board",
  blocked: "you asked to block the task",
  failed: "the run failed",
  gate: "the bridge's verification of your completion failed",
  budget: "the task (or the seat's day) crossed its budget and an operator raised it",
  cap: "it met one of its caps (memory, processes or /tmp: agent.limits) and was stopped; use less this time (fewer parallel jobs, smaller temporary files)",
  review: "you handed the task over for review, and the reviewer sent it back",
  done: "you completed the task, and it was reopened on the board since (the reason leads this prompt)",
};

export function cutText(reason: CutReason): string {
  return CUT_TEXT[reason];
}

/** Comments that arrived after the last run ended (not the bridge's own), and the unblock reason. */
export function sinceLastRun(detail: TaskDetail, last: LastRunInfo | null, bridgeAuthor: string): { comments: string[]; unblock: string | null } {
  const fresh = detail.comments.slice(last?.commentsSeen ?? 0).filter((c) => c.author !== bridgeAuthor || c.body.startsWith("UNBLOCK:"));
  const unblock = [...fresh].reverse().find((c) => c.body.startsWith("UNBLOCK:"));
  return { comments: fresh.map((c) => `- ${c.author}: ${c.body}`), unblock: unblock ? unblock.body.slice("UNBLOCK:".length).trim() : null };
}

export function continuationVars(detail: TaskDetail, last: LastRunInfo | null, bridgeAuthor: string): Record<string, string> {
  const since = sinceLastRun(detail, last, bridgeAuthor);
  const lines = [...since.comments];
  if (since.unblock) lines.push(`Unblocked with the reason: ${since.unblock}`);
  return {
    cut_reason: last ? cutText(last.cut) : "the run ended before the task was finished",
    previous_run_id: String(last?.runId ?? "?"),
    last_note: last?.note ?? "(none)",
    changed_files: last && last.changedFiles.length > 0 ? last.changedFiles.slice(0, 50).join(", ") : "(none recorded)",
    new_comments: lines.join("\n") || "(nothing new)",
  };
}
