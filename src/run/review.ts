// The review hand-off (close.review): whether a successful run ends in `complete` or in `request-review`
// and to whom; and the changes a reviewer asked for (`reopen-review --reason` comments `CHANGES
// REQUESTED: …`), which lead the next run's prompt.
import type { TaskDetail } from "../board/port.js";
import type { Decision } from "../result/decision.js";

export interface ReviewPolicy {
  mode: "never" | "when-asked" | "always";
  reviewer?: string | undefined;
}

/** The hand-off a complete decision becomes under the policy (undefined: a plain `complete`). */
export function handOff(d: Extract<Decision, { type: "complete" }>, p: ReviewPolicy): { reviewer: string | null } | undefined {
  if (p.mode === "never") return undefined;
  if (p.mode === "when-asked" && !d.review) return undefined;
  return { reviewer: d.review?.reviewer ?? p.reviewer ?? null };
}

const MARK = "CHANGES REQUESTED:";

/** The latest changes a reviewer requested since the task last went to review (null: none). */
export function changesRequested(detail: TaskDetail): string | null {
  const lastReview = Math.max(0, ...detail.events.filter((e) => e.kind === "review_requested").map((e) => e.createdAt));
  const c = [...detail.comments].reverse().find((c) => c.body.startsWith(MARK) && c.createdAt >= lastReview);
  return c ? c.body.slice(MARK.length).trim() : null;
}

/** The paragraph that leads a run's prompt when a reviewer sent the task back. */
export function changesBrief(detail: TaskDetail): string {
  const changes = changesRequested(detail);
  return changes ? `A reviewer sent this task back with CHANGES REQUESTED: ${changes}\nAddress these changes first.\n\n` : "";
}
