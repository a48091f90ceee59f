// The Daemon handle: discovery → claim → run, one seat limit across boards, restart recovery,
// two-phase shutdown. `done` settles when stopped (or, with `once`, when nothing is left to do).
import { randomUUID } from "node:crypto";
import { EventEmitter } from "node:events";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import type { AgentAdapter } from "../agents/port.js";
import { type Board, BoardNotFound, NotClaimable, TaskNotFound, UsageError } from "../board/index.js";
import type { Config } from "../config/schema.js";
import { readyTaskFromLine, superviseWatch } from "../discovery/watcher.js";
import { describeError } from "../errors/index.js";
import type { Logger } from "../log/logger.js";
import type { Metrics } from "../observe/metrics.js";
import type { Outbox } from "../outbox/outbox.js";
import { Redactor } from "../result/redact.js";
import type { Closer } from "../run/closer.js";
import { replayOutbox } from "../run/replay.js";
import type { RunReport } from "../run/task-run.js";
import { type Clock, backoffDelay, sleepUnlessAborted } from "../time/clock.js";
import { ActiveRuns } from "./active-runs.js";
import { RunLauncher } from "./launcher.js";
import { pickupLatencySeconds } from "./pickup.js";
import { recover } from "./recovery.js";
import { SeatState } from "./seat.js";
import { type StatusSnapshot, buildSnapshot, iso, writeStatusFile } from "./status.js";

export interface DaemonDeps {
  config: Config;
  boards: Board[];
  agent: AgentAdapter;
  closer: Closer;
  outbox: Outbox;
  clock: Clock;
  log: Logger;
  promptTemplate: string;
  metrics?: Metrics;
  /** Environment for verification commands (the agent's allow-list); none = empty PATH-less env. */
  gateEnv?: Record<string, string>;
  redactor?: Redactor;
  /** Checked once at start: a failure pauses the seat (no task is claimed only to fail). */
  preflight?: () => Promise<{ ok: boolean; detail: string; fix: string }>;
  once?: boolean;
}

export class Daemon extends EventEmitter {
  readonly seat: SeatState;
  readonly launcher: RunLauncher;
  private readonly loopAc = new AbortController();
  private readonly runsAc = new AbortController();
  private readonly scanning = new Set<string>();
  private readonly rescan = new Set<string>();
  private readonly wakeTimers = new Map<string, NodeJS.Timeout>();
  private readonly failures = new Map<string, number>();
  private readonly emptyScan = new Map<string, boolean>();
  private readonly lastOk = new Map<string, number>();
  private readonly errors: { at: string; what: string }[] = [];
  private orphans: { board: string; taskId: string }[] = [];
  private stopping = false;
  private started = false;
  private settle!: { resolve: () => void; reject: (e: Error) => void };
  readonly done: Promise<void>;
  private stopPromise: Promise<void> | undefined;

  constructor(private readonly d: DaemonDeps) {
    super();
    this.seat = new SeatState(d.clock, d.config.seat.limitMarginSeconds * 1000);
    this.done = new Promise<void>((resolve, reject) => {
      this.settle = { resolve, reject };
    });
    this.launcher = new RunLauncher({
      config: d.config,
      closer: d.closer,
      clock: d.clock,
      log: d.log,
      promptTemplate: d.promptTemplate,
      active: new ActiveRuns(join(d.config.stateDir, "active")),
      shutdown: this.runsAc.signal,
      metrics: d.metrics,
      emit: (event, payload) => {
        if (event === "slot:free") {
          for (const b of this.d.boards) this.wake(b, 0);
          this.checkIdle();
        } else this.emit(event, payload);
      },
      onClosed: (board, report) => this.finished(board, report),
      gateEnv: d.gateEnv ?? {},
      redactor: d.redactor ?? new Redactor(),
    });
  }

  get inflight(): Map<string, unknown> {
    return this.launcher.inflight;
  }

