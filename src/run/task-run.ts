// TaskRun: one claimed task from read to close, as a state machine with one method per phase:
//   claimed → reading → preparing → working → verifying → delivering → closing → closed | lost
// Every path ends in one of: complete, a templated block, a hand-back, the claim kept for this seat's
// restart, or a recorded lost lease — writing only through its fenced view (lease/fenced.ts), its state
// one record (record.ts); the session journal carries a cut run's session to the next run of the task.
import { mkdir, rm } from "node:fs/promises";
import { join } from "node:path";
import type { AgentEvent, Usage } from "../agents/port.js";
import type { Claim, ClaimCheck } from "../agents/probe.js";
import { settleClaim } from "./claims.js";
import type { TaskDetail } from "../board/port.js";
import type { CutReason } from "../continuity/journal.js";
import { type BoardStop, LeaseLost, Transient } from "../errors/board.js";
import { describeError } from "../errors/index.js";
import { dropSnapshot } from "../gate/changes.js";
import type { CloseResult } from "../outbox/closer.js";
import type { Decision } from "../result/decision.js";
import { sleepUnlessAborted } from "../time/clock.js";
import type { PreparedWorkspace } from "../workspace/port.js";
import { WorkspaceRefused } from "../workspace/port.js";
import { confinementStory, cutReasonOf } from "./close-text.js";
import { spentUsage } from "./budget.js";
import { preserveDeliverables, proseDeliverables, stagingArea } from "./deliverables.js";
import { closeIntentOf } from "./close-intent.js";
import { rememberRun } from "./session-end.js";
import type { KeptClaim } from "./restart.js";
import type { TaskRunDeps } from "./deps.js";
import { claimFailureBlock, deliverableBlock, internalFailure, readFailure, workspaceFinishBlock } from "./failures.js";
import { type RunPhase, RunEventsOut } from "./events.js";
import { type Prepared, prepareRun } from "./prepare.js";
import { RunRecord } from "./record.js";
import { workRun } from "./work.js";

export type { RunEvents, RunPhase, RunStarted } from "./events.js";
export type { TaskRunDeps } from "./deps.js";

export interface RunReport {
  taskId: string;
  agent: string;
  runId: number | null;
  traceId: string;
  decision: Decision["type"];
  /** `kept`: nothing closed — the claim is kept for this seat's restart (shutdown.inFlight: continue). */
  close: CloseResult | "not_attempted" | "kept";
  cause?: string;
  cut?: CutReason;
  limit?: Extract<AgentEvent, { type: "limit" }>;
  authFailed?: boolean;
  /** The agent could not reach its API (handed back): the seat pauses until its own check gets through. */ unreachable?: string;
  /** The seat's own check of the limit or login failure the agent reported (run/claims.ts). */
  claimCheck?: ClaimCheck & { claim: Claim };
  /** A usage-limit cut that was handed back to the lane or parked for this seat instead of blocked. */
  handedOff?: "handoff" | "wait";
  /** A run the bridge's own stop cut: its claim kept for the restart, or handed back (shutdown.inFlight). */
  stopped?: "kept" | "handed_back";
  /** Stopped from the board by hand (a reclaim, a block, a forced review): an expected event, not a lost lease. */ onBoard?: BoardStop["action"];
  resumed: boolean;
  /** The run re-worked a task reopened after it was done (run/reopen.ts): a reopen, not a second success. */
  reopen?: boolean;
  usage: Usage | null;
  durationMs: number;
}

const REVIEW_FIRST = "the work was not committed or pushed: the run left its repository set to run code, and its changes stay in the workspace for review";

export class TaskRun {
  private handedOff: "handoff" | "wait" | undefined;
  private stopped: RunReport["stopped"];
  /** The board refused the complete for good: a block landed in its place (outbox/refused.ts). */ private refusedInstead = false;
  /** The cause the block that landed instead names (outbox/refusal-text.ts: a refusal of its own kind). */ private refusedCause = "human decision needed";
  private onBoard: BoardStop["action"] | undefined;
  /** The close was a review hand-off that landed: the session stays for requested changes. */ private handedForReview = false;
  readonly record: RunRecord;
  /** What the run tells its owner (events.ts); listen before `run()`. */
  readonly events = new RunEventsOut();

