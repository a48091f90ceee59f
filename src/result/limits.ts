// How long a usage limit may pause a seat: the reset time an agent reports (its outcome file, Claude's
// rate_limit_event, a Codex or Claude limit text) is input from the agent, so it is bounded here, once.
// A reset that is no time, already past, or beyond the cap (seat.maxLimitPauseHours) is replaced and
// the note says so — on the card, in the seat's reason — so a hostile task cannot park a whole pool
// until 2100, and a broken one cannot make the seat spin on a reset that already passed.

import { isInstant, isoOrNull } from "../time/clock.js";

/** When the agent names no reset time (or an unusable one), the seat waits this long. */
export const UNKNOWN_RESET_WAIT_MS = 15 * 60_000;

/** The longest pause a reset may make where no seat.maxLimitPauseHours is given (its default: a week). */
export const DEFAULT_MAX_PAUSE_MS = 168 * 3600_000;

export interface BoundedReset {
  /** The reset time to use (epoch ms), or null when the agent named none. */
  resetsAt: number | null;
  /** Why the reported time was replaced, or null when it was used as reported. */
  note: string | null;
}

const text = (ms: number) => isoOrNull(ms) ?? String(ms);

/** The reset time a seat may wait for: `reported` within (now, now + maxMs]. */
export function boundReset(reported: number | null, now: number, maxMs: number): BoundedReset {
  if (reported === null) return { resetsAt: null, note: null };
  if (!isInstant(reported))
    return {
      resetsAt: now + UNKNOWN_RESET_WAIT_MS,
      note: `the reported reset time (${text(reported)}) is not a time: waiting ${UNKNOWN_RESET_WAIT_MS / 60_000} minutes instead`,
    };
  if (reported <= now)
    return {
      resetsAt: now + UNKNOWN_RESET_WAIT_MS,
      note: `the reported reset time (${text(reported)}) has already passed: waiting ${UNKNOWN_RESET_WAIT_MS / 60_000} minutes instead`,
    };
  if (reported > now + maxMs)
    return {
      resetsAt: now + maxMs,
      note: `the reported reset time (${text(reported)}) is beyond seat.maxLimitPauseHours (${Math.round(maxMs / 3600_000)} h): clamped to ${text(now + maxMs)}`,
    };
  return { resetsAt: reported, note: null };
}
