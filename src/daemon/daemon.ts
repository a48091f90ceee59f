// The Daemon: the scheduler (what to claim, when), the launcher (runs in flight), the seat (limit, pauses);
// restart recovery; two-phase shutdown; `done` settles when stopped (or, `once`, when nothing is left).
// It is the seat's event map (events.ts: SeatEvents); its own wiring listens to it like anyone else.
import type { AgentKind, PreflightResult } from "../agents/kinds.js";
import type { AgentAdapter } from "../agents/port.js";
import type { Board, Capabilities } from "../board/index.js";
import { Scheduler } from "../discovery/scheduler.js";
import { describeError } from "../errors/index.js";
import type { AlertSender } from "../outbox/alerts.js";
import type { Outbox } from "../outbox/outbox.js";
import { replayOutbox } from "../outbox/replay.js";
import type { RunReport } from "../run/task-run.js";
import { ensureStateDir } from "../state/dir.js";
import { sleepUnlessAborted } from "../time/clock.js";
import { admit, readCapabilities } from "./admission.js";
import { reviewSupported } from "./capability-checks.js";
import { DaemonHealth } from "./health.js";
import { SeatEventsOut, logFinished } from "./events.js";
import { Releasers } from "../log/releasers.js";
import { DEFAULT_PROTOCOL, timingFor } from "../config/timing.js";
import { type RunServices, RunLauncher } from "./launcher.js";
import { SeatPauses } from "./pauses.js";
import { preflightAtStart } from "./preflight.js";
import { recover } from "./recovery.js";
import { announceIsolation, confinementOf, seatNetwork } from "./isolation.js";
import { SeatState } from "./seat.js";
import { type BoardConditions, wireConditions } from "./board-health.js";
import { type SnapshotInput, type StatusSnapshot, buildSnapshot, iso, writeStatusFile } from "../observe/status.js";
export type { SeatEvents } from "./events.js";

export interface DaemonDeps extends RunServices {
  boards: Board[];
  agent: AgentAdapter;
  outbox: Outbox;
  alerts: AlertSender;
  kinds?: readonly AgentKind[];
  /** Stops the boards' call servers once the daemon is done. */
  closeBoards?: () => Promise<void>;
  /** How each board's calls reach the CLI (build.ts keeps it current). */
  transports?: Map<string, { mode: string; why: string }>;
  /** Boards whose database is corrupt (board-health.ts): paused, said once, resumed when they answer. */
  conditions?: BoardConditions;
  /** Checked once at start: a failure pauses the seat (no task is claimed only to fail). */
  preflight?: () => Promise<PreflightResult>;
  once?: boolean;
}

export class Daemon extends SeatEventsOut {
  readonly seat: SeatState;
  readonly launcher: RunLauncher;
  readonly scheduler: Scheduler;
  private readonly loopAc = new AbortController();
  private readonly runsAc = new AbortController();
  readonly health: DaemonHealth;
  private readonly pauses: SeatPauses;
  /** Who the seat is, for its status (read once). */
  private readonly who: SnapshotInput["who"];
  private caps = new Map<string, Capabilities | null>();
  private stopping = false;
  private started = false;
  private settle!: { resolve: () => void; reject: (e: Error) => void };
  readonly done: Promise<void>;
  private stopPromise: Promise<void> | undefined;
  /** What the start took, given back at the stop (releasers.ts). */
  private readonly releasers = new Releasers();
  private teardownPromise: Promise<void> | undefined;

