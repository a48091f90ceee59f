// TaskRun: one claimed task from read to close, as a state machine with one method per phase:
//   claimed → reading → preparing → working → verifying → delivering → closing → closed | lost
// Every path ends in one of: complete, a templated block, a hand-back, the claim kept for this seat's
// restart, or a recorded lost lease — writing only through its fenced view (lease/fenced.ts), its state
// one record (record.ts); the session journal carries a cut run's session to the next run of the task.
import { mkdir, rm } from "node:fs/promises";
import { join } from "node:path";
import type { AgentEvent, Usage } from "../agents/port.js";
import type { Claim, ClaimCheck } from "../agents/probe.js";
import { settleClaim } from "./work/claims.js";
import type { TaskDetail } from "../board/port.js";
import type { CutReason } from "../continuity/journal.js";
import { type BoardStop, LeaseLost, Transient } from "../errors/board.js";
import { describeError } from "../errors/index.js";
import { dropSnapshot } from "../gate/changes.js";
import type { CloseResult } from "../outbox/closer.js";
import type { Decision } from "../result/decision.js";
import { sleepUnlessAborted } from "../time/clock.js";
import { confinementStory, cutReasonOf } from "./close/close-text.js";
import { spentUsage } from "./work/budget.js";
import { deliverRun } from "./close/deliver.js";
import { closeIntentOf } from "./close/close-intent.js";
import { rememberRun } from "./close/session-end.js";
import type { KeptClaim } from "./close/restart.js";
import type { Prepared, RunStart, SeatRun } from "./context.js";
import { blockFor } from "./blocks/table.js";
import { type RunPhase, RunEventsOut } from "./events.js";
import { prepareRun } from "./prepare/prepare.js";
import { RunRecord } from "./record.js";
import { workRun } from "./work/work.js";

export type { RunEvents, RunPhase, RunStarted } from "./events.js";
export type { RunStart, SeatRun } from "./context.js";

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
  /** The seat's own check of the limit or login failure the agent reported (run/work/claims.ts). */
  claimCheck?: ClaimCheck & { claim: Claim };
  /** A usage-limit cut that was handed back to the lane or parked for this seat instead of blocked. */
  handedOff?: "handoff" | "wait";
  /** A run the bridge's own stop cut: its claim kept for the restart, or handed back (shutdown.inFlight). */
  stopped?: "kept" | "handed_back";
  /** Stopped from the board by hand (a reclaim, a block, a forced review): an expected event, not a lost lease. */ onBoard?: BoardStop["action"];
  resumed: boolean;
  /** The run re-worked a task reopened after it was done (run/prepare/reopen.ts): a reopen, not a second success. */
  reopen?: boolean;
  usage: Usage | null;
  durationMs: number;
}

