// What a review sent back, before a run starts (the hand-off itself, close.review — `complete` or
// `request-review` and to whom — is the close's: close/close-intent.ts `handOff`): what a reviewer asked
// for, from what Hermes records for a review only — after a real
// `review_requested`, a `changes_requested` event (a reviewer's run closed by `request-changes`, its reason
// on the event) or a `review_reopened` event and the `CHANGES REQUESTED:` comment that `reopen-review
// --reason` posts with it (told by the `commented` event beside it: same author, same length, same moment).
// Anyone's plain "CHANGES REQUESTED:" comment is a comment like any other. What the reviewer wrote leads
// the next run's prompt quoted as board text, when its author is one the seat takes steering from
// (steering.authors). Review round trips are counted per task (since a person last unblocked it): after
// close.maxReviewRounds the task is blocked for a human decision instead of run again.
import type { TaskDetail, TaskEvent } from "../../board/port.js";
import type { Decision } from "../../result/decision.js";
import { authorName, noteText } from "../../tools/notes.js";
import { isoOrNull } from "../../time/clock.js";
import { blockFor } from "../blocks/table.js";

const MARK = "CHANGES REQUESTED:";
/** How far apart (seconds) Hermes records a reopen and the comment it posts with it (one CLI call). */
const SAME_MOMENT_S = 1;

/** One review round trip as Hermes recorded it: the hand-off, and the review's verdict sending the task back. */
export interface ReviewRound {
  requestedAt: number;
  via: "request-changes" | "reopen-review";
  /** Who asked for the changes: the reviewer's profile (request-changes) or the reopening comment's author; null: not recorded. */
  by: string | null;
  /** What they asked for; null: no reason was given. */
  reason: string | null;
  at: number;
}

/** Characters as Hermes counts a comment's length (Python code points; the emulator's UTF-16 units also match). */
const lengths = (s: string) => new Set([[...s].length, s.length]);

/** The `CHANGES REQUESTED:` comment `reopen-review --reason` posted with the reopen at `events[i]` (0.21: right after it; 0.20: right before). */
function reopenComment(detail: TaskDetail, i: number): { author: string; body: string } | null {
  const ev = detail.events[i];
  if (!ev) return null;
  for (const j of [i + 1, i - 1]) {
    const c = detail.events[j];
    if (c?.kind !== "commented" || !c.comment?.author || c.comment.len === null || Math.abs(c.createdAt - ev.createdAt) > SAME_MOMENT_S) continue;
    const { author, len } = c.comment;
    const found = [...detail.comments]
      .reverse()
      .find((m) => m.author === author && m.body.startsWith(MARK) && lengths(m.body).has(len) && Math.abs(m.createdAt - c.createdAt) <= SAME_MOMENT_S);
    if (found) return found;
  }
  return null;
}

/** The task's review round trips since a person last unblocked it, oldest first. */
export function reviewRounds(detail: TaskDetail): ReviewRound[] {
  const rounds: ReviewRound[] = [];
  let requested: TaskEvent | null = null;
  detail.events.forEach((ev, i) => {
    if (ev.kind === "unblocked") {
      rounds.length = 0;
      requested = null;
    } else if (ev.kind === "review_requested") requested = ev;
    else if (requested && ev.kind === "changes_requested") {
      rounds.push({ requestedAt: requested.createdAt, via: "request-changes", by: ev.reviewer ?? null, reason: ev.reason?.trim() || null, at: ev.createdAt });
      requested = null;
    } else if (requested && ev.kind === "review_reopened") {
      const c = reopenComment(detail, i);
      rounds.push({
        requestedAt: requested.createdAt,
        via: "reopen-review",
        by: c?.author ?? null,
        reason: c ? c.body.slice(MARK.length).trim() || null : null,
        at: ev.createdAt,
      });
      requested = null;
    }
  });
  return rounds;
}

/** The last round's verdict when the task was sent back since its last hand-off to review (null: none). */
export function lastVerdict(detail: TaskDetail): ReviewRound | null {
  const last = reviewRounds(detail).at(-1);
  const handedOff = detail.events.findLast((e) => e.kind === "review_requested");
  return last && handedOff && last.at >= handedOff.createdAt ? last : null;
}

/** The paragraph that leads a run's prompt when a review sent the task back: what Hermes recorded, the reason quoted as board text. */
export function changesBrief(detail: TaskDetail, o: { authors?: readonly string[] | undefined } = {}): string {
  const v = lastVerdict(detail);
  if (!v) return "";
  const allowed = !o.authors?.length || (v.by !== null && o.authors.includes(v.by));
  const round = reviewRounds(detail).length;
  const who = v.by ? `@${authorName(v.by)}` : "a reviewer";
  const how = v.via === "request-changes" ? "`request-changes`" : "`reopen-review`";
  const head = `This task was sent back from review (review round ${round}; Hermes recorded ${how} by ${who} at ${isoOrNull(v.at * 1000) ?? "?"}; the name is what the board records).`;
  if (!v.reason) return `${head} No reason was given: read the comments, then address what the review found.\n\n`;
  if (!allowed) return `${head} Its reason is not shown: ${who} is not one of the authors this seat takes steering from (steering.authors).\n\n`;
  const quoted = noteText({ id: "review", author: v.by ?? "", body: v.reason, postedAt: v.at * 1000 });
  return `${head} The changes asked for, quoted as board text (every line starts with "> "):\n${quoted}\nAddress these changes first.\n\n`;
}

/** The block for a task that went round review `close.maxReviewRounds` times (null: fewer). */
export function reviewRoundsBlock(detail: TaskDetail, max: number | undefined): Decision | null {
  const rounds = reviewRounds(detail);
  if (!max || rounds.length < max) return null;
  return blockFor("review_rounds", rounds, max);
}
