// What a TaskRun tells its owner (the launcher: metrics, the active-run journal, logs): its phases
// and the events of its agent and its lease keeper.
import type { AgentEvent, Note } from "../agents/port.js";

export type RunPhase = "claimed" | "reading" | "preparing" | "working" | "verifying" | "delivering" | "closing" | "closed" | "lost";

export interface RunHooks {
  onPhase?: (phase: RunPhase) => void;
  onAgentEvent?: (e: AgentEvent) => void;
  /** The agent process is up: enough to find it again after a bridge restart. */
  onStarted?: (info: {
    pid: number;
    resultFile: string;
    runDir: string;
    outputDir: string;
    workspace: string;
    tools: { path: string; token: string } | null;
  }) => void;
  /** The run's proxy refused a destination (network: proxy). */
  onEgressBlocked?: (host: string, port: number, why: string) => void;
  /** An allowed host the run's proxy could not reach (once per host:port and run). */
  onEgressFailed?: (host: string, port: number, why: string) => void;
  /** Operator notes reached the agent (each once), at `at`. */
  onNotes?: (notes: readonly Note[], at: number) => void;
  onLog?: (level: "info" | "warn", msg: string, data?: Record<string, unknown>) => void;
}
