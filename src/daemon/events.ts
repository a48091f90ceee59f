// The seat's event map: what one seat tells whoever listens (its own wiring — the scheduler's next scan,
// the health tally, the pauses —, the HTTP views, the tests), told guardedly (log/emit.ts: every listener
// gets each event; one that throws is logged, and keeps it from no other listener nor from the code that
// told it — a run's close is reported exactly once, whatever a listener does). Discovery's part is its own
// (discovery/events.ts); a run's and a lease's events reach the seat's map through the launcher.
import type { Note } from "../agents/port.js";
import type { DiscoveryEvents } from "../discovery/events.js";
import { describeError } from "../errors/index.js";
import { Events } from "../log/emit.js";
import type { Logger } from "../log/logger.js";
import type { RunPhase, RunReport } from "../run/task-run.js";
import type { RetryCause } from "../board/card.js";

/** Which run an event is about. */
export interface RunIds {
  board: string;
  taskId: string;
  runId: number | null;
  traceId: string;
}

export interface SeatEvents extends DiscoveryEvents {
  claimed: [RunIds & { ttlSeconds: number }];
  /** A run's heartbeat landed and the run still owns its task. */
  heartbeat: [RunIds];
  "run:phase": [RunIds & { phase: RunPhase }];
  /** A run's agent is up (or was adopted after a restart). */
  "run:started": [RunIds & { pid: number; adopted: boolean }];
  /** A run's agent said how far it is (its next heartbeat carries the note). */
  "run:progress": [RunIds & { note: string }];
  /** A run's claim was renewed: its deadline moved later. */
  "run:renewed": [RunIds & { deadline: number }];
  /** Operator notes reached a run's agent (each once), at `at`. */
  "run:notes": [RunIds & { notes: readonly Note[]; at: number }];
  /** New operator notes were offered to a run's agent (a CLI's held-open input has them), not yet taken. */
  "run:notes-offered": [RunIds & { count: number }];
  /** A run's proxy refused a host (the first time the run asked for it). */
  "run:egress-refused": [RunIds & { host: string; port: number; why: string; advice?: string | undefined; housekeeping?: boolean | undefined }];
  /** A run's agent ended the environment's way and is started again after a backoff (agent.retries). */
  "run:retry": [RunIds & { attempt: number; cause: RetryCause; detail: string }];
  /** A run ended, with how (exactly once per run). */
  "run:closed": [RunReport & { board: string }];
  /** A slot of the seat is free again (a run ended, or a claim came to nothing). */
  "slot:freed": [{ board: string; taskId: string }];
  "seat:paused": [{ until: string | null; reason: string | null }];
  "seat:resumed": [];
  /** A board's database is corrupt: nothing is claimed there, its closes wait in the outbox (daemon/board-health.ts). */
  "board:paused": [{ board: string; reason: string; repair: string }];
  /** The corrupt board answers again: `replayed` closes held for it were applied, it is scanned. */
  "board:resumed": [{ board: string; replayed: number }];
}

/** How the seat's events are told (the Daemon, or a test's map). */
export interface SeatTell {
  tell<K extends keyof SeatEvents & string>(event: K, ...args: SeatEvents[K]): void;
}

/** Every event of the seat's map, by name (a monitor listens to them all; the type checks the list is whole). */
export const SEAT_EVENTS = [
  "claimed",
  "heartbeat",
  "run:phase",
  "run:started",
  "run:progress",
  "run:renewed",
  "run:notes",
  "run:notes-offered",
  "run:egress-refused",
  "run:retry",
  "run:closed",
  "slot:freed",
  "seat:paused",
  "seat:resumed",
  "board:paused",
  "board:resumed",
  "scan",
  "watch:up",
  "watch:down",
  "board:event",
] as const satisfies readonly (keyof SeatEvents)[];
type Missing = Exclude<keyof SeatEvents, (typeof SEAT_EVENTS)[number]>;
/** A compile error names an event of the map the list leaves out. */
export const seatEventsWhole: Missing extends never ? true : Missing = true;

/** The seat's event map: a listener's throw is logged, never passed on. */
export class SeatEventsOut extends Events<SeatEvents> {
  constructor(log: Logger) {
    super((event, err) => log.error({ event, err: describeError(err) }, "a seat event listener failed"));
  }
}

/**
 * What a run's close did, as the log names it: a usage-limit cut handed back to the lane (or parked for
 * this seat) is no block, though the run decided to stop; a lost lease applied nothing.
 */
export function outcomeOf(r: Pick<RunReport, "decision" | "close" | "handedOff" | "stopped" | "onBoard">): { decision: string; words: string } {
  if (r.onBoard) return { decision: "stopped_on_board", words: `stopped from the board (${r.onBoard}): nothing applied, as asked` };
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
