// Supervised `watch`: the wake-up source. Its lines go to the scheduler; when the child dies it is
// restarted with backoff and the caller reconciles with `list --json` (watch never replays history).
import type { Board, WatchLine } from "../board/port.js";
import { describeError } from "../errors/index.js";
import { type Clock, backoffDelay, sleepUnlessAborted } from "../time/clock.js";

export interface WatchSupervisorOptions {
  board: Pick<Board, "watch" | "slug">;
  assignee: string;
  signal: AbortSignal;
  clock: Clock;
  maxBackoffMs: number;
  onLine: (line: WatchLine) => void;
  /** Called when a (re)started watch is up (its first line): reconcile, since watch never replays history. */
  onRestart: () => void;
  onError?: (err: string, restartInMs: number) => void;
}

export async function superviseWatch(o: WatchSupervisorOptions): Promise<void> {
  let failures = 0;
  while (!o.signal.aborted) {
    const startedAt = o.clock.now();
    try {
      let first = true;
      for await (const line of o.board.watch({ assignee: o.assignee, signal: o.signal })) {
        if (first) {
          first = false;
          o.onRestart();
        }
        o.onLine(line);
      }
    } catch (err) {
      if (o.signal.aborted) return;
      // A watch that ran for a while was healthy: start the backoff over.
      if (o.clock.now() - startedAt > 60_000) failures = 0;
      failures += 1;
      const delay = backoffDelay(failures, { baseMs: 500, maxMs: o.maxBackoffMs });
      o.onError?.(describeError(err), delay);
      if (!(await sleepUnlessAborted(delay, o.signal))) return;
      continue;
    }
    if (o.signal.aborted) return;
    failures += 1;
    if (!(await sleepUnlessAborted(backoffDelay(failures, { baseMs: 500, maxMs: o.maxBackoffMs }), o.signal))) return;
  }
}
