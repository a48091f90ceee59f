// The seat's own part of the config (seat.*): its name, and how it pauses and continues at a usage
// limit — the reset an agent reports is its word, bounded here and checked from outside (run/work/claims.ts).
import { z } from "zod";

export const Seat = z.strictObject({
  /** Names this seat in comments, metadata, status and the fleet view (default: <host>/<state dir name>). */
  name: z.string().min(1).max(100).optional(),
  /** After a usage/rate limit the seat claims nothing until the reset time plus this margin. */
  limitMarginSeconds: z.number().min(0).default(60),
  /** A reset time an agent reports is agent input: a pause never lasts longer than this (a later reset is clamped, and the card says so). */
  maxLimitPauseHours: z
    .number()
    .positive()
    .max(24 * 366)
    .default(168),
  /**
   * The agent could not reach its API (agent.unreachableSeconds): the seat claims nothing this long, then its
   * own check asks the API; no answer doubles the pause (up to 15 minutes).
   */
  unreachablePauseSeconds: z.number().positive().max(3600).default(60),
  /**
   * A usage limit or failed login the agent reported that the seat's own check did not confirm pauses
   * the seat this long, then it checks again (run/work/claims.ts).
   */
  unconfirmedPauseMinutes: z
    .number()
    .positive()
    .max(24 * 60)
    .default(10),
  /**
   * A run cut by this seat's usage limit: `handoff` gives the task back to the lane at once (another
   * seat of the assignee with headroom continues it; this one resumes its own session if it comes back
   * to it after the reset); `wait` parks it (`schedule`) and this seat continues it after the reset.
   * Neither needs an operator, neither blocks the task.
   */
  onLimit: z.enum(["handoff", "wait"]).default("handoff"),
});
