// TaskRun: one claimed task from read to close.
//   claimed → reading → working → deciding → closing → closed | lost
// Every path ends in exactly one of: complete, block, or a recorded lost lease.
import { mkdir, rm } from "node:fs/promises";
import { join } from "node:path";
import type { AgentAdapter, AgentEvent, OutcomeRequest } from "../agents/port.js";
import { type Board, type Lease, type TaskDetail, leaseFrom } from "../board/index.js";
import { LeaseLost } from "../board/errors.js";
import { describeError } from "../errors/index.js";
import { LeaseKeeper } from "../lease/keeper.js";
import { buildMetadata } from "../result/common.js";
import { kindFor, renderBlock } from "../result/template.js";
import { type Clock, sleep, sleepUnlessAborted } from "../time/clock.js";
import type { CloseResult, Closer } from "./closer.js";
import { changesSince, snapshot } from "../gate/changes.js";
import { Redactor } from "../result/redact.js";
import { ToolHost } from "../tools/host.js";
import { ToolSocketServer } from "../tools/socket.js";
import { type GateConfig, type GatedDecision, applyGate, dirtyBlock } from "../gate/gate.js";
import { runVerification, verificationFromBody } from "../gate/verification.js";
import { type RunFacts, type Stop, decide } from "./decide.js";
import { renderPrompt, writeContextFile } from "./prompt.js";

export type RunPhase = "claimed" | "reading" | "working" | "verifying" | "deciding" | "closing" | "closed" | "lost";

export interface RunReport {
  taskId: string;
  runId: number | null;
  traceId: string;
  decision: GatedDecision["type"];
  close: CloseResult | "not_attempted";
  cause?: string;
  limit?: Extract<AgentEvent, { type: "limit" }>;
  authFailed?: boolean;
  durationMs: number;
}

export interface TaskRunDeps {
  board: Board;
  lease: Lease;
  detail: TaskDetail | null;
  agent: AgentAdapter;
  closer: Closer;
  clock: Clock;
  seat: string;
  traceId: string;
  heartbeatMs: number;
  /** Epoch ms by which the agent must have finished. */
  deadline: number;
  runsDir: string;
  promptTemplate: string;
  /** Aborted by the daemon on forced shutdown. */
  shutdown: AbortSignal;
  recheck?: { attempts: number; delayMs: number };
  onPhase?: (phase: RunPhase) => void;
  onHeartbeat?: () => void;
  onAgentEvent?: (e: AgentEvent) => void;
  /** The agent process is up: enough to find it again after a bridge restart. */
  onStarted?: (info: { pid: number; resultFile: string; runDir: string; tools: { path: string; token: string } | null }) => void;
  /** An adopted run's tools endpoint: served again at the same path with the same token. */
  toolsEndpoint?: { path: string; token: string };
  onHeartbeatFailure?: () => void;
  author?: string;
  redactor?: Redactor;
  /** The success gate: verification commands, changed files, workspace hygiene. */
  gate?: { config: GateConfig; env: Record<string, string> };
}

export class TaskRun {
  phase: RunPhase = "claimed";
  lastNote: string | undefined;
  private lease: Lease;

  constructor(private readonly d: TaskRunDeps) {
    this.lease = d.lease;
  }

  async run(): Promise<RunReport> {
    const started = this.d.clock.now();
    const dir = join(this.d.runsDir, `${this.lease.taskId}-${this.lease.runId ?? "x"}-${this.d.traceId.slice(0, 8)}`);
    await mkdir(dir, { recursive: true, mode: 0o700 });
    const facts: RunFacts = { outcome: null, finished: null, stop: null, deadlineAt: new Date(this.d.deadline).toISOString(), seat: this.d.seat };
    let decision: GatedDecision;
    const read = await this.read();
    if ("error" in read) {
      decision = {
        type: "block",
        limit: false,
        template: {
          cause: "environment",
          what_happened: `After the claim the bridge could not read the task from the board: ${read.error}`,
          options: ["unblock to retry", "check the board and the hermes CLI first"],
          recommendation: "Check the board answers (`hermes-bridge doctor`), then unblock.",
          next_action: "Verify the board is reachable, then unblock this task.",
        },
      };
    } else {
      const verdict = await this.work(dir, read.detail, read.context, facts);
      this.setPhase("deciding");
      // A stop (deadline, lease, shutdown) during verification overrides the gate's verdict.
      decision = facts.stop !== null || verdict === null ? decide(facts) : verdict;
    }
    const close = await this.close(decision, facts, started);
    await rm(dir, { recursive: true, force: true }).catch(() => undefined);
    const report: RunReport = {
      taskId: this.lease.taskId,
      runId: this.lease.runId,
      traceId: this.d.traceId,
      decision: decision.type,
      close,
      durationMs: this.d.clock.now() - started,
    };
    if (decision.type === "block") report.cause = decision.template.cause;
    if (facts.limit) report.limit = facts.limit;
    if (facts.authFailed) report.authFailed = true;
    return report;
  }

