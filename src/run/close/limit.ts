// A run cut by this seat's usage limit is continued without an operator (seat.onLimit): the close is
// not a block but either a hand-back to the lane (`handoff`: a comment saying why and until when, then
// `reclaim --reason` — another seat of the same assignee with headroom continues at once; this seat
// resumes its own session if it comes back to the task after the reset) or a park (`wait`: `schedule`
// with the reason; this seat unblocks and continues it after the reset, resuming its session). Neither
// is a block, so Hermes's unblock-loop breaker never sees it, and a manual reclaim is no failure.
import type { AgentEvent } from "../../agents/port.js";
import type { CloseIntent } from "../../outbox/outbox.js";
import { isoOrNull } from "../../time/clock.js";
import type { RunStory } from "../record.js";
import { storyUsage } from "./close-text.js";

export type LimitMode = "handoff" | "wait";
type Limit = Extract<AgentEvent, { type: "limit" }>;

const when = (l: Limit) => `${isoOrNull(l.resetsAt) ?? "an unknown time (the seat waits 15 minutes)"}${l.note ? ` (${l.note})` : ""}`;

function progress(s: RunStory): string {
  const lines = [`Last progress note: ${s.lastNote ? JSON.stringify(s.lastNote.slice(0, 400)) : "(none)"}`];
  if (s.changedFiles?.length) lines.push(`Files changed so far: ${s.changedFiles.slice(0, 30).join(", ")}`);
  if (s.workspaceNote) lines.push(s.workspaceNote);
  return lines.join("\n");
}

/** The close of a run cut by the seat's usage limit, in the seat's chosen mode. */
export function limitIntent(mode: LimitMode, o: { seat: string; lane: string; limit: Limit; story: RunStory }): CloseIntent {
  const { seat, lane, limit, story } = o;
  const session = story.session ? `session ${story.session.id}` : "its run's progress";
  const head = `usage limit of seat ${seat} (${limit.kind}) until ${when(limit)}`;
  if (mode === "wait")
    return {
      type: "schedule",
      reason: `${head}: seat ${seat} continues this task after the reset, resuming ${session} (seat.onLimit: wait; no action needed). ${progress(story).replace(/\n/g, " · ")}\n${storyUsage(story)}`,
    };
  return {
    type: "release",
    // The reason is the run's record on the card (the reclaimed event): it carries the run's usage line.
    reason: `${head}: handed back to the lane '${lane}' (seat.onLimit: handoff; no action needed)\n${storyUsage(story)}`,
    comment: [
      `hermes-kanban-bridge (seat ${seat}): this seat hit its usage limit (${limit.kind}) until ${when(limit)}.`,
      `The task goes back to the lane '${lane}' (seat.onLimit: handoff): another seat with headroom continues it now, with this run's progress below; this seat resumes ${session} if it picks the task up after the reset. No action needed.`,
      progress(story),
      storyUsage(story),
    ].join("\n"),
  };
}
