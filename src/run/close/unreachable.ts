// A run whose agent could not reach its API (work/decide.ts: the watch of work/reach.ts stopped it, or it gave up
// by itself) is no failure of the task: it goes back to the lane at once — a comment saying why, then
// `reclaim --reason` — for a seat that can reach its API, and this seat pauses until its own check gets
// through (daemon/pauses.ts). Nobody has to unblock anything; the block's template is the comment's text.
import type { CloseIntent } from "../../outbox/outbox.js";
import type { Decision } from "../../result/decision.js";
import { renderBlock } from "../../result/template.js";
import type { RunStory } from "../record.js";
import { storyUsage } from "./close-text.js";

export function unreachableIntent(d: Extract<Decision, { type: "block" }>, o: { seat: string; lane: string; story: RunStory }): CloseIntent {
  const { seat, lane, story } = o;
  const progress = `Last progress note: ${story.lastNote ? JSON.stringify(story.lastNote.slice(0, 400)) : "(none)"}`;
  return {
    type: "release",
    reason: `environment: the agent of seat ${seat} could not reach its API: handed back to the lane '${lane}' (no action needed)\n${storyUsage(story)}`,
    comment: [
      `hermes-kanban-bridge (seat ${seat}): the agent could not reach its API, so this run was stopped and the task goes back to the lane '${lane}' for a seat that can; seat ${seat} takes no work until its own check gets through. No action needed on the task.`,
      renderBlock(d.template),
      progress,
      storyUsage(story),
    ].join("\n"),
  };
}
