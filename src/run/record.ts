// The one record of a run: its facts (how the agent ended, why it was stopped), its story (what the
// close says: workspace, session, usage, last note, changed files), where it is now (phase, deadline,
// last heartbeat, last operator note), its task's continuity record and its lease — the latter, and the
// deadline, read from the run's held lease (lease/held.ts), never copied. Everything that reports on the run (the close's metadata, the
// block text, the report, the session journal, the seat's status) reads it from here.
import type { Note, Usage } from "../agents/port.js";
import type { TaskSession } from "../continuity/session.js";
import type { HeldLease } from "../lease/held.js";
import type { Lease } from "../lease/lease.js";
import type { RunStory } from "./close/close-text.js";
import type { RunFacts } from "./work/decide.js";
import type { RunPhase } from "./events.js";
import type { ToolBudget } from "../tools/budget.js";

export class RunRecord {
  readonly facts: RunFacts;
  readonly story: RunStory;
  session: TaskSession | null = null;
  /** While the agent works: board events about the task reach the run here (work.ts sets it). */
  live: { checkNow(): void } | null = null;
  phase: RunPhase = "claimed";
  /** Epoch ms of the last heartbeat that landed. */
  lastHeartbeat: number | null = null;
  /** The last operator note handed to the agent, and when. */
  operatorNote: (Note & { deliveredAt: number }) | null = null;
  /** The task's title, once the run has read the task (untrusted text: shown escaped, never run). */
  title: string | null = null;
  /** The run's budget for the task tools (work.ts makes it; the close's attachments count against it too). */
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
