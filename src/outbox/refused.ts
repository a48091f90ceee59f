// A close the board refused for good (a usage error, a definitive refusal that is not about the lease
// — e.g. a completion contract the card does not meet): the run's result must not strand its task
// `running` until the TTL, nor loop through retries. The refused close is replaced by a templated
// block that names the refusal and keeps the summary, so a human sees what the agent did and why it
// did not land; the refused intent stays in the outbox (state `refused`) with its full metadata.
import { Rejected, UsageError } from "../errors/board.js";
import { type Usage, usageLine } from "../board/card.js";
import { kindFor, renderBlock } from "../result/template.js";
import { refusalTemplate } from "./refusal-text.js";
import type { CloseIntent } from "./outbox.js";

/** A refusal that no retry or replay can change (the lease is fine: ownership refusals are LeaseLost already). */
export function isDefinitiveRefusal(err: unknown): err is UsageError | Rejected {
  return err instanceof UsageError || err instanceof Rejected;
}

/**
 * The block that replaces a refused close (only a complete or a review hand-off is replaced). A refusal
 * the bridge can name the fix of (the goal judge, unmet parents: outbox/refusal-text.ts) gets its own
 * text; `refusal` says which task and board the close was for.
 */
export function refusedCloseBlock(
  intent: CloseIntent,
  error: string,
  explain?: (error: string) => string | null,
  refusal?: { err: unknown; taskId: string; board: string },
): CloseIntent | null {
  if (intent.type !== "complete") return null;
  const summary = intent.summary.length > 1500 ? `${intent.summary.slice(0, 1500)} …` : intent.summary;
  const typed = refusal ? refusalTemplate(refusal.err, { taskId: refusal.taskId, board: refusal.board, review: intent.review !== undefined, summary }) : null;
  if (typed) return { type: "block", kind: kindFor(typed.cause), reason: `${renderBlock(typed)}\n${usageOf(intent.metadata)}` };
  const why = explain?.(error) ?? null;
  return {
    type: "block",
    kind: "needs_input",
    reason: `${renderBlock({
      cause: "human decision needed",
      what_happened: `The agent finished and the bridge asked the board to ${intent.review ? "hand the task over for review" : "complete the task"}, but the board refused it: ${error}.${why ? ` ${why}` : ""} The agent's summary was: ${JSON.stringify(summary)}`,
      options: [
        "meet what the board asks for (see the refusal above), then unblock so the next run completes it",
        "complete the task by hand if the work is acceptable as it is",
        "change the task (its contract or its text) and unblock",
      ],
      recommendation: "Read the refusal: it names what the board wants before it accepts the close.",
      next_action: "Decide whether the work is done; complete it by hand or unblock after fixing what the board asked for.",
    })}\n${usageOf(intent.metadata)}`,
  };
}

/** The usage line of a refused complete's own metadata (its `bridge` part), so the block still records what the run cost. */
function usageOf(metadata: Record<string, unknown>): string {
  const b = (metadata.bridge ?? {}) as Record<string, unknown>;
  const n = (v: unknown) => (typeof v === "number" && Number.isFinite(v) && v >= 0 ? v : undefined);
  const t = (b.tokens ?? {}) as Record<string, unknown>;
  const input = n(t.input);
  const output = n(t.output);
  const u: Usage = {};
  if (input !== undefined && output !== undefined) u.tokens = { input, output };
  const cost = n(b.cost_usd);
  if (cost !== undefined) u.costUsd = cost;
  const turns = n(b.turns);
  if (turns !== undefined) u.turns = turns;
  return usageLine(u, typeof b.model === "string" ? b.model : undefined, typeof b.seat === "string" ? b.seat : undefined);
}
