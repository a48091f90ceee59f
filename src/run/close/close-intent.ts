// What a run's decision becomes on the board: a complete (or a review hand-off under close.review), a
// usage-limit hand-back or park (seat.onLimit, limit.ts), the claim kept or handed back when the bridge's
// own stop cut the run (shutdown.inFlight, restart.ts), or a templated block.
import type { CloseIntent } from "../../outbox/outbox.js";
import { buildMetadata } from "../../result/common.js";
import type { Decision } from "../../result/decision.js";
import { kindFor } from "../../result/template.js";
import type { CutReason } from "../../continuity/journal.js";
import type { ReviewPolicy } from "../context.js";
import type { RunFacts, RunStory } from "../record.js";
import { blockReason, bridgeInfo, completeSummary } from "./close-text.js";
import { type LimitMode, limitIntent } from "./limit.js";
import { type KeptClaim, type ShutdownMode, shutdownIntent } from "./restart.js";
import { unreachableIntent } from "./unreachable.js";

export interface IntentContext {
  story: RunStory;
  facts: RunFacts;
  lease: { workspace: string; runId: number | null; expiresAt: number };
  cut: CutReason;
  seat: string;
  lane: string;
  review: ReviewPolicy;
  onLimit?: LimitMode | undefined;
  onShutdown?: ShutdownMode | undefined;
}

export function closeIntentOf(decision: Exclude<Decision, { type: "lost" }>, o: IntentContext): CloseIntent | KeptClaim {
  if (decision.type === "complete") {
    const bridge = bridgeInfo(o.story, o.lease.runId, o.facts.finished, o.facts.stop);
    return completeIntent(
      { ...decision, summary: completeSummary(decision.summary, o.story) },
      { ...buildMetadata(decision.result, bridge), ...(decision.extras ?? {}) },
      o.review,
    );
  }
  if (decision.unreachable) return unreachableIntent(decision, { seat: o.seat, lane: o.lane, story: o.story });
  const limit = decision.limit ? o.facts.limit : undefined;
  if (limit && o.onLimit) return limitIntent(o.onLimit, { seat: o.seat, lane: o.lane, limit, story: o.story });
  if (o.facts.stop === "shutdown" && o.onShutdown)
    return shutdownIntent(o.onShutdown, { seat: o.seat, lane: o.lane, story: o.story, expiresAt: o.lease.expiresAt || null });
  return { type: "block", reason: blockReason(decision, o.story, o.cut, o.lease), kind: kindFor(decision.template.cause, { limit: decision.limit }) };
}

/** A complete decision's close: `complete`, or a review hand-off under close.review. */
function completeIntent(d: Extract<Decision, { type: "complete" }>, metadata: Record<string, unknown>, policy: ReviewPolicy): CloseIntent {
  const review = handOff(d, policy);
  return { type: "complete", summary: d.summary, metadata, ...(review ? { review } : {}) };
}

/** The hand-off a complete decision becomes under the policy (undefined: a plain `complete`). */
export function handOff(d: Extract<Decision, { type: "complete" }>, p: ReviewPolicy): { reviewer: string | null } | undefined {
  if (p.mode === "never") return undefined;
  if (p.mode === "when-asked" && !d.review) return undefined;
  return { reviewer: d.review?.reviewer ?? p.reviewer ?? null };
}
