// The daemon's typed events and how they are told: every listener gets each event, and one that throws
// is logged without keeping the event from the others or reaching the code that emitted it (a run's
// close is reported exactly once, whatever a listener does).
import type { EventEmitter } from "node:events";
import { describeError } from "../errors/index.js";
import type { Logger } from "../log/logger.js";
import type { RunReport } from "../run/task-run.js";

export interface DaemonEvents {
  claimed: [{ board: string; taskId: string; runId: number | null; traceId: string; ttlSeconds: number }];
  heartbeat: [{ taskId: string; runId: number | null }];
  "run:closed": [RunReport & { board: string }];
  "seat:paused": [{ until: string | null; reason: string | null }];
  "seat:resumed": [];
}

export function tellGuarded<K extends keyof DaemonEvents>(emitter: EventEmitter<DaemonEvents>, log: Logger, event: K, ...args: DaemonEvents[K]): void {
  for (const l of emitter.rawListeners(event as never) as ((...a: unknown[]) => void)[])
    try {
      l.apply(emitter, args);
    } catch (err) {
      log.error({ event, err: describeError(err) }, "a daemon event listener failed");
    }
}

/**
 * What a run's close did, as the log names it: a usage-limit cut handed back to the lane (or parked for
 * this seat) is no block, though the run decided to stop; a lost lease applied nothing.
 */
export function outcomeOf(r: Pick<RunReport, "decision" | "close" | "handedOff" | "stopped">): { decision: string; words: string } {
  if (r.stopped === "kept") return { decision: "kept", words: "claim kept: this seat continues the run when it is back" };
  if (r.stopped === "handed_back") return { decision: "handed_back", words: "handed back to the lane (the bridge stopped)" };
  if (r.handedOff === "handoff") return { decision: "handed_back", words: "handed back to the lane (usage limit)" };
  if (r.handedOff === "wait") return { decision: "parked", words: "parked for this seat until its usage limit resets" };
  if (r.decision === "lost" || r.close === "lease_lost") return { decision: "lease_lost", words: "lease lost (nothing applied)" };
  return r.decision === "complete" ? { decision: "complete", words: "completed" } : { decision: "block", words: "blocked" };
}

/** The log line of a finished run. */
export function logFinished(log: Logger, board: string, r: RunReport): void {
  const level = r.close === "applied" || r.close === "already_applied" || r.close === "kept" ? "info" : "warn";
  const o = outcomeOf(r);
  log[level](
    {
      board,
      task_id: r.taskId,
      run_id: r.runId,
      trace_id: r.traceId,
      decision: o.decision,
      outcome: o.words,
      close: r.close,
      cause: r.cause,
      cut: r.cut,
      resumed: r.resumed,
      duration_ms: r.durationMs,
    },
    "run finished",
  );
}