  async start(): Promise<void> {
    mkdirSync(this.d.config.stateDir, { recursive: true, mode: 0o700 });
    const boards = new Map(this.d.boards.map((b) => [b.slug, b]));
    const rec = await recover({ active: new ActiveRuns(join(this.d.config.stateDir, "active")), boards, closer: this.d.closer, launcher: this.launcher, assignee: this.d.config.assignee, clock: this.d.clock, log: this.d.log });
    this.orphans = rec.orphans;
    const replayed = await replayOutbox(this.d.outbox, this.d.closer, (e) => e.state === "pending").catch((err: unknown) => {
      this.noteError(`outbox replay at start: ${describeError(err)}`);
      return [];
    });
    for (const r of replayed) this.d.log.info({ task_id: r.entry.taskId, run_id: r.entry.runId, result: r.result }, "outbox entry replayed");
    if (this.d.preflight) {
      const p = await this.d.preflight();
      if (!p.ok) {
        this.seat.pauseForAuth(`${p.detail} — fix: ${p.fix}`);
        this.noteError(`agent pre-flight failed: ${p.detail}`);
        this.d.log.error({ detail: p.detail, fix: p.fix }, "agent pre-flight failed: the seat claims nothing until it is fixed (see `hermes-bridge doctor`)");
      }
    }
    this.started = true;
    const c = this.d.config;
    for (const board of this.d.boards) {
      if (!this.d.once && c.discovery.watch) {
        void superviseWatch({
          board,
          assignee: c.assignee,
          signal: this.loopAc.signal,
          clock: this.d.clock,
          maxBackoffMs: c.discovery.watchRestartMaxSeconds * 1000,
          onLine: (line) => {
            const id = readyTaskFromLine(line);
            if (id) void this.tryClaim(board, id).catch(() => this.wake(board, 0));
            this.wake(board);
          },
          onRestart: () => this.wake(board, 0),
          onError: (err, ms) => {
            this.noteError(`watch ${board.slug}: ${err}`);
            this.d.log.warn({ board: board.slug, err, restart_in_ms: ms }, "watch ended; restarting");
          },
        });
      }
      if (!this.d.once) void this.sweep(board);
      this.wake(board, 0);
    }
    if (!this.d.once) void this.statusLoop();
  }

  /** First signal: stop claiming, let runs finish within the grace period, then abort and block them. */
  stop(): Promise<void> {
    this.stopPromise ??= (async () => {
      this.stopping = true;
      this.loopAc.abort(new Error("stopping"));
      for (const t of this.wakeTimers.values()) clearTimeout(t);
      this.wakeTimers.clear();
      const graceAc = new AbortController();
      const allDone = Promise.allSettled([...this.launcher.promises]).then(() => graceAc.abort());
      const graceExpired = await sleepUnlessAborted(this.d.config.shutdown.graceSeconds * 1000, graceAc.signal);
      if (graceExpired) this.runsAc.abort(new Error("shutdown grace period over"));
      await allDone;
      this.writeStatus();
      this.settle.resolve();
    })();
    return this.stopPromise;
  }

  /** Second signal: abort every run now (each is blocked with the shutdown template). */
  kill(): Promise<void> {
    this.runsAc.abort(new Error("forced shutdown"));
    return this.stop();
  }

  wake(board: Board, delayMs = this.d.config.discovery.debounceMs): void {
    if (this.stopping || this.wakeTimers.has(board.slug)) return;
    const t = setTimeout(() => {
      this.wakeTimers.delete(board.slug);
      void this.scan(board);
    }, delayMs);
    this.wakeTimers.set(board.slug, t);
  }

  /** Healthy = started, not stopping, and every board answered a call recently. */
  healthy(): boolean {
    if (!this.started || this.stopping) return false;
    const window = (this.d.config.discovery.sweepSeconds * 2 + this.d.config.hermes.callTimeoutSeconds) * 1000;
    return this.d.boards.every((b) => this.d.clock.now() - (this.lastOk.get(b.slug) ?? Number.NEGATIVE_INFINITY) <= window);
  }

  status(): StatusSnapshot {
    return buildSnapshot({
      now: this.d.clock.now(),
      config: this.d.config,
      seat: this.seat,
      metrics: this.d.metrics,
      inflight: [...this.launcher.inflight.values()],
      outbox: this.d.outbox,
      healthy: this.healthy(),
      stopping: this.stopping,
      orphans: this.orphans,
      lastErrors: this.errors,
    });
  }

  private writeStatus(): void {
    try {
      writeStatusFile(this.d.config.stateDir, this.status());
    } catch (err) {
      this.d.log.warn({ err: describeError(err) }, "could not write status.json");
    }
  }

  private async statusLoop(): Promise<void> {
    do this.writeStatus();
    while (await sleepUnlessAborted(5000, this.loopAc.signal));
  }

  private noteError(what: string): void {
    this.errors.push({ at: new Date(this.d.clock.now()).toISOString(), what });
    if (this.errors.length > 20) this.errors.shift();
  }

  private async sweep(board: Board): Promise<void> {
    while (await sleepUnlessAborted(this.d.config.discovery.sweepSeconds * 1000, this.loopAc.signal)) this.wake(board, 0);
  }

  private capacity(): number {
    return this.d.config.concurrency - this.launcher.inflight.size;
  }

