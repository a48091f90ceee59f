// RunLauncher: starts TaskRuns, keeps the in-flight table, the active-run journal and the metrics.
import { rm } from "node:fs/promises";
import { join } from "node:path";
import type { AgentAdapter } from "../agents/port.js";
import type { Board, Lease, TaskDetail } from "../board/index.js";
import type { Config } from "../config/schema.js";
import { describeError } from "../errors/index.js";
import type { Logger } from "../log/logger.js";
import type { Metrics } from "../observe/metrics.js";
import { processStartTime } from "../process/liveness.js";
import type { Redactor } from "../result/redact.js";
import type { Closer } from "../run/closer.js";
import { type RunPhase, type RunReport, TaskRun } from "../run/task-run.js";
import type { Clock } from "../time/clock.js";
import type { ActiveRuns } from "./active-runs.js";

export interface InFlight {
  board: string;
  taskId: string;
  runId: number | null;
  traceId: string;
  run: TaskRun | null;
  startedAt: number;
  deadline: number;
  lastHeartbeat: number | null;
  phase: RunPhase | "claiming";
  adopted: boolean;
}

export interface LauncherDeps {
  config: Config;
  closer: Closer;
  clock: Clock;
  log: Logger;
  promptTemplate: string;
  active: ActiveRuns;
  shutdown: AbortSignal;
  metrics: Metrics | undefined;
  emit: (event: string, payload: unknown) => void;
  onClosed: (board: Board, report: RunReport) => void;
  /** Environment for verification commands (the agent's allow-list). */
  gateEnv: Record<string, string>;
  redactor: Redactor;
}

export class RunLauncher {
  readonly inflight = new Map<string, InFlight>();
  readonly promises = new Set<Promise<void>>();

  constructor(private readonly d: LauncherDeps) {}

  static key(board: string, taskId: string): string {
    return `${board}/${taskId}`;
  }

  /** Reserves a slot before the claim call so concurrent claims cannot exceed the seat limit. */
  reserve(board: string, taskId: string): InFlight {
    const slot: InFlight = { board, taskId, runId: null, traceId: "", run: null, startedAt: this.d.clock.now(), deadline: 0, lastHeartbeat: null, phase: "claiming", adopted: false };
    this.inflight.set(RunLauncher.key(board, taskId), slot);
    return slot;
  }

  release(board: string, taskId: string): void {
    this.inflight.delete(RunLauncher.key(board, taskId));
  }

  launch(o: {
    board: Board;
    lease: Lease;
    detail: TaskDetail | null;
    agent: AgentAdapter;
    traceId: string;
    deadline: number;
    adoptedRunDir?: string;
    toolsEndpoint?: { path: string; token: string } | undefined;
  }): void {
    const { board, lease, traceId } = o;
    const c = this.d.config;
    const key = RunLauncher.key(board.slug, lease.taskId);
    const slot = this.inflight.get(key) ?? this.reserve(board.slug, lease.taskId);
    Object.assign(slot, { runId: lease.runId, traceId, deadline: o.deadline, adopted: o.adoptedRunDir !== undefined });
    const ids = { board: board.slug, task_id: lease.taskId, run_id: lease.runId, trace_id: traceId };
    const run = new TaskRun({
      board,
      lease,
      detail: o.detail,
      agent: o.agent,
      closer: this.d.closer,
      clock: this.d.clock,
      seat: c.assignee,
      traceId,
      heartbeatMs: c.heartbeat.intervalSeconds * 1000,
      deadline: o.deadline,
      runsDir: join(c.stateDir, "runs"),
      promptTemplate: this.d.promptTemplate,
      shutdown: this.d.shutdown,
      gate: { config: c.gate, env: this.d.gateEnv },
      author: c.author,
      redactor: this.d.redactor,
      onPhase: (phase) => {
        slot.phase = phase;
        this.d.log.debug({ ...ids, phase }, "phase");
      },
      onHeartbeat: () => {
        slot.lastHeartbeat = this.d.clock.now();
        this.d.emit("heartbeat", { taskId: lease.taskId, runId: lease.runId });
      },
      onHeartbeatFailure: () => this.d.metrics?.heartbeatFailures.inc({ board: board.slug }),
      ...(o.toolsEndpoint ? { toolsEndpoint: o.toolsEndpoint } : {}),
      onStarted: ({ pid, resultFile, runDir, tools }) => {
        if (o.adoptedRunDir === undefined) {
          this.d.active.write({
            board: board.slug,
            task: lease.taskId,
            runId: lease.runId,
            traceId,
            pid,
            pidStart: processStartTime(pid),
            pgid: pid,
            workspace: lease.workspace,
            deadline: o.deadline,
            claimedAt: lease.claimedAt,
            ttlSeconds: lease.ttlSeconds,
            resultFile,
            runDir,
            agent: o.agent.name,
            tools,
          });
        }
        // Logged after the journal write: from here on a crash of the bridge is recoverable.
        this.d.log.info({ ...ids, pid, adopted: o.adoptedRunDir !== undefined }, "agent started");
      },
    });
    slot.run = run;
    const p = run
      .run()
      .then((report) => {
        this.record(board, report);
        this.d.onClosed(board, report);
      })
      .catch((err: unknown) => this.d.log.fatal({ ...ids, err: describeError(err) }, "run failed outside the protocol"))
      .finally(async () => {
        this.d.active.remove(board.slug, lease.taskId);
        if (o.adoptedRunDir) await rm(o.adoptedRunDir, { recursive: true, force: true }).catch(() => undefined);
        this.inflight.delete(key);
        this.promises.delete(p);
        this.d.emit("slot:free", board);
      });
    this.promises.add(p);
  }

  private record(board: Board, r: RunReport): void {
    const m = this.d.metrics;
    if (!m) return;
    const b = board.slug;
    m.runDuration.observe({ board: b, decision: r.decision }, r.durationMs / 1000);
    if (r.close === "lease_lost" || r.decision === "lost") m.leaseLosses.inc({ board: b });
    else if (r.close === "failed" || r.close === "dead") m.closeFailures.inc({ board: b, result: r.close });
    else if (r.decision === "complete") m.completes.inc({ board: b });
    else if (r.decision === "block") m.blocks.inc({ board: b, cause: r.cause ?? "unknown" });
  }
}
