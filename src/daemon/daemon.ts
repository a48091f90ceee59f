// The Daemon handle: discovery → claim → TaskRun, one seat limit across boards, two-phase shutdown.
// `done` settles when the daemon has stopped (or, with `once`, when nothing is ready or in flight).
import { randomUUID } from "node:crypto";
import { EventEmitter } from "node:events";
import { join } from "node:path";
import type { AgentAdapter } from "../agents/port.js";
import { type Board, NotClaimable, TaskNotFound } from "../board/index.js";
import type { Config } from "../config/schema.js";
import { superviseWatch, readyTaskFromLine } from "../discovery/watcher.js";
import { describeError } from "../errors/index.js";
import type { Logger } from "../log/logger.js";
import type { Outbox } from "../outbox/outbox.js";
import type { Closer } from "../run/closer.js";
import { replayOutbox } from "../run/replay.js";
import { type RunReport, TaskRun } from "../run/task-run.js";
import { type Clock, backoffDelay, sleepUnlessAborted } from "../time/clock.js";
import { SeatState } from "./seat.js";

export interface DaemonDeps {
  config: Config;
  boards: Board[];
  agent: AgentAdapter;
  closer: Closer;
  outbox: Outbox;
  clock: Clock;
  log: Logger;
  promptTemplate: string;
  once?: boolean;
}

export interface InFlight {
  board: string;
  taskId: string;
  run: TaskRun | null;
  startedAt: number;
  deadline: number;
  lastHeartbeat: number | null;
}

export class Daemon extends EventEmitter {
  readonly seat: SeatState;
  readonly inflight = new Map<string, InFlight>();
  private readonly loopAc = new AbortController();
  private readonly runsAc = new AbortController();
  private readonly scanning = new Set<string>();
  private readonly rescan = new Set<string>();
  private readonly wakeTimers = new Map<string, NodeJS.Timeout>();
  private readonly failures = new Map<string, number>();
  private readonly emptyScan = new Map<string, boolean>();
  private readonly runPromises = new Set<Promise<void>>();
  private stopping = false;
  private settle!: { resolve: () => void; reject: (e: Error) => void };
  readonly done: Promise<void>;
  private stopPromise: Promise<void> | undefined;

  constructor(private readonly d: DaemonDeps) {
    super();
    this.seat = new SeatState(d.clock);
    this.done = new Promise<void>((resolve, reject) => {
      this.settle = { resolve, reject };
    });
  }

  get boardsBySlug(): Map<string, Board> {
    return new Map(this.d.boards.map((b) => [b.slug, b]));
  }

