// One agent run folded into the run's facts: every event the adapter streams is recorded (outcome,
// finish, limit, auth, failure, usage, session, progress) and passed on to the run's hooks. Pure
// bookkeeping apart from iterating the adapter's generator.
import type { AgentAdapter, AgentEvent, AgentRunInput, OutcomeRequest, Usage } from "../agents/port.js";
import type { RunFacts } from "./decide.js";

export interface DriveState {
  lastNote: string | undefined;
  usage: Usage | null;
  session: string | null;
  resumeFailed: string | null;
  /** The agent did something (a tool call, an outcome): a failed resume after that is not retried fresh. */
  acted: boolean;
}

export interface DriveHooks {
  onEvent?: (e: AgentEvent) => void;
  onStarted?: (pid: number) => void;
  onSession?: (id: string) => void;
  /** An auth failure stops the run at once. */
  onAuthFailed?: () => void;
}

export function newDriveState(): DriveState {
  return { lastNote: undefined, usage: null, session: null, resumeFailed: null, acted: false };
}

export function fold(e: AgentEvent, facts: RunFacts, s: DriveState, h: DriveHooks): void {
  switch (e.type) {
    case "started":
      if (e.pid !== undefined) h.onStarted?.(e.pid);
      break;
    case "session":
      s.session = e.id;
      h.onSession?.(e.id);
      break;
    case "resume_failed":
      s.resumeFailed = e.message;
      break;
    case "progress":
      s.lastNote = e.note;
      break;
    case "tool":
      s.acted = true;
      break;
    case "usage":
      s.usage = e.usage;
      break;
    case "outcome":
      s.acted = true;
      facts.outcome = e.request as OutcomeRequest;
      break;
    case "finished":
      facts.finished = e;
      break;
    case "limit":
      facts.limit = e;
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
