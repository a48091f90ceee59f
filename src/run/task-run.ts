// TaskRun: one claimed task from read to close, as a state machine with one method per phase:
//   claimed → reading → preparing → working → verifying → delivering → closing → closed | lost
// Every path ends in exactly one of: complete, a templated block, or a recorded lost lease. The keeper,
// the tools endpoint and the timers come from injected factories; the session journal carries a cut
// run's session to the next run of the task.
import { mkdir, rm } from "node:fs/promises";
import { join } from "node:path";
import type { AgentEvent, Usage } from "../agents/port.js";
import type { TaskDetail } from "../board/port.js";
import type { CutReason, SessionRecord } from "../continuity/journal.js";
import { describeError } from "../errors/index.js";
import { LeaseLost } from "../errors/board.js";
import { type Lease, leaseFrom } from "../lease/lease.js";
import type { CloseResult } from "../outbox/closer.js";
import { buildMetadata } from "../result/common.js";
import type { Decision } from "../result/decision.js";
import { kindFor } from "../result/template.js";
import { sleepUnlessAborted } from "../time/clock.js";
import type { PreparedWorkspace } from "../workspace/port.js";
import { WorkspaceRefused } from "../workspace/port.js";
import { type RunStory, blockReason, bridgeInfo, cutReasonOf } from "./close-text.js";
import type { RunFacts } from "./decide.js";
import { preserveDeliverables, proseDeliverables } from "./deliverables.js";
import { deliverableBlock, internalFailure, readFailure, workspaceFinishBlock } from "./failures.js";
import { type Prepared, prepareRun } from "./prepare.js";
import { rememberRun } from "./remember.js";
import type { TaskRunDeps } from "./deps.js";
import type { RunPhase } from "./hooks.js";
import { workRun } from "./work.js";

export type { RunHooks, RunPhase } from "./hooks.js";
export type { TaskRunDeps } from "./deps.js";

