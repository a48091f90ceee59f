// One agent run folded into the run's facts: every event the adapter streams is recorded (outcome,
// finish, limit, auth, failure) and passed on to the run's hooks (the session, progress and usage go to
// the run's record through them). Pure bookkeeping apart from iterating the adapter's generator.
import type { AgentAdapter, AgentEvent, AgentRunInput, OutcomeRequest } from "../../agents/port.js";
import type { RunFacts } from "../record.js";

/** What the driving itself needs to know between attempts (a failed resume is retried fresh once). */
export interface DriveState {
  resumeFailed: string | null;
  /** The agent did something (a tool call, an outcome): a failed resume after that is not retried fresh. */
  acted: boolean;
}

export interface DriveHooks {
  onEvent?: (e: AgentEvent) => void;
  /** The agent started: its process, or null for one that runs inside the bridge (the local loop). */
  onStarted?: (pid: number | null) => void;
  onSession?: (id: string) => void;
  /** An auth failure stops the run at once. */
  onAuthFailed?: () => void;
  /** A reported limit as the seat may act on it: its reset bounded the moment it is seen (run/work/claims.ts),
   *  so the time the agent, the jail and the close take afterwards cannot turn a near reset into a past one. */
  boundLimit: (e: Extract<AgentEvent, { type: "limit" }>) => Extract<AgentEvent, { type: "limit" }>;
}

export function newDriveState(): DriveState {
  return { resumeFailed: null, acted: false };
}

export function fold(e: AgentEvent, facts: RunFacts, s: DriveState, h: DriveHooks): void {
  switch (e.type) {
    case "started":
      h.onStarted?.(e.pid ?? null);
      break;
    case "session":
      h.onSession?.(e.id);
      break;
    case "resume_failed":
      s.resumeFailed = e.message;
      break;
    case "tool":
      s.acted = true;
      break;
    case "outcome":
      s.acted = true;
      facts.outcome = e.request as OutcomeRequest;
      break;
    case "finished":
      facts.finished = e;
      break;
    case "limit":
      facts.limit = h.boundLimit(e);
      break;
    case "auth_failed":
      facts.authFailed = e.message;
      h.onAuthFailed?.();
      break;
    case "failed":
      facts.failure ??= e;
      break;
  }
}

export async function drive(agent: AgentAdapter, input: AgentRunInput, facts: RunFacts, s: DriveState, h: DriveHooks): Promise<void> {
  for await (const e of agent.run(input)) {
    h.onEvent?.(e);
    fold(e, facts, s, h);
  }
}

/** Facts of a run that is started over (a failed resume): what the first attempt left is forgotten. */
export function resetForRetry(facts: RunFacts): void {
  facts.outcome = null;
  facts.finished = null;
  delete facts.failure;
}
