// What the daemon knows about its own health and shows in `status`: when each board last answered,
// the last errors (a ring of 20), quarantined state files, tasks running for this seat that nobody
// here owns (orphans at start).
import type { Logger } from "../log/logger.js";
import { EgressSeen } from "./isolation.js";
import { takeQuarantined } from "../state/quarantine.js";
import type { Clock } from "../time/clock.js";

export class DaemonHealth {
  private readonly lastOk = new Map<string, number>();
  readonly errors: { at: string; what: string }[] = [];
  readonly quarantined: { file: string; why: string; at: string }[] = [];
  orphans: { board: string; taskId: string }[] = [];
  /** The hosts the seat's runs were refused since it started. */
  readonly egress = new EgressSeen();

  constructor(
    private readonly clock: Clock,
    private readonly log: Logger,
  ) {}

  boardAnswered(board: string): void {
    this.lastOk.set(board, this.clock.now());
  }

  /** Every board answered a call within `windowMs`. */
  boardsFresh(boards: readonly string[], windowMs: number): boolean {
    return boards.every((b) => this.clock.now() - (this.lastOk.get(b) ?? Number.NEGATIVE_INFINITY) <= windowMs);
  }

  noteError(what: string): void {
    this.errors.push({ at: new Date(this.clock.now()).toISOString(), what });
    if (this.errors.length > 20) this.errors.shift();
  }

  /** Moves the state files quarantined since the last call into the status and the log. */
  reportQuarantined(): void {
    for (const q of takeQuarantined()) {
      this.quarantined.push({ file: q.file, why: q.why, at: q.at });
      this.noteError(`bad state file ${q.file}: ${q.why}${q.movedTo ? ` (moved to ${q.movedTo})` : ""}`);
      this.log.error({ file: q.file, moved_to: q.movedTo, why: q.why }, "state file not trusted: quarantined");
    }
  }
}