  private async read(): Promise<{ detail: TaskDetail; context: string } | { error: string }> {
    this.setPhase("reading");
    const attempts = this.d.recheck?.attempts ?? 3;
    let lastErr: unknown;
    for (let i = 0; i < attempts; i += 1) {
      try {
        let detail = this.d.detail;
        if (!detail || this.lease.runId === null) {
          detail = await this.d.board.show(this.lease.taskId);
          this.lease = leaseFrom(this.lease, detail);
        }
        const context = await this.d.board.context(this.lease.taskId);
        return { detail, context };
      } catch (err) {
        lastErr = err;
        await sleep(this.d.recheck?.delayMs ?? 1000).catch(() => undefined);
      }
    }
    return { error: describeError(lastErr) };
  }

  private async work(dir: string, detail: TaskDetail, contextText: string, facts: RunFacts): Promise<GatedDecision | null> {
    this.setPhase("working");
    const g = this.d.gate;
    const ws = this.lease.workspace;
    const before = g ? await snapshot(ws, g.env) : null;
    if (g && before?.kind === "git" && before.dirty.length > 0 && !g.config.allowDirty) return dirtyBlock(ws, before.dirty);
    const contextFile = join(dir, "context.json");
    const resultFile = join(dir, "outcome.json");
    await writeContextFile(contextFile, detail, contextText, this.lease.runId);
    const prompt = renderPrompt(this.d.promptTemplate, { detail, contextText, workspace: this.lease.workspace, contextFile, resultFile });
    const agentAc = new AbortController();
    const stop = (why: Stop, detailText?: string) => {
      if (facts.stop === null) {
        facts.stop = why;
        if (detailText) facts.stopDetail = detailText;
      }
      agentAc.abort(new Error(why ?? "stopped"));
    };
    const onShutdown = () => stop("shutdown");
    if (this.d.shutdown.aborted) onShutdown();
    else this.d.shutdown.addEventListener("abort", onShutdown, { once: true });
    const keeper = new LeaseKeeper({
      board: this.d.board,
      lease: this.lease,
      intervalMs: this.d.heartbeatMs,
      ...(this.d.recheck ? { recheckAttempts: this.d.recheck.attempts, recheckDelayMs: this.d.recheck.delayMs } : {}),
      note: () => this.lastNote,
      onLost: () => stop("lease_lost"),
      onUnresolved: (err) => stop("unresolved", describeError(err)),
      ...(this.d.onHeartbeat ? { onHeartbeat: this.d.onHeartbeat } : {}),
      ...(this.d.onHeartbeatFailure ? { onFailure: this.d.onHeartbeatFailure } : {}),
    });
    const timerAc = new AbortController();
    void sleepUnlessAborted(this.d.deadline - this.d.clock.now(), timerAc.signal).then((elapsed) => {
      if (elapsed) stop("deadline");
    });
    keeper.start();
    const tools = this.d.agent.usesTools ? await this.startTools(dir) : null;
    try {
      for await (const e of this.d.agent.run({
        taskId: this.lease.taskId,
        runId: this.lease.runId,
        workspace: this.lease.workspace,
        prompt,
        contextFile,
        resultFile,
        runDir: dir,
        signal: agentAc.signal,
        ...(tools ? { tools: { socketPath: tools.server.path, token: tools.server.token, call: (n: string, a: unknown) => tools.host.call(n, a) } } : {}),
      })) {
        this.d.onAgentEvent?.(e);
        if (e.type === "started" && e.pid !== undefined)
          this.d.onStarted?.({ pid: e.pid, resultFile, runDir: dir, tools: tools ? { path: tools.server.path, token: tools.server.token } : null });
        this.onEvent(e, facts, stop);
      }
      if (tools) {
        // Requests made through the tools; an outcome file (command agent) would take precedence.
        tools.host.end();
        facts.outcome ??= tools.host.request;
      }
      if (g && facts.stop === null) {
        const pre = decide(facts);
        if (pre.type !== "complete") return null;
        // Verification counts against the deadline and runs while the lease keeper heartbeats.
        this.setPhase("verifying");
        const commands = [...g.config.commands, ...verificationFromBody(detail.task.body)];
        const verification = await runVerification(commands, {
          cwd: ws,
          env: g.env,
          timeoutMs: g.config.timeoutSeconds * 1000,
          tailChars: g.config.outputTailChars,
          signal: agentAc.signal,
        });
        const ch = before ? await changesSince(ws, before, g.env) : null;
        return applyGate(pre, { verification, changedFiles: ch?.files ?? null, diffStat: ch?.diffStat ?? null }, g.config);
      }
      return null;
    } finally {
      tools?.host.end();
      await tools?.server.close();
      timerAc.abort();
      await keeper.stop();
      this.d.shutdown.removeEventListener("abort", onShutdown);
    }
  }

