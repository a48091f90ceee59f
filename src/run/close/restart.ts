// A run the bridge's own stop cut (SIGTERM/SIGINT, after the grace period) is no block (shutdown.inFlight):
// `continue` — the agent was stopped politely (its session saved), the claim is kept with a note on the
// card, and this seat continues the task in the same run when it is back (daemon/continue.ts); if it is
// not back before the claim ends, Hermes hands the task back to the lane. `handback` — the task goes
// back to the lane now, with a comment saying how far the run got (the next run resumes the session
// where it is this seat's). Neither asks a person for anything.
import type { CloseIntent } from "../../outbox/outbox.js";
import { isoOrNull } from "../../time/clock.js";
import type { RunStory } from "../record.js";
import { storyUsage } from "./close-text.js";

export type ShutdownMode = "continue" | "handback";

/** What the run leaves on the card when its claim is kept for the restart. */
export interface KeptClaim {
  type: "keep";
  note: string;
}

function progress(s: RunStory): string {
  const parts = [`last progress note: ${s.lastNote ? JSON.stringify(s.lastNote.slice(0, 300)) : "(none)"}`];
  if (s.changedFiles?.length) parts.push(`files changed so far: ${s.changedFiles.slice(0, 20).join(", ")}`);
  return parts.join("; ");
}

/** The close (or the kept claim) of a run the bridge's stop cut. */
export function shutdownIntent(mode: ShutdownMode, o: { seat: string; lane: string; story: RunStory; expiresAt: number | null }): KeptClaim | CloseIntent {
  const { seat, lane, story } = o;
  const session = story.session ? `session ${story.session.id}` : "its progress";
  if (mode === "continue") {
    const until = isoOrNull(o.expiresAt);
    return {
      type: "keep",
      note: `the bridge of seat ${seat} is restarting: it continues this task in this run when it is back, resuming ${session} (shutdown.inFlight: continue; no action needed${until ? `; not back by ${until}: the claim ends then, and the dispatcher's next tick (\`hermes gateway start\`) or an operator's \`reclaim\` gives the task back to the lane '${lane}'` : ""}). ${progress(story)}`,
    };
  }
  return {
    type: "release",
    reason: `the bridge of seat ${seat} stopped: handed back to the lane '${lane}' (shutdown.inFlight: handback; no action needed)\n${storyUsage(story)}`,
    comment: [
      `hermes-kanban-bridge (seat ${seat}): this seat was stopped while it worked on the task.`,
      `The task goes back to the lane '${lane}' (shutdown.inFlight: handback): the next seat continues it with this run's progress; this seat resumes ${session} if it picks the task up again. No action needed.`,
      progress(story),
      storyUsage(story),
    ].join("\n"),
  };
}