export interface RunReport {
  taskId: string;
  agent: string;
  runId: number | null;
  traceId: string;
  decision: Decision["type"];
  close: CloseResult | "not_attempted";
  cause?: string;
  cut?: CutReason;
  limit?: Extract<AgentEvent, { type: "limit" }>;
  authFailed?: boolean;
  resumed: boolean;
  usage: Usage | null;
  durationMs: number;
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
    const facts: RunFacts = { outcome: null, finished: null, stop: null, deadlineAt: new Date(this.d.deadline).toISOString(), seat: this.d.seat };
    const story: RunStory = {
      traceId: this.d.traceId,
      seat: this.d.seat,
      agent: this.d.agent.name,
      model: this.d.agent.model,
      runId: this.lease.runId,
      startedAt: started,
      now: started,
      workspace: null,
      session: null,
      usage: null,
      lastNote: undefined,
      changedFiles: null,
      workspaceNote: null,
    };
    let prep: Prepared | null = null;
    let record: SessionRecord | null = null;
    let decision: Decision;
    try {
      await mkdir(dir, { recursive: true, mode: 0o700 });
      const read = await this.read();
      if ("lost" in read) decision = { type: "lost" };
      else if ("error" in read) decision = readFailure(read.error);
      else {
        this.setPhase("preparing");
        const p = await prepareRun(this.prepareInput(read.detail, read.context, dir));
        record = p.record;
        if ("decision" in p) decision = p.decision;
        else {
          prep = p;
          story.workspace = { mode: p.ws.mode, path: p.ws.local };
          this.setPhase("working");
          decision = await workRun(this.workInput(p, read.detail, facts, story));
          record = p.record;
        }
      }
      if (prep) decision = await this.deliver(decision, prep.ws, story);
    } catch (err) {
      decision = err instanceof LeaseLost ? { type: "lost" } : internalFailure(err);
    }
    story.now = this.d.clock.now();
    story.lastNote = this.lastNote;
    const cut = decision.type === "complete" ? undefined : cutReasonOf(facts, decision);
    const close = await this.close(decision, facts, story, cut ?? "failed");
    if (record) {
      try {
        rememberRun(
          this.d.continuity.journal,
          record,
          { lease: this.lease, traceId: this.d.traceId, now: this.d.clock.now(), redactor: this.d.redactor },
          { decision, close, cut, facts, story },
        );
      } catch (err) {
        this.d.hooks?.onLog?.("warn", "could not update the session journal", { task_id: this.lease.taskId, err: describeError(err) });
      }
    }
    await rm(dir, { recursive: true, force: true }).catch(() => undefined);
    const report: RunReport = {
      taskId: this.lease.taskId,
      agent: this.d.agent.name,
      runId: this.lease.runId,
      traceId: this.d.traceId,
      decision: decision.type,
      close,
      resumed: story.session?.resumed === true,
      usage: story.usage,
      durationMs: this.d.clock.now() - started,
    };
    if (cut) report.cut = cut;
    if (decision.type === "block") report.cause = decision.template.cause;
    if (facts.limit) report.limit = facts.limit;
    if (facts.authFailed) report.authFailed = true;
    return report;
  }

  private async read(): Promise<{ detail: TaskDetail; context: string } | { error: string } | { lost: true }> {
    this.setPhase("reading");
    const attempts = this.d.recheck?.attempts ?? 3;
    let lastErr: unknown;
    for (let i = 0; i < attempts; i += 1) {
      try {
        let detail = this.d.detail;
        if (!detail || this.lease.runId === null) {
          detail = await this.d.board.show(this.lease.taskId, this.d.shutdown);
          this.lease = leaseFrom(this.lease, detail, this.d.clock.now());
          // Reclaimed before its run could be read: nothing is ours to run or to close.
          if (this.lease.runId === null) return { lost: true };
        }
        const context = this.d.contextText ?? (await this.d.board.context(this.lease.taskId, this.d.shutdown));
        return { detail, context };
      } catch (err) {
        lastErr = err;
        await sleepUnlessAborted(this.d.recheck?.delayMs ?? 1000, this.d.shutdown);
      }
    }
    return { error: describeError(lastErr) };
  }

  private prepareInput(detail: TaskDetail, context: string, dir: string): Parameters<typeof prepareRun>[0] {
    return {
      lease: this.lease,
      detail,
      context,
      dir,
      agent: this.d.agent,
      workspaces: this.d.workspaces,
      continuity: this.d.continuity,
      gate: this.d.gate,
      prompts: this.d.prompts,
      author: this.d.author,
      adopted: this.d.adopted,
      signal: this.d.shutdown,
    };
  }

  private workInput(p: Prepared, detail: TaskDetail, facts: RunFacts, story: RunStory): Parameters<typeof workRun>[0] {
    return {
      ...this.d,
      lease: this.lease,
      prep: p,
      detail,
      facts,
      story,
      setPhase: (ph: RunPhase) => this.setPhase(ph),
      note: () => this.lastNote,
      setNote: (n: string) => {
        this.lastNote = n;
      },
    };
  }

  /** Deliverables of a complete are attached to the task; the workspace records its state (checkout: commit + push). */
  private async deliver(decision: Decision, ws: PreparedWorkspace, story: RunStory): Promise<Decision> {
    if (decision.type === "lost") return decision;
    this.setPhase("delivering");
    let d: Decision = decision;
    if (d.type === "complete") {
      const prose = proseDeliverables(d.summary, ws, d.result.artifacts);
      d = { ...d, summary: prose.summary, result: { ...d.result, artifacts: [...d.result.artifacts, ...prose.added] } };
      const delivered = await preserveDeliverables(d.result, ws, this.lease, {
        attach: (l, f, s) => this.d.board.attach(l, f, s),
        upload: this.d.upload,
        signal: this.d.shutdown,
      });
      if (!delivered.ok) d = deliverableBlock(delivered.file, delivered.why);
      else d = { ...d, result: { ...d.result, artifacts: delivered.artifacts } };
    }
    try {
      const kind = d.type === "complete" ? "complete" : "cut";
      const fin = await ws.finish({
        kind,
        message: `${kind === "complete" ? "" : "WIP: "}${this.lease.taskId} run ${this.lease.runId ?? "?"} (${this.d.seat})`,
        signal: this.d.shutdown,
      });
      story.workspaceNote = fin.note;
      if (d.type === "complete" && fin.artifacts.length) d = { ...d, result: { ...d.result, artifacts: [...d.result.artifacts, ...fin.artifacts] } };
    } catch (err) {
      story.workspaceNote = `could not record the work: ${describeError(err)}`;
      if (d.type === "complete") d = workspaceFinishBlock(describeError(err), err instanceof WorkspaceRefused ? err.setting : "workspace");
    }
    return d;
  }

  private async close(decision: Decision, facts: RunFacts, story: RunStory, cut: CutReason): Promise<CloseResult | "not_attempted"> {
    this.setPhase("closing");
    try {
      if (decision.type === "lost") {
        await this.d.closer.recordLost(
          this.lease,
          this.d.traceId,
          new LeaseLost(
            { verb: "heartbeat", board: this.lease.board, taskId: this.lease.taskId },
            { runId: this.lease.runId, currentStatus: null, currentRunId: null },
          ),
        );
        this.setPhase("lost");
        return "lease_lost";
      }
      const bridge = bridgeInfo(story, facts.finished, facts.stop);
      const res =
        decision.type === "complete"
          ? await this.d.closer.close(
              this.lease,
              { type: "complete", summary: decision.summary, metadata: { ...buildMetadata(decision.result, bridge), ...(decision.extras ?? {}) } },
              this.d.traceId,
            )
          : await this.d.closer.close(
              this.lease,
              { type: "block", reason: blockReason(decision, story, cut, this.lease), kind: kindFor(decision.template.cause, { limit: decision.limit }) },
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
    this.d.hooks?.onPhase?.(p);
  }
}
