// What finding work tells the seat (its part of the seat's event map, daemon/events.ts): each scan and how
// it went, the watch up and down, and the board's events about a task in flight here, by named kind.
import type { BoardEventKind } from "../board/index.js";

export interface DiscoveryEvents {
  scan: [{ board: string; ok: true; claimed: number } | { board: string; ok: false; error: string; retryInMs: number }];
  /** A (re)started watch gave its first line: the board was read again (watch never replays history). */
  "watch:up": [{ board: string }];
  "watch:down": [{ board: string; error: string; restartInMs: number }];
  /** A watch line about a task in flight here, made by someone else: its run checks its lease and reads new notes. */
  "board:event": [{ board: string; taskId: string; kind: BoardEventKind }];
}

/** How discovery tells its events (the seat's event map, or a test's). */
export interface DiscoveryTell {
  tell<K extends keyof DiscoveryEvents>(event: K, ...args: DiscoveryEvents[K]): void;
}