  constructor(private readonly d: DaemonDeps) {
    super(d.log);
    const c = d.config;
    const t = d.seatSettings;
    this.health = new DaemonHealth(d.clock, d.log);
    const hb = timingFor(c, c.claim.ttlSeconds).heartbeatSeconds;
    this.who = { seat: c.seat.name, assignee: c.assignee, agent: c.agent.kind, boards: c.boards, heartbeatSeconds: hb };
    this.seat = new SeatState(d.clock, {
      marginMs: t.limitMarginMs,
      maxPauseMs: t.maxLimitPauseMs,
      file: SeatState.fileIn(c.stateDir),
      onSaveError: (err) => {
        this.health.noteError(describeError(err));
        d.log.error({ err: describeError(err) }, "could not save the seat's pause (it holds until this process ends)");
      },
    });
    this.pauses = new SeatPauses(this.seat, d.clock, d.log, this.loopAc.signal, this, {
      stateDir: c.stateDir,
      seatName: c.seat.name,
      boards: new Map(d.boards.map((b) => [b.slug, b])),
      check: d.checkClaim,
      maxPauseMs: t.maxLimitPauseMs,
      reachPauseMs: t.unreachablePauseMs,
    });
    this.done = new Promise<void>((resolve, reject) => {
      this.settle = { resolve, reject };
    });
    this.launcher = new RunLauncher(d, this.runsAc.signal, this);
    // The seat's own wiring, first of the listeners: the close's log, health and pauses; the next claim.
    this.on("run:closed", (r) => this.finished(r));
    this.on("seat:resumed", () => this.scheduler.resume());
    this.on("slot:freed", () => {
      void this.scheduler.slotFreed();
      this.checkIdle();
    });
    this.on("run:egress-refused", (e) => this.health.egress.note(e.host, e.port, d.clock.now(), e));
    this.on("board:event", (e) => this.launcher.boardEvent(e.board, e.taskId, e.kind));
    this.on("scan", (r) => {
      if (r.ok) this.health.boardAnswered(r.board);
      else this.health.noteError(`scan ${r.board}: ${r.error}`);
      if (!r.ok && !d.conditions?.isCorrupt(r.board)) d.log.warn({ board: r.board, err: r.error, retry_in_ms: r.retryInMs }, "scan failed; backing off");
      this.checkIdle();
    });
    this.on("watch:down", (e) => {
      this.health.noteError(`watch ${e.board}: ${e.error}`);
      if (!d.conditions?.isCorrupt(e.board)) d.log.warn({ board: e.board, err: e.error, restart_in_ms: e.restartInMs }, "watch ended; restarting");
    });
    this.scheduler = new Scheduler({
      boards: d.boards,
      assignee: c.assignee,
      clock: d.clock,
      discovery: c.discovery,
      once: d.once === true,
      scanBackoff: d.once ? { baseMs: d.retry.minDelayMs, maxMs: d.retry.maxDelayMs } : { baseMs: 1000, maxMs: 60_000 }, // a pass: a call's waits
      capacity: () => c.concurrency - this.launcher.inflight.size,
      paused: () => this.seat.paused(),
      boardPaused: (board) => d.conditions?.isCorrupt(board) === true,
      busy: (board, taskId) => this.launcher.inflight.has(RunLauncher.key(board, taskId)),
      author: c.author,
      claim: (board, taskId) => this.tryClaim(board, taskId),
      events: this,
      onFatal: (board, err) => {
        d.log.fatal({ board, err: describeError(err) }, "board unusable: stopping");
        this.settle.reject(err);
        void this.stop();
      },
    });
    if (d.conditions) wireConditions(d.conditions, { ...d, health: this.health, scheduler: this.scheduler, seat: this });
  }

  /** Runs (and claims under way) in flight now. */
  get inFlight(): number {
    return this.launcher.inflight.size;
  }

  async start(): Promise<void> {
    const c = this.d.config;
    ensureStateDir(c.stateDir);
    // Given back last-in-first-out at the stop: the boards' call servers last, the alerts' backlog first.
    this.releasers.push("the boards' call servers", () => this.d.closeBoards?.());
    this.releasers.push("the last status", () => this.writeStatus());
    await this.seat.load();
    await this.d.ledger?.load().catch((err: unknown) => this.health.noteError(`usage ledger: ${describeError(err)}`));
    this.d.alerts.start();
    // Alerts of the last closes get a short chance; undelivered ones stay journaled for the next start.
    this.releasers.push("the alerts", async () => {
      await this.d.alerts.drain(5000);
      await this.d.alerts.stop();
    });
    announceIsolation(this.d);
    const boards = new Map(this.d.boards.map((b) => [b.slug, b]));
    const rec = await recover({ ...this.d, boards, launcher: this.launcher, leases: this.launcher.leases, agent: this.d.agent });
    this.health.orphans = rec.orphans;
    const replayed = await replayOutbox(this.d.outbox, this.d.closer, (e) => e.state === "pending").catch((err: unknown) => {
      this.health.noteError(`outbox replay at start: ${describeError(err)}`);
      return [];
    });
    for (const r of replayed) this.d.log.info({ task_id: r.entry.taskId, run_id: r.entry.runId, result: r.result }, "outbox entry replayed");
    if (this.d.preflight) await preflightAtStart(this.d.preflight, this.seat, this.health, this.d.log);
    if (this.seat.paused()) {
      this.d.log.warn({ until: iso(this.seat.pausedUntil()), reason: this.seat.reason }, "seat paused (from the state dir): claiming nothing until then");
      this.pauses.wakeAtEnd();
    }
    await this.pauses.load();
    // Capabilities, not versions: read once; what differs between Hermes releases is decided here.
    this.caps = await readCapabilities(this.d.boards, this.loopAc.signal, (board, err) =>
      this.d.log.warn({ board, err: describeError(err) }, "could not read the CLI's capabilities: assuming 0.20.0's"),
    );
    for (const [board, k] of this.caps) if (k) this.d.log.info({ board, ...k }, "hermes capabilities");
    reviewSupported(this.d.config, this.caps);
    this.health.reportQuarantined();
    this.started = true;
    this.scheduler.start();
    if (!this.d.once) void this.statusLoop();
  }