  constructor(private readonly d: TaskRunDeps) {
    this.record = new RunRecord(d.held, {
      traceId: d.traceId,
      seat: d.seat,
      agent: d.agent.name,
      model: d.agent.model,
      startedAt: d.clock.now(),
    });
    // A run whose agent had no jail of its own, or no cgroup capping it, says so on its card and in every block.
    Object.assign(this.record.story, confinementStory(d.jail?.policy));
  }

  async run(): Promise<RunReport> {
    const { record } = this;
    const started = record.story.startedAt;
    const name = `${record.lease.taskId}-${record.runId ?? "x"}-${this.d.traceId.slice(0, 8)}`;
    const dir = join(this.d.runsDir, name);
    const privateDir = join(this.d.privateRoot, name);
    let prep: Prepared | null = null;
    let decision: Decision;
    try {
      await mkdir(dir, { recursive: true, mode: 0o700 });
      await mkdir(privateDir, { recursive: true, mode: 0o700 });
      const read = await this.read();
      const claimFailure = this.d.held.read.claimFailure;
      if ("lost" in read) decision = { type: "lost", lost: read.lost };
      else if ("error" in read) decision = readFailure(read.error);
      else if (claimFailure && !(claimFailure instanceof Transient)) decision = claimFailureBlock(claimFailure);
      else {
        this.setPhase("preparing");
        const p = await prepareRun(this.prepareInput(read.detail, read.context, dir, privateDir));
        if ("decision" in p) decision = p.decision;
        else {
          prep = p;
          record.story.workspace = { mode: p.ws.mode, path: p.ws.local };
          if (p.input.pins?.model) record.story.model = p.input.pins.model;
          if (p.input.pins?.skills.length) record.story.skills = p.input.pins.skills.map((s) => s.name);
          this.setPhase("working");
          decision = await workRun({ ...this.d, events: this.events, record, prep: p, detail: read.detail, setPhase: (ph: RunPhase) => this.setPhase(ph) });
          // A limit or a failed login the agent reported is checked before the seat acts on it.
          decision = await settleClaim(record.facts, decision, {
            policy: this.d.claims ?? { unconfirmedPauseMs: 10 * 60_000 },
            detail: read.detail,
            runId: record.runId,
            now: this.d.clock.now(),
            observes: this.d.agent.observes === true,
          });
        }
      }
      if (prep) decision = await this.deliver(decision, prep.ws, privateDir);
    } catch (err) {
      decision = err instanceof LeaseLost ? { type: "lost", lost: err } : internalFailure(err);
    } finally {
      dropSnapshot(prep?.before ?? null);
    }
    record.story.now = this.d.clock.now();
    const cut = decision.type === "complete" ? undefined : cutReasonOf(record.facts, decision);
    const close = await this.close(decision, cut ?? "failed");
    rememberRun(record, {
      completed: decision.type === "complete" && !this.refusedInstead && !this.handedForReview && (close === "applied" || close === "already_applied"),
      cut: this.handedForReview ? "review" : (cut ?? "failed"),
      traceId: this.d.traceId,
      at: this.d.clock.now(),
      redact: (t) => this.d.redactor.redact(t),
      onError: (err) => this.events.tell("log", "warn", "could not update the session journal", { task_id: record.lease.taskId, err: describeError(err) }),
    });
    await rm(dir, { recursive: true, force: true }).catch(() => undefined);
    await rm(privateDir, { recursive: true, force: true }).catch(() => undefined);
    const report: RunReport = {
      taskId: record.lease.taskId,
      agent: this.d.agent.name,
      runId: record.runId,
      traceId: this.d.traceId,
      decision: this.refusedInstead ? "block" : decision.type,
      close,
      resumed: record.story.session?.resumed === true,
      usage: spentUsage(record.story.usage, record.story.egress?.api),
      durationMs: this.d.clock.now() - started,
    };
    if (cut) report.cut = cut;
    if (record.story.reopen) report.reopen = true;
    if (decision.type === "block") report.cause = decision.template.cause;
    if (this.refusedInstead) report.cause = this.refusedCause;
    if (record.facts.limit) report.limit = record.facts.limit;
    if (record.facts.authFailed) report.authFailed = true;
    if (decision.type === "block" && decision.unreachable) report.unreachable = record.facts.unreachable ?? record.facts.stopDetail ?? "connection errors";
    if (record.facts.claimCheck) report.claimCheck = record.facts.claimCheck;
    if (this.handedOff && (close === "applied" || close === "already_applied")) report.handedOff = this.handedOff;
    if (this.stopped && close !== "lease_lost") report.stopped = this.stopped;
    if (this.onBoard) report.onBoard = this.onBoard;
    return report;
  }