/** A task that cannot be read is tried this often, this far apart, before its run is blocked. */
const READ_ATTEMPTS = 3;
const READ_RETRY_MS = 1000;

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

  /** The seat's part (built once per seat) and the claim's. */
  constructor(
    private readonly seat: SeatRun,
    private readonly start: RunStart,
  ) {
    this.record = new RunRecord(start.held, {
      traceId: start.traceId,
      seat: seat.settings.seat,
      agent: start.agent.name,
      model: start.agent.model,
      startedAt: seat.clock.now(),
    });
    // A run whose agent had no jail of its own, or no cgroup capping it, says so on its card and in every block.
    Object.assign(this.record.story, confinementStory(seat.jail?.policy));
  }

  async run(): Promise<RunReport> {
    const { record } = this;
    const started = record.story.startedAt;
    const name = `${record.lease.taskId}-${record.runId ?? "x"}-${this.start.traceId.slice(0, 8)}`;
    const dir = join(this.seat.settings.runsDir, name);
    const privateDir = join(this.seat.settings.privateRoot, name);
    let prep: Prepared | null = null;
    let decision: Decision;
    try {
      await mkdir(dir, { recursive: true, mode: 0o700 });
      await mkdir(privateDir, { recursive: true, mode: 0o700 });
      const read = await this.read();
      const claimFailure = this.start.held.read.claimFailure;
      if ("lost" in read) decision = { type: "lost", lost: read.lost };
      else if ("error" in read) decision = blockFor("read_failed", read.error);
      else if (claimFailure && !(claimFailure instanceof Transient)) decision = blockFor("claim_failed", claimFailure);
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
          const { seat, start } = this;
          decision = await workRun({ seat, start, events: this.events, record, prep: p, detail: read.detail, setPhase: (ph: RunPhase) => this.setPhase(ph) });
          // A limit or a failed login the agent reported is checked before the seat acts on it.
          decision = await settleClaim(record.facts, decision, {
            policy: { check: seat.checkClaim, unconfirmedPauseMs: seat.settings.unconfirmedPauseMs, maxPauseMs: seat.settings.maxLimitPauseMs },
            detail: read.detail,
            runId: record.runId,
            now: this.seat.clock.now(),
            observes: this.start.agent.observes === true,
          });
        }
      }
      if (prep && decision.type !== "lost") {
        this.setPhase("delivering");
        decision = await deliverRun(decision, prep.ws, { seat: this.seat, start: this.start, record, privateDir });
      }
    } catch (err) {
      decision = err instanceof LeaseLost ? { type: "lost", lost: err } : blockFor("internal", err);
    } finally {
      dropSnapshot(prep?.before ?? null);
    }
    record.story.now = this.seat.clock.now();
    const cut = decision.type === "complete" ? undefined : cutReasonOf(record.facts, decision);
    const close = await this.close(decision, cut ?? "failed");
    rememberRun(record, {
      completed: decision.type === "complete" && !this.refusedInstead && !this.handedForReview && (close === "applied" || close === "already_applied"),
      cut: this.handedForReview ? "review" : (cut ?? "failed"),
      traceId: this.start.traceId,
      at: this.seat.clock.now(),
      redact: (t) => this.seat.redactor.redact(t),
      onError: (err) => this.events.tell("log", "warn", "could not update the session journal", { task_id: record.lease.taskId, err: describeError(err) }),
    });
    await rm(dir, { recursive: true, force: true }).catch(() => undefined);
    await rm(privateDir, { recursive: true, force: true }).catch(() => undefined);
    const report: RunReport = {
      taskId: record.lease.taskId,
      agent: this.start.agent.name,
      runId: record.runId,
      traceId: this.start.traceId,
      decision: this.refusedInstead ? "block" : decision.type,
      close,
      resumed: record.story.session?.resumed === true,
      usage: spentUsage(record.story.usage, record.story.egress?.api),
      durationMs: this.seat.clock.now() - started,
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
    const attempts = READ_ATTEMPTS;
    let lastErr: unknown;
    for (let i = 0; i < attempts; i += 1) {
      try {
        const claim = this.start.held.read;
        let detail = claim.detail;
        if (!detail || this.record.runId === null) {
          detail = await this.start.board.show(this.record.lease.taskId, this.seat.shutdown);
          // Reclaimed before its run could be read: nothing is ours to run or to close.
          if (this.record.runId === null) this.start.held.fenced.settle(detail);
        }
        const context = claim.contextText ?? (await this.start.board.context(this.record.lease.taskId, this.seat.shutdown));
        return { detail, context };
      } catch (err) {
        if (err instanceof LeaseLost) return { lost: err };
        lastErr = err;
        await sleepUnlessAborted(READ_RETRY_MS, this.seat.shutdown);
      }
    }
    return { error: describeError(lastErr) };
  }

  private prepareInput(detail: TaskDetail, context: string, dir: string, privateDir: string): Parameters<typeof prepareRun>[0] {
    const { seat, start } = this;
    const { settings } = seat;
    return {
      agent: start.agent,
      workspaces: seat.workspaces,
      continuity: { journal: seat.journal, ...settings.continuity },
      gate: { config: settings.gate, env: seat.gateEnv, git: seat.git },
      prompts: seat.prompts,
      skillRoots: seat.skillRoots,
      author: settings.author,
      adopted: start.adopted && { workspace: start.adopted.workspace, tools: start.adopted.tools },
      activePrGuard: start.activePrGuard,
      review: settings.review,
      steering: settings.steering,
      record: this.record,
      detail,
      context,
      dir,
      privateDir,
      signal: seat.shutdown,
    };
  }

  private async close(decision: Decision, cut: CutReason): Promise<CloseResult | "not_attempted" | "kept"> {
    this.setPhase("closing");
    const { record } = this;
    const lease = record.lease;
    try {
      if (decision.type === "lost") {
        // The board's own word on who holds the task now (the keeper's, a write's or the read's LeaseLost).
        const held = this.start.held.lost.reason;
        const lost =
          decision.lost ??
          (held instanceof LeaseLost
            ? held
            : new LeaseLost({ verb: "heartbeat", board: lease.board, taskId: lease.taskId }, { runId: lease.runId, currentStatus: null, currentRunId: null }));
        if (!(await this.seat.closer.recordLost(lease, this.start.traceId, lost))) this.onBoard = lost.stoppedBy?.action;
        this.setPhase("lost");
        return "lease_lost";
      }
      const intent = closeIntentOf(decision, {
        story: record.story,
        facts: record.facts,
        lease,
        cut,
        seat: this.seat.settings.seat,
        lane: this.seat.settings.lane,
        review: this.seat.settings.review,
        onLimit: this.seat.settings.onLimit,
        onShutdown: this.seat.settings.onShutdown,
      });
      if (intent.type === "keep") return await this.keep(intent);
      if (record.facts.stop === "shutdown" && intent.type === "release") this.stopped = "handed_back";
      else if (intent.type === "schedule" || intent.type === "release") this.handedOff = intent.type === "schedule" ? "wait" : "handoff";
      const res = await this.seat.closer.close(this.start.held.fenced, intent, this.start.traceId);
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

  /** The claim is kept for this seat's restart: a courtesy note on the card (a lost claim is lost), nothing closed (run/close/restart.ts). */
  private async keep(k: KeptClaim): Promise<"kept" | "lease_lost"> {
    const lost = await this.start.held.fenced.heartbeat(k.note).then(
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
