// A board whose database is corrupt (Hermes 0.21.3+ `KanbanDbCorruptError`: every call fails until an
// operator runs `hermes kanban --board <slug> repair`): the seat pauses that board at once — it claims
// nothing there, its scans probe the board at the scan back-off's pace (up to a minute) —, alerts once
// naming the repair, keeps the board's closes pending in the outbox (outbox/closer.ts `held`), and resumes
// when any call on the board succeeds again: the held closes are applied, the board is scanned. Every CLI
// call of the seat's boards is reported here (daemon/build.ts `onCall`): one home for the pause.
import { BoardCorrupt } from "../errors/board.js";
import type { BoardError } from "../errors/board.js";
import type { Logger } from "../log/logger.js";
import type { AlertPayload } from "../outbox/webhook.js";
import type { Clock } from "../time/clock.js";
import type { Board } from "../board/port.js";
import type { Closer } from "../outbox/closer.js";
import type { Outbox, OutboxEntry } from "../outbox/outbox.js";
import { replayOutbox } from "../outbox/replay.js";
import type { SeatTell } from "./events.js";

export interface CorruptBoard {
  board: string;
  since: string;
  reason: string;
  /** The command that repairs it: `hermes kanban --board <slug> repair`. */
  repair: string;
  backup: string | null;
}

type Listener = (board: string, state: "corrupt" | "answering", info: CorruptBoard) => void;

export class BoardConditions {
  private readonly corrupt = new Map<string, CorruptBoard>();
  private readonly listeners: Listener[] = [];
  /** Where the one alert of a corrupt board goes (the seat's alert sender, set once it exists). */
  alerts: { enqueue(p: AlertPayload): void } | undefined;

  constructor(
    private readonly clock: Clock,
    private readonly log: Logger | undefined,
  ) {}

  /** One CLI call's outcome on `board`: a corruption pauses it, any answer resumes it. */
  observe(board: string, call: { ok: boolean; error: BoardError | null }): void {
    if (call.error instanceof BoardCorrupt) this.paused(board, call.error);
    else if (call.ok) this.answering(board);
  }

  isCorrupt(board: string): boolean {
    return this.corrupt.has(board);
  }

  /** The boards paused now (status, doctor). */
  list(): CorruptBoard[] {
    return [...this.corrupt.values()];
  }

  on(listener: Listener): void {
    this.listeners.push(listener);
  }

  private paused(board: string, err: BoardCorrupt): void {
    if (this.corrupt.has(board)) return;
    const at = new Date(this.clock.now()).toISOString();
    const info: CorruptBoard = { board, since: at, reason: err.reason, repair: err.repair, backup: err.backupPath };
    this.corrupt.set(board, info);
    this.log?.error(
      { board, reason: err.reason, backup: err.backupPath, repair: err.repair },
      "the board's database is corrupt: board paused until it answers again",
    );
    this.alerts?.enqueue({
      event: "board_corrupt",
      board,
      task_id: "",
      run_id: null,
      trace_id: "",
      intended_close: null,
      error: `board ${board}: its database refuses to open (${err.reason}); the seat claims nothing there and keeps its closes until it answers again. Repair it: \`${err.repair}\``,
      at,
    });
    this.tell(board, "corrupt", info);
  }

  private answering(board: string): void {
    const info = this.corrupt.get(board);
    if (!info) return;
    this.corrupt.delete(board);
    this.log?.info({ board, since: info.since }, "the board answers again: board resumed");
    this.tell(board, "answering", info);
  }

  /** Runs inside a board call's report: a listener's throw is logged, never the call's failure. */
  private tell(board: string, state: "corrupt" | "answering", info: CorruptBoard): void {
    for (const l of this.listeners)
      try {
        l(board, state, info);
      } catch (err) {
        this.log?.error({ board, err: String(err) }, "a board-condition listener failed");
      }
  }
}

/** What the seat does as a board's condition changes: tells it, and on an answer applies the held closes and scans. */
export function wireConditions(
  conditions: BoardConditions,
  d: {
    seat: SeatTell;
    boards: readonly Board[];
    scheduler: { wake(board: Board, delayMs?: number): void };
    outbox: Outbox;
    closer: Closer;
    health: { noteError(what: string): void };
    log: Logger;
  },
): void {
  // A close held while the board was corrupt: pending, with the error that held it (outbox/closer.ts).
  const held = (slug: string) => (e: OutboxEntry) => e.board === slug && e.state === "pending" && e.error !== null;
  conditions.on((board, state, info) => {
    if (state === "corrupt") {
      d.health.noteError(`board ${board}: database corrupt (${info.reason}); run \`${info.repair}\``);
      d.seat.tell("board:paused", { board, reason: info.reason, repair: info.repair });
      return;
    }
    void replayOutbox(d.outbox, d.closer, held(board))
      .then(
        (items) => items.length,
        (err: unknown) => {
          d.log.error({ board, err: String(err) }, "the closes held while the board was corrupt could not be applied (`hermes-bridge outbox replay`)");
          return 0;
        },
      )
      .then((replayed) => {
        d.seat.tell("board:resumed", { board, replayed });
        for (const b of d.boards) if (b.slug === board) d.scheduler.wake(b, 0);
      });
  });
}