  /** First signal: stop claiming, let runs finish within the grace period, then abort and block them. */
  stop(): Promise<void> {
    this.stopPromise ??= (async () => {
      this.stopping = true;
      this.scheduler.stop();
      this.loopAc.abort(new Error("stopping"));
      const graceAc = new AbortController();
      // Every run — and every claim still under way, whose run starts after this signal — ends first.
      const allDone = this.launcher.drained().then(() => graceAc.abort());
      const graceExpired = await sleepUnlessAborted(this.d.seatSettings.shutdownGraceMs, graceAc.signal);
      if (graceExpired) this.runsAc.abort(new Error("shutdown grace period over"));
      await allDone;
      await this.teardown();
    })();
    return this.stopPromise;
  }

  /** The one teardown (a stop, or --once running out of work), run once whatever calls it: `done` settles after it. */
  private teardown(): Promise<void> {
    this.teardownPromise ??= (async () => {
      const err = await this.releasers.releaseAll((releaser, e) =>
        this.d.log.error({ releaser, err: describeError(e) }, "a part of the seat could not be released at its stop"),
      );
      if (err) this.settle.reject(err instanceof Error ? err : new Error(describeError(err)));
      else this.settle.resolve();
    })();
    return this.teardownPromise;
  }

  /** Second signal: abort every run now (each is blocked with the shutdown template). */
  kill(): Promise<void> {
    this.runsAc.abort(new Error("forced shutdown"));
    return this.stop();
  }

  /** Healthy = started, not stopping, and every board answered a call recently. */
  healthy(): boolean {
    if (!this.started || this.stopping) return false;
    return this.health.boardsFresh(
      this.d.boards.map((b) => b.slug),
      this.d.seatSettings.healthWindowMs,
    );
  }

  status(): StatusSnapshot {
    return buildSnapshot({
      now: this.d.clock.now(),
      pid: process.pid,
      who: this.who,
      seat: this.seat,
      metrics: this.d.metrics,
      inflight: [...this.launcher.inflight.values()],
      outbox: this.d.outbox,
      alertsBacklog: this.d.alerts.backlog,
      healthy: this.healthy(),
      stopping: this.stopping,
      orphans: this.health.orphans,
      quarantined: this.health.quarantined,
      lastErrors: this.health.errors,
      redact: (t) => this.d.redactor.redact(t),
      transports: this.d.transports ?? new Map(),
      spend: this.launcher.spend(),
      ...confinementOf(this.d.jail),
      network: seatNetwork(this.d.jail, this.health.egress),
    });
  }

  /** Claims one task with the TTL it needs and starts its run. False when it was not ours to take. */
  tryClaim(board: Board, taskId: string): Promise<boolean> {
    return admit(
      {
        ...this.d,
        launcher: this.launcher,
        seat: this.seat,
        health: this.health,
        // Not the loop's: a claim under way at the stop may have taken effect — it ends, its run is drained.
        signal: this.runsAc.signal,
        capabilities: (b) => this.caps.get(b) ?? null,
        stopping: () => this.stopping,
        onClaimed: (e) => this.tell("claimed", e),
      },
      board,
      taskId,
    );
  }

  private writeStatus(): void {
    try {
      writeStatusFile(this.d.config.stateDir, this.status());
    } catch (err) {
      this.d.log.warn({ err: describeError(err) }, "could not write status.json");
    }
  }

  private async statusLoop(): Promise<void> {
    do {
      this.health.reportQuarantined();
      this.writeStatus();
    } while (await sleepUnlessAborted((this.d.config.protocol ?? DEFAULT_PROTOCOL).statusIntervalMs, this.loopAc.signal));
  }

  private finished(r: RunReport & { board: string }): void {
    logFinished(this.d.log, r.board, r);
    if (r.close === "failed" || r.close === "dead") this.health.noteError(`close of ${r.taskId} (run ${r.runId}) ${r.close}`);
    this.pauses.afterRun(r, r.board);
  }

  private checkIdle(): void {
    if (!this.d.once || this.launcher.inflight.size > 0 || this.scheduler.busy) return;
    if (this.d.boards.every((b) => this.scheduler.idleBoards.has(b.slug))) {
      this.stopping = true;
      this.scheduler.stop();
      this.loopAc.abort();
      void this.teardown();
    }
  }
}
