// Which watch lines about a task this seat is running matter to that run: any change of the task
// made by someone else (reclaim, block, complete, archive, reassign, a new comment by another author)
// → an ownership check and a read of new comments, at once. The run's own traffic (its heartbeats,
// its comments, the claim it took) costs nothing.
import type { WatchLine } from "../board/port.js";

/** Lines a running task's own work produces on the board. */
const OWN_KINDS = new Set(["heartbeat", "claimed", "attached"]);

/** True when the line should reach the run of its task (an ownership check, new notes). */
export function mattersToRun(line: WatchLine, ownAuthor: string): boolean {
  const e = line.event;
  if (!e || OWN_KINDS.has(e.kind)) return false;
  if (e.kind === "commented") return e.author !== ownAuthor;
  return true;
}
