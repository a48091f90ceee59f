// What a TaskRun is built from: the board (reads) and the run's fenced view of it (every write), the
// agent, the closer, the clock and the run's timing, the factories of its keeper, tools and timers,
// and the services it reads and writes (workspaces, session journal, gate). The working phase takes a
// subset of the same.
import type { ReviewPolicy } from "./review.js";
import type { ClaimPolicy } from "./claims.js";
import type { EgressPlan } from "../egress/plan.js";
import type { Jail } from "../jail/jail.js";
import type { AgentAdapter } from "../agents/port.js";
import type { BoardReader, TaskDetail } from "../board/port.js";
import type { SessionJournal } from "../continuity/journal.js";
import type { GateConfig } from "../gate/gate.js";
import type { GitRunner } from "../git/runner.js";
import type { HeldLease } from "../lease/held.js";
import type { RunCloser } from "../outbox/closer.js";
import type { Redactor } from "../result/redact.js";
import type { Clock } from "../time/clock.js";
import type { WorkspaceProvider } from "../workspace/port.js";
import type { Spend } from "../state/ledger.js";
import type { BudgetConfig } from "./budget.js";
import type { UploadSpec } from "./deliverables.js";
import type { RunFactories } from "./factories.js";
import type { RunEventsOut, RunPhase } from "./events.js";
import type { Prepared } from "./prepare.js";
import type { RunRecord } from "./record.js";
import type { RetryPolicy } from "./retry.js";

export interface TaskRunDeps {
  /** Reads only: every write of the run goes through its lease's fenced view (`held.fenced`). */
  board: BoardReader;
  /**
   * The run's lease (lease/held.ts): its fenced view (the only way the run writes to its task; the run id
   * settled once), what the claim read (the task, its context, a claim failure), its deadline, heartbeat and signals.
   */
  held: HeldLease;
  agent: AgentAdapter;
  closer: RunCloser;
  clock: Clock;
  /** The seat's name (seat.name): comments, metadata and texts say which seat did it. */
  seat: string;
  /** The assignee this seat works for (its lane; a seat pool shares it). */
  lane: string;
  /** A run cut by the seat's usage limit is handed back to the lane or parked for this seat (run/limit.ts); unset: blocked. */
  onLimit?: "handoff" | "wait" | undefined;
  /** What a stop of the bridge does to this run (shutdown.inFlight): keep the claim for the restart, or hand it back. */
  onShutdown?: "continue" | "handback" | undefined;
  /** Where the agent's processes start (agent.isolation): a bubblewrap jail, or as they are. */
  jail?: Jail | undefined;
  /** Where a task's skills are looked up, in order. */
  skillRoots: readonly string[];
  /** Where a jailed agent may connect (network: proxy): the seat's allow-list and the API its proxy forwards. */
  egress?: EgressPlan | undefined;
  /** How a limit or login failure the agent reported is checked before the seat acts on it (run/claims.ts). */
  claims?: ClaimPolicy | undefined;
  /** Honour Hermes's `active_pr` guard before the agent starts (the CLI has `authorize-existing-pr`: 0.21.4+). */
  activePrGuard?: boolean | undefined;
  /** How a successful run ends: complete, or a review hand-off (close.review, close.reviewer). */
  review: ReviewPolicy;
  /** Which comments reach a running agent as notes, and how many (steering.*). */
  steering?: { authors: readonly string[]; maxNotesPerRun: number } | undefined;
  /** The longest a reported reset time may pause the seat (seat.maxLimitPauseHours); a later one is clamped. */
  maxLimitPauseMs?: number | undefined;
  author: string;
  traceId: string;
  killGraceMs: number;
  /** An attempt that ended the environment's way is started again (agent.retries, its backoff: run/retry.ts). */
  retry: RetryPolicy;
  /** The agent's reports that it cannot reach its API, unanswered this long, stop the run (agent.unreachableSeconds; 0: off). */
  unreachableMs?: number | undefined;
  /** Where the agent's run directory is made (the agent is told of it). */
  runsDir: string;
  /** Where the run's private directory is made (staged deliverables, the git view; never told to the agent). */
  privateRoot: string;
  /** The hermes CLI runs on this host (deliverables are staged where it can read them). */
  cliOnThisHost: boolean;
  prompts: { task: string; resume: string };
  /** Aborted by the daemon on forced shutdown. */
  shutdown: AbortSignal;
  continuity: { journal: SessionJournal; enabled: boolean; budget: number };
  workspaces: WorkspaceProvider;
  gate: { config: GateConfig; env: Record<string, string>; git: GitRunner };
  upload?: UploadSpec | undefined;
  redactor: Redactor;
  make: RunFactories;
  /** An agent adopted after a bridge restart: its workspace is in use and its tools are served again. */
  adopted?: { workspace: string; tools: { path: string; token: string } | null };
  recheck?: { attempts: number; delayMs: number };
  /** agent.budget and what this seat spent today (its ledger); unset: no budget. */
  budget?: { limits: BudgetConfig; seatToday: () => Spend } | undefined;
}

/** The run's dependencies the working phase uses, and what the run has so far. */
export type WorkInput = Pick<
  TaskRunDeps,
  | "held"
  | "agent"
  | "clock"
  | "seat"
  | "author"
  | "traceId"
  | "killGraceMs"
  | "retry"
  | "unreachableMs"
  | "shutdown"
  | "gate"
  | "redactor"
  | "make"
  | "adopted"
  | "recheck"
  | "budget"
  | "maxLimitPauseMs"
  | "steering"
  | "jail"
  | "egress"
> & {
  record: RunRecord;
  prep: Prepared;
  detail: TaskDetail;
  setPhase: (p: RunPhase) => void;
  /** The run's event map (its owner listens). */
  events: RunEventsOut;
};
