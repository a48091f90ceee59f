// What a TaskRun is built from, put together in one place: the seat's services and settings (shared by
// every run; the settings built once from the config, daemon/seat-settings.ts — nothing here reads the
// config) and one claim's own input (its board, its held lease, its agent, its trace).
import type { AgentAdapter } from "../agents/port.js";
import type { Claim, ClaimCheck } from "../agents/probe.js";
import type { EgressPlan } from "../egress/plan.js";
import type { BoardReader } from "../board/port.js";
import type { SessionJournal } from "../continuity/journal.js";
import type { GitRunner } from "../git/runner.js";
import type { Jail } from "../jail/jail.js";
import type { HeldLease } from "../lease/held.js";
import type { RunCloser } from "../outbox/closer.js";
import type { Redactor } from "../result/redact.js";
import type { Spend } from "../state/ledger.js";
import type { Clock } from "../time/clock.js";
import type { WorkspaceProvider } from "../workspace/port.js";
import type { UploadSpec } from "./deliverables.js";
import type { TaskRunDeps } from "./deps.js";
import type { RunFactories } from "./factories.js";

/** The seat's settings a run reads: built once, in milliseconds, defaults applied (daemon/seat-settings.ts). */
export interface RunSettings {
  /** seat.name: comments, metadata and texts say which seat did it. */
  seat: string;
  /** The lane (assignee) the seat works for. */
  lane: string;
  author: string;
  onLimit: TaskRunDeps["onLimit"];
  onShutdown: TaskRunDeps["onShutdown"];
  maxLimitPauseMs: number;
  unconfirmedPauseMs: number;
  steering: NonNullable<TaskRunDeps["steering"]>;
  review: TaskRunDeps["review"];
  killGraceMs: number;
  unreachableMs: number;
  retry: TaskRunDeps["retry"];
  runsDir: string;
  privateRoot: string;
  continuity: { enabled: boolean; budget: number };
  gate: TaskRunDeps["gate"]["config"];
  budget: NonNullable<TaskRunDeps["budget"]>["limits"];
}

/** What every run of a seat shares. */
export interface SeatServices {
  settings: RunSettings;
  closer: RunCloser;
  clock: Clock;
  prompts: { task: string; resume: string };
  journal: SessionJournal;
  workspaces: WorkspaceProvider;
  gateEnv: Record<string, string>;
  git: GitRunner;
  /** The hermes CLI runs on this host (not through ssh). */
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

/** What starts one run: its board, the claim it holds (everything of the claim is on `held`), its agent and trace. */
export interface RunStart {
  board: BoardReader;
  /** The claim the run holds (lease/held.ts): taken, or resumed after a restart. */
  held: HeldLease;
  agent: AgentAdapter;
  traceId: string;
  /** An agent adopted after a restart: its run dir (removed after the close), workspace and tools. */
  adopted?: { runDir: string; workspace: string; tools: { path: string; token: string } | null } | undefined;
  /** Honour Hermes's `active_pr` guard (the board's CLI has `authorize-existing-pr`). */
  activePrGuard?: boolean | undefined;
}

/** What the seat adds to every run it starts: its stop, and what it spent today (the daily budget). */
export interface SeatPart {
  shutdown: AbortSignal;
  seatToday: () => Spend;
}

export function taskRunDeps(s: SeatServices, r: RunStart, seat: SeatPart): TaskRunDeps {
  const c = s.settings;
  return {
    board: r.board,
    held: r.held,
    agent: r.agent,
    closer: s.closer,
    clock: s.clock,
    seat: c.seat,
    lane: c.lane,
    onLimit: c.onLimit,
    onShutdown: c.onShutdown,
    maxLimitPauseMs: c.maxLimitPauseMs,
    steering: c.steering,
    jail: s.jail,
    skillRoots: s.skillRoots,
    review: c.review,
    claims: { check: s.checkClaim, unconfirmedPauseMs: c.unconfirmedPauseMs, maxPauseMs: c.maxLimitPauseMs },
    egress: s.egress,
    author: c.author,
    traceId: r.traceId,
    killGraceMs: c.killGraceMs,
    retry: c.retry,
    unreachableMs: c.unreachableMs,
    runsDir: c.runsDir,
    privateRoot: c.privateRoot,
    cliOnThisHost: s.cliOnThisHost,
    prompts: s.prompts,
    shutdown: seat.shutdown,
    continuity: { journal: s.journal, ...c.continuity },
    workspaces: s.workspaces,
    gate: { config: c.gate, env: s.gateEnv, git: s.git },
    upload: s.upload,
    redactor: s.redactor,
    make: s.make,
    budget: { limits: c.budget, seatToday: seat.seatToday },
    ...(r.adopted ? { adopted: { workspace: r.adopted.workspace, tools: r.adopted.tools } } : {}),
    activePrGuard: r.activePrGuard,
  };
}
