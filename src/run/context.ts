// What a run is given, in two parts: the seat's (`SeatRun`: its settings, its services, its stop and its
// spend — built once per seat, shared by every run it starts) and the claim's (`RunStart`: the board, the
// held lease, the agent, the trace). A TaskRun is made of exactly these two (task-run.ts); its working
// phase sees them with what the run has so far (`Work`). Nothing here reads the config: the seat built the
// settings once (daemon/seat-settings.ts). With record.ts and events.ts the bottom of run/: the settings'
// shapes (budget, upload, retry, review), the run's factories and what the preparing phase hands on live here,
// so prepare/, work/ and close/ never import each other.
import type { AgentAdapter, AgentRunInput } from "../agents/port.js";
import type { Claim, ClaimCheck } from "../agents/probe.js";
import type { BoardReader, TaskDetail } from "../board/port.js";
import type { SessionJournal } from "../continuity/journal.js";
import type { RunPlan } from "../continuity/plan.js";
import type { EgressPlan } from "../egress/plan.js";
import type { Snapshot } from "../gate/changes.js";
import type { GateConfig } from "../gate/gate.js";
import type { GitRunner } from "../git/runner.js";
import type { Jail } from "../jail/jail.js";
import type { HeldLease } from "../lease/held.js";
import type { Keeper, LeaseKeeperDeps } from "../lease/keeper.js";
import type { RunCloser } from "../outbox/closer.js";
import type { Redactor } from "../result/redact.js";
import type { Spend } from "../state/ledger.js";
import type { Clock } from "../time/clock.js";
import type { ToolLimits } from "../tools/budget.js";
import type { ToolHost } from "../tools/host.js";
import type { PreparedWorkspace, WorkspaceProvider } from "../workspace/port.js";
import type { RunEventsOut, RunPhase } from "./events.js";
import type { RunRecord } from "./record.js";

/** The seat's settings a run reads: built once, in milliseconds, defaults applied (daemon/seat-settings.ts). */
export interface RunSettings {
  /** seat.name: comments, metadata and texts say which seat did it. */
  seat: string;
  /** The lane (assignee) the seat works for (a seat pool shares it). */
  lane: string;
  author: string;
  /** A run cut by the seat's usage limit is handed back to the lane or parked for this seat (close/limit.ts); unset: blocked. */
  onLimit: "handoff" | "wait" | undefined;
  /** What a stop of the bridge does to a run (shutdown.inFlight): keep the claim for the restart, or hand it back. */
  onShutdown: "continue" | "handback" | undefined;
  /** The longest a reported reset time may pause the seat (seat.maxLimitPauseHours); a later one is clamped. */
  maxLimitPauseMs: number;
  /** How long a limit or login failure the seat could not confirm pauses it (work/claims.ts). */
  unconfirmedPauseMs: number;
  /** Which comments reach a running agent as notes, and how many (steering.*). */
  steering: { authors: readonly string[]; maxNotesPerRun: number };
  /** How a successful run ends: complete, or a review hand-off (close.review, close.reviewer). */
  review: ReviewPolicy;
  killGraceMs: number;
  /** The agent's reports that it cannot reach its API, unanswered this long, stop the run (agent.unreachableSeconds; 0: off). */
  unreachableMs: number;
  /** An attempt that ended the environment's way is started again (agent.retries, its backoff: work/retry.ts). */
  retry: RetryPolicy;
  /** Where the agent's run directory is made (the agent is told of it). */
  runsDir: string;
  /** Where the run's private directory is made (staged deliverables, the git view; never told to the agent). */
  privateRoot: string;
  continuity: { enabled: boolean; budget: number };
  gate: GateConfig;
  /** agent.budget (the task's, the seat's day, the task tools'). */
  budget: BudgetConfig;
}

/** What every run of a seat shares: its settings and its services. */
export interface SeatServices {
  settings: RunSettings;
  closer: RunCloser;
  clock: Clock;
  prompts: { task: string; resume: string };
  journal: SessionJournal;
  workspaces: WorkspaceProvider;
  gateEnv: Record<string, string>;
  git: GitRunner;
  /** The hermes CLI runs on this host (not through ssh): deliverables are staged where it can read them. */
  cliOnThisHost: boolean;
  redactor: Redactor;
  make: RunFactories;
  upload?: UploadSpec | undefined;
  /** Where the agent's processes run (agent.isolation). */
  jail?: Jail | undefined;
  /** Where a task's skills are looked up, in order (skills/roots.ts). */
  skillRoots: readonly string[];
  /** Where a jailed agent may connect (network: proxy). */
  egress?: EgressPlan | undefined;
  /** The seat's own check of a limit or failed login a run reported (its kind's probe); absent: none. */
  checkClaim?: ((claim: Claim) => Promise<ClaimCheck>) | undefined;
}