  async start(): Promise<void> {
    const replayed = await replayOutbox(this.d.outbox, this.d.closer, (e) => e.state === "pending").catch((err: unknown) => {
      this.d.log.error({ err: describeError(err) }, "outbox replay at start failed");
      return [];
    });
    for (const r of replayed) this.d.log.info({ task_id: r.entry.taskId, run_id: r.entry.runId, result: r.result }, "outbox entry replayed");
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
          onError: (err, ms) => this.d.log.warn({ board: board.slug, err, restart_in_ms: ms }, "watch ended; restarting"),
        });
      }
      if (!this.d.once) void this.sweep(board);
      this.wake(board, 0);
    }
  }

  /** First signal: stop claiming, let runs finish within the grace period, then abort and block them. */
  stop(): Promise<void> {
    this.stopPromise ??= (async () => {
      this.stopping = true;
      this.loopAc.abort(new Error("stopping"));
      for (const t of this.wakeTimers.values()) clearTimeout(t);
      const grace = this.d.config.shutdown.graceSeconds * 1000;
      const graceAc = new AbortController();
      const allDone = Promise.allSettled([...this.runPromises]).then(() => graceAc.abort());
      const graceExpired = await sleepUnlessAborted(grace, graceAc.signal);
      if (graceExpired) this.runsAc.abort(new Error("shutdown grace period over"));
      await allDone;
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

  private async sweep(board: Board): Promise<void> {
    while (await sleepUnlessAborted(this.d.config.discovery.sweepSeconds * 1000, this.loopAc.signal)) this.wake(board, 0);
  }

  private capacity(): number {
    return this.d.config.concurrency - this.inflight.size;
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
        this.emptyScan.set(board.slug, false);
        return;
      }
      const tasks = await board.listReady({ assignee: this.d.config.assignee });
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
      this.d.log.warn({ board: board.slug, err: describeError(err), retry_in_ms: delay }, "scan failed; backing off");
      this.emptyScan.set(board.slug, false);
      if (this.d.once && n >= 5) this.settle.reject(new Error(`board ${board.slug} kept failing: ${describeError(err)}`, { cause: err }));
      else this.wake(board, delay);
    } finally {
      this.scanning.delete(board.slug);
      if (this.rescan.delete(board.slug)) this.wake(board, 0);
      this.checkIdle();
    }
  }

  /** Claims one task and starts its run. False when it was not ours to take (lost race, gone). */
  async tryClaim(board: Board, taskId: string): Promise<boolean> {
    const key = `${board.slug}/${taskId}`;
    if (this.stopping || this.inflight.has(key) || this.capacity() <= 0 || this.seat.paused()) return false;
    const c = this.d.config;
    const slot: InFlight = { board: board.slug, taskId, run: null, startedAt: this.d.clock.now(), deadline: 0, lastHeartbeat: null };
    this.inflight.set(key, slot);
    let claim: Awaited<ReturnType<Board["claim"]>>;
    try {
      claim = await board.claim(taskId, c.claim.ttlSeconds);
    } catch (err) {
      this.inflight.delete(key);
      if (err instanceof NotClaimable || err instanceof TaskNotFound) return false;
      throw err;
    }
    const { lease } = claim;
    const traceId = randomUUID();
    slot.deadline = lease.claimedAt + (c.claim.ttlSeconds - c.claim.safetySeconds) * 1000;
    this.d.log.info({ board: board.slug, task_id: taskId, run_id: lease.runId, trace_id: traceId }, "claimed");
    this.emit("claimed", { board: board.slug, taskId, runId: lease.runId, traceId });
    const run = new TaskRun({
      board,
      lease,
      detail: claim.detail,
      agent: this.d.agent,
      closer: this.d.closer,
      clock: this.d.clock,
      seat: c.assignee,
      traceId,
      heartbeatMs: c.heartbeat.intervalSeconds * 1000,
      deadline: slot.deadline,
      runsDir: join(c.stateDir, "runs"),
      promptTemplate: this.d.promptTemplate,
      shutdown: this.runsAc.signal,
      onPhase: (phase) => this.d.log.debug({ task_id: taskId, run_id: lease.runId, trace_id: traceId, phase }, "phase"),
      onHeartbeat: () => {
        slot.lastHeartbeat = this.d.clock.now();
        this.emit("heartbeat", { taskId, runId: lease.runId });
      },
    });
    slot.run = run;
    const p = run
      .run()
      .then((report) => this.finished(board, report))
      .catch((err: unknown) => this.d.log.fatal({ task_id: taskId, trace_id: traceId, err: describeError(err) }, "run failed outside the protocol"))
      .finally(() => {
        this.inflight.delete(key);
        this.runPromises.delete(p);
        // The seat's capacity is shared: every board may have work waiting for this slot.
        for (const b of this.d.boards) this.wake(b, 0);
        this.checkIdle();
      });
    this.runPromises.add(p);
    return true;
  }

  private finished(board: Board, r: RunReport): void {
    const level = r.close === "applied" || r.close === "already_applied" ? "info" : "warn";
    this.d.log[level]({ board: board.slug, task_id: r.taskId, run_id: r.runId, trace_id: r.traceId, decision: r.decision, close: r.close, cause: r.cause, duration_ms: r.durationMs }, "run finished");
    if (r.limit) this.seat.pauseUntil(r.limit.resetsAt, `usage limit (${r.limit.kind})`);
    if (r.authFailed) this.seat.pauseForAuth();
    this.emit("run:closed", r);
  }

  private checkIdle(): void {
    if (!this.d.once || this.inflight.size > 0 || this.scanning.size > 0 || this.wakeTimers.size > 0) return;
    if (this.d.boards.every((b) => this.emptyScan.get(b.slug) === true)) {
      this.stopping = true;
      this.loopAc.abort();
      this.settle.resolve();
    }
  }
}
