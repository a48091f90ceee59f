// What a run's working phase found out, for decide (decide.ts) and the close's texts (block-texts.ts,
// close-text.ts): how the agent ended, what it asked for, and what stopped it first (stops.ts).
import type { AgentEvent, OutcomeRequest } from "../agents/port.js";
import type { Claim, ClaimCheck } from "../agents/probe.js";

export type Stop = "deadline" | "shutdown" | "lease_lost" | "unresolved" | "budget" | "cap" | "exposed" | "unreachable" | null;

export interface RunFacts {
  outcome: OutcomeRequest | null;
  finished: Extract<AgentEvent, { type: "finished" }> | null;
  stop: Stop;
  stopDetail?: string;
  limit?: Extract<AgentEvent, { type: "limit" }>;
  authFailed?: string;
  /** The agent's last word that it cannot reach its API, while no answer came since (run/agent-run.ts). */
  unreachable?: string;
  failure?: Extract<AgentEvent, { type: "failed" }>;
  /** The seat's own check of a limit or login failure the agent reported (run/claims.ts). */
  claimCheck?: ClaimCheck & { claim: Claim };
  deadlineAt: string;
  seat: string;
  /** Comments on the task when the agent started (later ones are new for the next run). */
  commentsSeen?: number;
  /** The run left its repository set to run code (git/guard.ts): nothing of it is committed or pushed. */
  repositoryFound?: boolean;
  /** What the agent last said (its last message's first line, or its last line: a progress note), as it said it. */
  lastSaid?: string;
}