  private async startTools(dir: string): Promise<{ host: ToolHost; server: ToolSocketServer }> {
    const host = new ToolHost({
      board: this.d.board,
      lease: this.lease,
      author: this.d.author ?? this.d.seat,
      redactor: this.d.redactor ?? new Redactor(),
      onNote: (n) => {
        this.lastNote = n;
      },
    });
    const ep = this.d.toolsEndpoint;
    const server = ep ? new ToolSocketServer(ep.path, host, ep.token) : new ToolSocketServer(join(dir, "tools.sock"), host);
    await server.listen();
    return { host, server };
  }

  private onEvent(e: AgentEvent, facts: RunFacts, stop: (why: Stop) => void): void {
    switch (e.type) {
      case "progress":
        this.lastNote = e.note;
        break;
      case "outcome":
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
        stop(null);
        break;
      case "failed":
        facts.failure ??= e;
        break;
      default:
        break;
    }
  }

  private async close(decision: GatedDecision, facts: RunFacts, started: number): Promise<CloseResult | "not_attempted"> {
    this.setPhase("closing");
    try {
      if (decision.type === "lost") {
        await this.d.closer.recordLost(this.lease, this.d.traceId, new LeaseLost(
          { verb: "heartbeat", board: this.lease.board, taskId: this.lease.taskId },
          { runId: this.lease.runId, currentStatus: null, currentRunId: null },
        ));
        this.setPhase("lost");
        return "lease_lost";
      }
      const fin = facts.finished;
      const bridge = {
        trace_id: this.d.traceId,
        seat: this.d.seat,
        agent: this.d.agent.name,
        ...(this.d.agent.model ? { model: this.d.agent.model } : {}),
        run_id: this.lease.runId,
        started_at: new Date(started).toISOString(),
        duration_ms: this.d.clock.now() - started,
        exit: { code: fin?.exitCode ?? null, signal: fin?.signal ?? null, reason: facts.stop ?? fin?.reason ?? "unknown" },
      };
      const res =
        decision.type === "complete"
          ? await this.d.closer.close(this.lease, { type: "complete", summary: decision.summary, metadata: { ...buildMetadata(decision.result, bridge), ...(decision.extras ?? {}) } }, this.d.traceId)
          : await this.d.closer.close(
              this.lease,
              {
                type: "block",
                reason: renderBlock({ ...decision.template, what_happened: `${decision.template.what_happened} (workspace ${this.lease.workspace}, run ${this.lease.runId ?? "?"}, trace ${this.d.traceId})` }),
                kind: kindFor(decision.template.cause, { limit: decision.limit }),
              },
              this.d.traceId,
            );
      this.setPhase(res.result === "lease_lost" ? "lost" : "closed");
      return res.result;
    } catch (err) {
      // The outbox journal write itself failed: nothing more we can do than say so loudly.
      throw new Error(`closing ${this.lease.taskId} failed before it was journaled: ${describeError(err)}`, { cause: err });
    }
  }

  private setPhase(p: RunPhase): void {
    this.phase = p;
    this.d.onPhase?.(p);
  }
}

