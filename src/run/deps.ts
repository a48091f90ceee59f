// What a TaskRun is built from: the board and the lease, the agent, the closer, the clock and the
// run's timing, the factories of its keeper, tools and timers, and the services it reads and writes
// (workspaces, session journal, gate, redactor). The working phase takes a subset of the same.
import type { AgentAdapter } from "../agents/port.js";
import type { Board, TaskDetail } from "../board/port.js";
import type { Timing } from "../config/timing.js";
import type { SessionJournal } from "../continuity/journal.js";
import type { GateConfig } from "../gate/gate.js";
import type { Lease } from "../lease/lease.js";
import type { RunCloser } from "../outbox/closer.js";
import type { Redactor } from "../result/redact.js";
import type { Clock } from "../time/clock.js";
import type { WorkspaceProvider } from "../workspace/port.js";
import type { UploadSpec } from "./deliverables.js";
import type { RunFactories } from "./factories.js";
import type { RunHooks } from "./hooks.js";

export interface TaskRunDeps {
  board: Board;
  lease: Lease;
  detail: TaskDetail | null;
  /** `context` text read before the claim (the TTL needed it), or null to read it now. */
  contextText: string | null;
  agent: AgentAdapter;
  closer: RunCloser;
  clock: Clock;
  seat: string;
  author: string;
  traceId: string;
  timing: Timing;
  /** Epoch ms by which the agent must have finished. */
  deadline: number;
  /** The CLI renews claims on heartbeat (capability): the deadline follows, up to `latest` (epoch ms). */
  extend?: { ttlSeconds: number; latest: number } | undefined;
  killGraceMs: number;
  runsDir: string;
  prompts: { task: string; resume: string };
  /** Aborted by the daemon on forced shutdown. */
  shutdown: AbortSignal;
  continuity: { journal: SessionJournal; enabled: boolean; budget: number };
  workspaces: WorkspaceProvider;
  gate: { config: GateConfig; env: Record<string, string> };
  upload?: UploadSpec | undefined;
  redactor: Redactor;
  make: RunFactories;
  /** An agent adopted after a bridge restart: its workspace is in use and its tools are served again. */
  adopted?: { workspace: string; tools: { path: string; token: string } | null };
  recheck?: { attempts: number; delayMs: number };
  hooks?: RunHooks;
}