  /** The task and its context; the lease's run id is settled here, once, before anything runs. */
  private async read(): Promise<{ detail: TaskDetail; context: string } | { error: string } | { lost: LeaseLost }> {
    this.setPhase("reading");
    const attempts = this.d.recheck?.attempts ?? 3;
    let lastErr: unknown;
    for (let i = 0; i < attempts; i += 1) {
      try {
        const claim = this.d.held.read;
        let detail = claim.detail;
        if (!detail || this.record.runId === null) {
          detail = await this.d.board.show(this.record.lease.taskId, this.d.shutdown);
          // Reclaimed before its run could be read: nothing is ours to run or to close.
          if (this.record.runId === null) this.d.held.fenced.settle(detail);
        }
        const context = claim.contextText ?? (await this.d.board.context(this.record.lease.taskId, this.d.shutdown));
        return { detail, context };
      } catch (err) {
        if (err instanceof LeaseLost) return { lost: err };
        lastErr = err;
        await sleepUnlessAborted(this.d.recheck?.delayMs ?? 1000, this.d.shutdown);
      }
    }
    return { error: describeError(lastErr) };
  }

  private prepareInput(detail: TaskDetail, context: string, dir: string, privateDir: string): Parameters<typeof prepareRun>[0] {
    const { agent, workspaces, continuity, gate, prompts, skillRoots, author, adopted, activePrGuard, review, steering } = this.d;
    const from = { agent, workspaces, continuity, gate, prompts, skillRoots, author, adopted, activePrGuard, review, steering };
    return { ...from, record: this.record, detail, context, dir, privateDir, signal: this.d.shutdown };
  }

  /** Deliverables of a complete are attached to the task; the workspace records its state (checkout: commit + push). */
  private async deliver(decision: Decision, ws: PreparedWorkspace, privateDir: string): Promise<Decision> {
    if (decision.type === "lost") return decision;
    this.setPhase("delivering");
    const lease = this.record.lease;
    let d: Decision = decision;
    if (d.type === "complete") {
      const prose = proseDeliverables(d.summary, ws, d.result.artifacts);
      d = { ...d, summary: prose.summary, result: { ...d.result, artifacts: [...d.result.artifacts, ...prose.added] } };
      const delivered = await preserveDeliverables(d.result, ws, {
        attach: (f, s) => this.d.held.fenced.attach(f, s),
        upload: this.d.upload,
        staging: stagingArea(ws, privateDir, { cliOnThisHost: this.d.cliOnThisHost, upload: this.d.upload !== undefined }),
        taskId: lease.taskId,
        signal: this.d.shutdown,
        budget: this.record.tools,
      });
      if (!delivered.ok) d = deliverableBlock(delivered.file, delivered.why);
      else d = { ...d, result: { ...d.result, artifacts: delivered.artifacts } };
    }
    // A repository set to run code is left for a person to review: nothing of it is committed or pushed.
    if (this.record.facts.repositoryFound) this.record.story.workspaceNote = REVIEW_FIRST;
    else
      try {
        const kind = d.type === "complete" ? "complete" : "cut";
        const fin = await ws.finish({
          kind,
          message: `${kind === "complete" ? "" : "WIP: "}${lease.taskId} run ${lease.runId ?? "?"} (${this.d.seat})`,
          signal: this.d.shutdown,
        });
        this.record.story.workspaceNote = fin.note;
        if (d.type === "complete" && fin.artifacts.length) d = { ...d, result: { ...d.result, artifacts: [...d.result.artifacts, ...fin.artifacts] } };
      } catch (err) {
        this.record.story.workspaceNote = `could not record the work: ${describeError(err)}`;
        if (d.type === "complete") d = workspaceFinishBlock(describeError(err), err instanceof WorkspaceRefused ? err.setting : "workspace");
      }
    return d;
  }