/** The seat's part of every run: its settings and services, its stop, and what it spent today (the daily budget). */
export interface SeatRun extends SeatServices {
  /** Aborted by the seat on a forced shutdown. */
  shutdown: AbortSignal;
  seatToday: () => Spend;
}

/** What starts one run: its board, the claim it holds (everything of the claim is on `held`), its agent and trace. */
export interface RunStart {
  /** Reads only: every write of the run goes through its lease's fenced view (`held.fenced`). */
  board: BoardReader;
  /** The claim the run holds (lease/held.ts): taken, or resumed after a restart. */
  held: HeldLease;
  agent: AgentAdapter;
  traceId: string;
  /** An agent adopted after a restart: its run dir (removed after the close), workspace and tools. */
  adopted?: { runDir: string; workspace: string; tools: { path: string; token: string } | null } | undefined;
  /** Honour Hermes's `active_pr` guard (the board's CLI has `authorize-existing-pr`: 0.21.4+). */
  activePrGuard?: boolean | undefined;
}

/** The working phase's view: the run's two parts and what the run has so far. */
export interface Work {
  seat: SeatRun;
  start: RunStart;
  record: RunRecord;
  prep: Prepared;
  detail: TaskDetail;
  setPhase: (p: RunPhase) => void;
  /** The run's event map (its owner listens). */
  events: RunEventsOut;
}

/** One budget's limits (agent.budget.task, agent.budget.seatDaily). */
export interface BudgetLimits {
  tokens?: number | undefined;
  costUsd?: number | undefined;
}

/** agent.budget (work/budget.ts checks it). */
export interface BudgetConfig {
  task?: BudgetLimits | undefined;
  seatDaily?: BudgetLimits | undefined;
  /** The task tools' per-run budget (tools/budget.ts). */
  tools?: ToolLimits | undefined;
}

/** workspace.uploadCommand: how a deliverable reaches a board on another host (close/deliverables.ts). */
export interface UploadSpec {
  /** argv with {file} (local path), {name}, {dir} (on the board host), {task}. */
  command: readonly string[];
  dir: string;
  env: Record<string, string>;
  timeoutMs: number;
}

/** The task tools' endpoint of one run (its socket and token). */
export interface ToolsEndpoint {
  path: string;
  token: string;
  close(): Promise<void>;
}

export interface Timer {
  cancel(): void;
}

/**
 * What a run builds per run, injected so a unit test can replace each piece: the lease keeper, the task-tools
 * endpoint (per-run socket + token), and timers (deadline, wrap-up, kill grace). work/factories.ts: the seat's.
 */
export interface RunFactories {
  keeper(d: LeaseKeeperDeps): Keeper;
  /** Serves the run's tools; `at` given = serve an adopted run again at its recorded path and token. */
  tools(host: ToolHost, at?: { path: string; token: string }): Promise<ToolsEndpoint>;
  /** Calls `fire` at epoch ms `at` unless cancelled first. */
  timer(at: number, fire: () => void): Timer;
}

/** What the preparing phase hands the work phase (prepare/prepare.ts). */
export interface Prepared {
  ws: PreparedWorkspace;
  before: Snapshot | null;
  plan: RunPlan;
  /** The agent's input without the run-scoped parts (signals, tools) and with the fresh prompt. */
  input: Omit<AgentRunInput, "signal" | "wrapUp" | "tools" | "resume">;
  /** The continuation prompt, when the plan resumes. */
  resumePrompt: string | null;
  /** The continuation prompt of an attempt started again within the run (work/retry.ts): what ended the last one. */
  continuePrompt?: (r: { attempt: number; detail: string; at: number }) => string;
}

/** agent.retries and its backoff, in milliseconds. */
export interface RetryPolicy {
  retries: number;
  baseMs: number;
  maxMs: number;
}

/** close.review, close.reviewer, close.maxReviewRounds (prepare/review.ts, close/close-intent.ts). */
export interface ReviewPolicy {
  mode: "never" | "when-asked" | "always";
  reviewer?: string | undefined;
  /** Review round trips a task may make before a person decides (close.maxReviewRounds). */
  maxRounds?: number | undefined;
}