  private async scan(board: Board): Promise<void> {
    if (this.scanning.has(board.slug)) {
      this.rescan.add(board.slug);
      return;
    }
    this.scanning.add(board.slug);
    try {
      if (this.stopping || this.capacity() <= 0 || this.seat.paused()) {
        // Not looked at: unknown, so `once` cannot finish on this board's account yet.
        this.emptyScan.set(board.slug, this.seat.paused() && this.launcher.inflight.size === 0);
        return;
      }
      const tasks = await board.listReady({ assignee: this.d.config.assignee });
      this.lastOk.set(board.slug, this.d.clock.now());
      let claimed = 0;
      for (const t of tasks) {
        if (this.stopping || this.capacity() <= 0 || this.seat.paused()) break;
        if (await this.tryClaim(board, t.id)) claimed += 1;
      }
      this.failures.set(board.slug, 0);
      this.emptyScan.set(board.slug, claimed === 0);
    } catch (err) {
      const n = (this.failures.get(board.slug) ?? 0) + 1;
      this.failures.set(board.slug, n);
      const delay = backoffDelay(n, { baseMs: 1000, maxMs: 60_000 });
      this.noteError(`scan ${board.slug}: ${describeError(err)}`);
      this.d.log.warn({ board: board.slug, err: describeError(err), retry_in_ms: delay }, "scan failed; backing off");
      this.emptyScan.set(board.slug, false);
      if (err instanceof BoardNotFound || err instanceof UsageError) {
        // A missing board or a rejected call will not fix itself: stop with the reason.
        this.d.log.fatal({ board: board.slug, err: describeError(err) }, "board unusable: stopping");
        this.settle.reject(err);
        void this.stop();
      } else if (this.d.once && n >= 5) this.settle.reject(new Error(`board ${board.slug} kept failing: ${describeError(err)}`, { cause: err }));
      else this.wake(board, delay);
    } finally {
      this.scanning.delete(board.slug);
      if (this.rescan.delete(board.slug)) this.wake(board, 0);
      this.checkIdle();
    }
  }

  /** Claims one task and starts its run. False when it was not ours to take (lost race, gone). */
  async tryClaim(board: Board, taskId: string): Promise<boolean> {
    const key = RunLauncher.key(board.slug, taskId);
    if (this.stopping || this.launcher.inflight.has(key) || this.capacity() <= 0 || this.seat.paused()) return false;
    const c = this.d.config;
    this.launcher.reserve(board.slug, taskId);
    let claim: Awaited<ReturnType<Board["claim"]>>;
    try {
      claim = await board.claim(taskId, c.claim.ttlSeconds);
    } catch (err) {
      this.launcher.release(board.slug, taskId);
      if (err instanceof NotClaimable || err instanceof TaskNotFound) return false;
      throw err;
    }
    this.lastOk.set(board.slug, this.d.clock.now());
    const { lease, detail } = claim;
    const traceId = randomUUID();
    const deadline = lease.claimedAt + (c.claim.ttlSeconds - c.claim.safetySeconds) * 1000;
    this.d.metrics?.claims.inc({ board: board.slug });
    const pickup = detail ? pickupLatencySeconds(detail, lease.claimedAt) : null;
    if (pickup !== null) this.d.metrics?.pickupLatency.observe({ board: board.slug }, pickup);
    this.d.log.info({ board: board.slug, task_id: taskId, run_id: lease.runId, trace_id: traceId, pickup_s: pickup }, "claimed");
    this.emit("claimed", { board: board.slug, taskId, runId: lease.runId, traceId });
    this.launcher.launch({ board, lease, detail, agent: this.d.agent, traceId, deadline });
    return true;
  }

  private finished(board: Board, r: RunReport): void {
    const level = r.close === "applied" || r.close === "already_applied" ? "info" : "warn";
    this.d.log[level]({ board: board.slug, task_id: r.taskId, run_id: r.runId, trace_id: r.traceId, decision: r.decision, close: r.close, cause: r.cause, duration_ms: r.durationMs }, "run finished");
    if (r.close === "failed" || r.close === "dead") this.noteError(`close of ${r.taskId} (run ${r.runId}) ${r.close}`);
    if (r.limit) {
      this.seat.pauseUntil(r.limit.resetsAt, `usage limit (${r.limit.kind})`);
      this.d.log.warn({ until: iso(this.seat.pausedUntil()), reason: this.seat.reason }, "seat paused");
      this.schedulePauseEnd();
    }
    if (r.authFailed) {
      this.seat.pauseForAuth();
      this.d.log.error({ reason: this.seat.reason }, "seat paused until an operator fixes authentication");
    }
    this.emit("run:closed", r);
  }

  /** Wakes the boards when a usage-limit pause ends. */
  private schedulePauseEnd(): void {
    const until = this.seat.pausedUntil();
    if (until === null || !Number.isFinite(until)) return;
    void sleepUnlessAborted(until - this.d.clock.now() + 10, this.loopAc.signal).then((elapsed) => {
      if (!elapsed) return;
      this.d.log.info({}, "seat pause over: claiming again");
      this.emit("seat:resumed");
      for (const b of this.d.boards) this.wake(b, 0);
    });
  }

  private checkIdle(): void {
    if (!this.d.once || this.launcher.inflight.size > 0 || this.scanning.size > 0 || this.wakeTimers.size > 0) return;
    if (this.d.boards.every((b) => this.emptyScan.get(b.slug) === true)) {
      this.stopping = true;
      this.loopAc.abort();
      this.writeStatus();
      this.settle.resolve();
    }
  }
}
