// The session journal after a run's close (the close already happened: a failure is only reported):
// how the run ended (completed, or the cut the next run resumes from), its last note and files.
import type { CutReason } from "../../continuity/journal.js";
import type { RunRecord } from "../record.js";

export function rememberRun(
  record: RunRecord,
  o: { completed: boolean; cut: CutReason; traceId: string; at: number; redact: (t: string) => string; onError: (err: unknown) => void },
): void {
  if (!record.session) return;
  try {
    record.session.ended({
      completed: o.completed,
      runId: record.runId,
      traceId: o.traceId,
      cut: o.cut,
      at: new Date(o.at).toISOString(),
      note: record.story.lastNote ? o.redact(record.story.lastNote) : null,
      changedFiles: record.story.changedFiles ?? [],
      commentsSeen: record.facts.commentsSeen ?? 0,
      resumed: record.story.session?.resumed === true,
    });
  } catch (err) {
    o.onError(err);
  }
}
