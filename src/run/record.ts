// The one record of a run: its facts (how the agent ended, why it was stopped), its story (what the
// close says: workspace, session, usage, last note, changed files), where it is now (phase, deadline,
// last heartbeat, last operator note), its task's continuity record and its lease — the latter, and the
// deadline, read from the run's held lease (lease/held.ts), never copied. Everything that reports on the
// run (the close's metadata, the block text, the report, the session journal, the seat's status) reads it
// from here. The bottom of run/ with context.ts and events.ts: prepare/, work/ and close/ import it.
import type { AgentEvent, Note, OutcomeRequest, Usage } from "../agents/port.js";
import type { Claim, ClaimCheck } from "../agents/probe.js";
import type { TaskSession } from "../continuity/session.js";
import type { EgressCounts } from "../egress/proxy.js";
import type { HeldLease } from "../lease/held.js";
import type { Lease } from "../lease/lease.js";
import type { BridgeInfo } from "../result/common.js";
import type { Kept } from "../agent-files/owner.js";
import type { ToolBudget } from "../tools/budget.js";
import type { RetryRecord, RunPhase } from "./events.js";

/** What stopped the run first (work/stops.ts: the first cause is kept). */
export type Stop = "deadline" | "shutdown" | "lease_lost" | "unresolved" | "budget" | "cap" | "exposed" | "unreachable" | null;

/** What the run's working phase found out, for decide (work/decide.ts) and the close's texts (blocks/, close/close-text.ts). */
export interface RunFacts {
  outcome: OutcomeRequest | null;
  finished: Extract<AgentEvent, { type: "finished" }> | null;
  stop: Stop;
  stopDetail?: string;
  limit?: Extract<AgentEvent, { type: "limit" }>;
  authFailed?: string;
  /** The agent's last word that it cannot reach its API, while no answer came since (work/agent-run.ts). */
  unreachable?: string;
  failure?: Extract<AgentEvent, { type: "failed" }>;
  /** The seat's own check of a limit or login failure the agent reported (work/claims.ts). */
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

/** What the close says of the run (close/close-text.ts words it). */
export interface RunStory {
  traceId: string;
  seat: string;
  agent: string;
  model?: string | undefined;
  /** The task's skills the agent was given. */
  skills?: string[] | undefined;
  startedAt: number;
  now: number;
  workspace: { mode: string; path: string } | null;
  session: { id: string; resumed: boolean } | null;
  usage: Usage | null;
  lastNote: string | undefined;
  changedFiles: string[] | null;
  /** A fact from the workspace's finish (a pushed WIP commit). */
  workspaceNote: string | null;
  /** How the agent was confined when it was not jailed (every card and block says so). */
  isolation?: { mode: string; why: string } | undefined;
  /** How its caps were enforced when no cgroup did (agent.limits rlimit or none: every card and block says so). */
  limits?: { mode: string; why: string } | undefined;
  /** What the run's proxy refused and let through (network: proxy). */
  egress?: EgressCounts | undefined;
  /** What the workspace's hand-over left as it was, read-only to the agent (agent-files/owner.ts): hard links out of it. */
  kept?: Kept | undefined;
  /** The attempts the run started again before its close (agent.retries, work/retry.ts). */
  retries?: RetryRecord[] | undefined;
  /** The board's reopen of a done task this run re-works (prepare/reopen.ts). */
  reopen?: BridgeInfo["reopen"] | undefined;
  /** What the run did with the task tools, against its budget (tools/budget.ts). */
  tools?: Pick<ToolBudget, "counts" | "used" | "limits"> | undefined;
}

export class RunRecord {
  readonly facts: RunFacts;
  readonly story: RunStory;
  session: TaskSession | null = null;
  /** While the agent works: board events about the task reach the run here (work/scopes.ts sets it). */
  live: { checkNow(): void } | null = null;
  phase: RunPhase = "claimed";
  /** Epoch ms of the last heartbeat that landed. */
  lastHeartbeat: number | null = null;
  /** The last operator note handed to the agent, and when. */
  operatorNote: (Note & { deliveredAt: number }) | null = null;
  /** The task's title, once the run has read the task (untrusted text: shown escaped, never run). */
  title: string | null = null;
  /** The run's budget for the task tools (work/scopes.ts makes it; the close's attachments count against it too). */
  tools: ToolBudget | null = null;

  constructor(
    readonly held: HeldLease,
    o: { traceId: string; seat: string; agent: string; model?: string | undefined; startedAt: number },
  ) {
    this.facts = { outcome: null, finished: null, stop: null, deadlineAt: new Date(held.deadline).toISOString(), seat: o.seat };
    // The facts say the deadline the close reports: where a renewal moved it.
    held.on("renewed", (r) => {
      this.facts.deadlineAt = new Date(r.deadline).toISOString();
    });
    this.story = {
      traceId: o.traceId,
      seat: o.seat,
      agent: o.agent,
      model: o.model,
      startedAt: o.startedAt,
      now: o.startedAt,
      workspace: null,
      session: null,
      usage: null,
      lastNote: undefined,
      changedFiles: null,
      workspaceNote: null,
    };
  }

  get lease(): Lease {
    return this.held.lease;
  }

  get runId(): number | null {
    return this.held.lease.runId;
  }

  /** Epoch ms by which the agent must have finished: the claim's deadline, moved later by each renewal. */
  get deadline(): number {
    return this.held.deadline;
  }

  /** The agent's session is known: on the record and in the journal at once. */
  sessionStarted(id: string, resumed: boolean): void {
    this.story.session = { id, resumed };
    this.session?.started(id);
  }

  setUsage(u: Usage | null): void {
    this.story.usage = u;
  }

  note(n: string): void {
    this.story.lastNote = n;
    this.facts.lastSaid = n;
  }

  get traceId(): string {
    return this.story.traceId;
  }
}