  private async close(decision: Decision, cut: CutReason): Promise<CloseResult | "not_attempted" | "kept"> {
    this.setPhase("closing");
    const { record } = this;
    const lease = record.lease;
    try {
      if (decision.type === "lost") {
        // The board's own word on who holds the task now (the keeper's, a write's or the read's LeaseLost).
        const held = this.d.held.lost.reason;
        const lost =
          decision.lost ??
          (held instanceof LeaseLost
            ? held
            : new LeaseLost({ verb: "heartbeat", board: lease.board, taskId: lease.taskId }, { runId: lease.runId, currentStatus: null, currentRunId: null }));
        if (!(await this.d.closer.recordLost(lease, this.d.traceId, lost))) this.onBoard = lost.stoppedBy?.action;
        this.setPhase("lost");
        return "lease_lost";
      }
      const intent = closeIntentOf(decision, {
        story: record.story,
        facts: record.facts,
        lease,
        cut,
        seat: this.d.seat,
        lane: this.d.lane,
        review: this.d.review,
        onLimit: this.d.onLimit,
        onShutdown: this.d.onShutdown,
      });
      if (intent.type === "keep") return await this.keep(intent);
      if (record.facts.stop === "shutdown" && intent.type === "release") this.stopped = "handed_back";
      else if (intent.type === "schedule" || intent.type === "release") this.handedOff = intent.type === "schedule" ? "wait" : "handoff";
      const res = await this.d.closer.close(this.d.held.fenced, intent, this.d.traceId);
      this.refusedInstead = intent.type === "complete" && res.entry.intent.type === "block";
      if (this.refusedInstead && res.entry.intent.type === "block")
        this.refusedCause = /^cause: (.+)$/m.exec(res.entry.intent.reason)?.[1] ?? this.refusedCause;
      this.handedForReview = intent.type === "complete" && intent.review !== undefined && !this.refusedInstead;
      if (res.onBoard) this.onBoard = res.onBoard; // stopped by hand before the close landed: as asked, no lost lease
      this.setPhase(res.result === "lease_lost" ? "lost" : "closed");
      return res.result;
    } catch (err) {
      // The outbox journal write itself failed: nothing more we can do than say so loudly.
      throw new Error(`closing ${lease.taskId} failed before it was journaled: ${describeError(err)}`, { cause: err });
    }
  }

  /** The claim is kept for this seat's restart: a courtesy note on the card (a lost claim is lost), nothing closed (run/restart.ts). */
  private async keep(k: KeptClaim): Promise<"kept" | "lease_lost"> {
    const lost = await this.d.held.fenced.heartbeat(k.note).then(
      () => false,
      (err: unknown) => err instanceof LeaseLost || void this.events.tell("log", "warn", "could not leave the restart note", { err: describeError(err) }),
    );
    this.setPhase(lost ? "lost" : "closed");
    if (!lost) this.stopped = "kept";
    return lost ? "lease_lost" : "kept";
  }

  private setPhase(p: RunPhase): void {
    this.record.phase = p;
    this.events.tell("phase", p);
  }
}
