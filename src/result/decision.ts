// What a run decides to do with its task: complete (summary + the agent's result, plus the gate's
// extras), a templated block, or nothing at all because the lease was lost.
import type { LeaseLost } from "../errors/board.js";
import type { AgentResult } from "./common.js";
import type { BlockTemplate, BlockTemplateInput, Cause } from "./template.js";

/** What an agent asked for at its end (outcome file, task tools), before the bridge checks it. */
export type OutcomeRequest =
  /** `review`: the agent asks for a review hand-off instead of done (`reviewer`: a profile it names). */
  | { kind: "complete"; summary: string; result: unknown; review?: { reviewer: string | null } }
  | { kind: "block"; block: BlockTemplateInput }
  | { kind: "invalid"; error: string }
  | { kind: "unreadable"; error: string };

export interface GateExtras {
  verification?: { command: string; exit_code: number | null; duration_ms: number; output_tail: string; timed_out?: boolean }[];
  changed_files?: string[];
  diff_stat?: string;
  /** Commands of the task body's `## Verification` that were not run (task text is untrusted). */
  verification_skipped?: string[];
}

export type Decision =
  /** `review`: the close is a review hand-off (`request-review`) to `reviewer` (null: the board's own choice). */
  | { type: "complete"; summary: string; result: AgentResult; extras?: GateExtras; review?: { reviewer: string | null } }
  /** `unreachable`: the agent could not reach its API — handed back to the lane, never left blocked (run/close/unreachable.ts). */
  | { type: "block"; template: BlockTemplate; limit: boolean; unreachable?: true }
  /** `lost`: the board's own LeaseLost (who holds the task now), where the run has it. */
  | { type: "lost"; lost?: LeaseLost };

export function blockDecision(cause: Cause, what: string, options: string[], recommendation: string, next: string, limit = false): Decision {
  return { type: "block", template: { cause, what_happened: what, options, recommendation, next_action: next }, limit };
}
