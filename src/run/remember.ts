// The session journal after a run's close: forgotten when the task is done, else what the next run
// of the task needs to continue (the session, how it was cut, the last note, the changed files).
import type { CutReason, SessionJournal, SessionRecord } from "../continuity/journal.js";
import type { Lease } from "../lease/lease.js";
import type { CloseResult } from "../outbox/closer.js";
import type { Decision } from "../result/decision.js";
import type { Redactor } from "../result/redact.js";
import type { RunStory } from "./close-text.js";
import type { RunFacts } from "./decide.js";

export interface RunEnd {
  decision: Decision;
  close: CloseResult | "not_attempted";
  cut: CutReason | undefined;
  facts: RunFacts;
  story: RunStory;
}

/** Throws what the journal throws; the caller logs it (the close already happened). */
export function rememberRun(
  journal: SessionJournal,
  rec: SessionRecord,
  run: { lease: Lease; traceId: string; now: number; redactor: Redactor },
  end: RunEnd,
): void {
  const { decision, close, cut, facts, story } = end;
  if (decision.type === "complete" && (close === "applied" || close === "already_applied")) {
    journal.remove(run.lease.board, run.lease.taskId);
    return;
  }
  journal.put({
    ...rec,
    runs: rec.runs + 1,
    resumes: rec.resumes + (story.session?.resumed ? 1 : 0),
    lastRun: {
      runId: run.lease.runId,
      traceId: run.traceId,
      cut: cut ?? "failed",
      at: new Date(run.now).toISOString(),
      note: story.lastNote ? run.redactor.redact(story.lastNote).slice(0, 500) : null,
      changedFiles: (story.changedFiles ?? []).slice(0, 200),
      commentsSeen: facts.commentsSeen ?? 0,
      summary: null,
    },
  });
}
