// The scheduler: when to look at the board and what to try to claim. Wake-ups (startup, the sweep
// timer, a watch restart, a freed slot with the watch down) run a debounced `list --json`; a failed
// scan backs off; a scan asked for while one runs is re-run after it. The watch fast path claims a
// task named by a ready-making line straight away, and ready tasks that could not be taken for lack
// of a free slot wait in `pending`, tried first when a slot frees — so while the watch is healthy a
// finished run costs no `list`, and lines about other tasks cost nothing.
import type { Board, WatchLine } from "../board/port.js";
import { boardEventKind } from "../board/index.js";
import type { DiscoveryTell } from "./events.js";
import { describeError } from "../errors/index.js";
import { BoardNotFound, CliUnavailable, UsageError } from "../errors/board.js";
import { type Clock, backoffDelay, sleepUnlessAborted } from "../time/clock.js";
import { mattersToRun } from "./run-events.js";
import { superviseWatch } from "./watcher.js";

export interface SchedulerDeps {
  boards: readonly Board[];
  assignee: string;
  clock: Clock;
  discovery: { sweepSeconds: number; watch: boolean; debounceMs: number; watchRestartMaxSeconds: number };
  /** One pass (`run --once`): no watch, no sweep. */
  once: boolean;
  /** The waits between failed scans of a board (doubling from baseMs up to maxMs). */
  scanBackoff: { baseMs: number; maxMs: number };
  /** Free slots now (seat limit minus runs in flight). */
  capacity(): number;
  paused(): boolean;
  /** The board claims nothing now (its database is corrupt): its scans only probe it. */
  boardPaused?(board: string): boolean;
  /** True when the task is in flight or being claimed here. */
  busy(board: string, taskId: string): boolean;
  /** The author of this seat's comments (its own lines never reach its runs). */
  author: string;
  /** Claims one task and starts its run; false when it was not ours to take. */
  claim(board: Board, taskId: string): Promise<boolean>;
  /** Where the scans, the watch's ups and downs and the board's events about tasks in flight are told. */
  events: DiscoveryTell;
  /** A board that cannot work (missing, rejected call, no hermes command): the daemon stops. */
  onFatal(board: string, err: Error): void;
}

export function readyTaskFromLine(line: WatchLine): string | null {
  const e = line.event;
  if (!e) return null;
  return e.readyMaking ? e.taskId : null;
}

export class Scheduler {
  private readonly ac = new AbortController();
  private readonly scanning = new Set<string>();
  private readonly rescan = new Set<string>();
  private readonly timers = new Map<string, NodeJS.Timeout>();
  private readonly failures = new Map<string, number>();
  /** Per board: ready task ids seen but not taken (no free slot), in claim order. */
  private readonly pending = new Map<string, string[]>();
  private readonly watching = new Set<string>();
  /** Per board: the last scan found nothing to claim (for `once`). */
  readonly idleBoards = new Set<string>();
  private stopped = false;

  constructor(private readonly d: SchedulerDeps) {}

  get busy(): boolean {
    return this.scanning.size > 0 || this.timers.size > 0;
  }

  /** True while the board's watch child runs (then a freed slot needs no `list`). */
  watchHealthy(board: string): boolean {
    return this.watching.has(board);
  }

  start(): void {
    for (const board of this.d.boards) {
      const watched = !this.d.once && this.d.discovery.watch;
      if (watched) void this.supervise(board);
      if (!this.d.once) void this.sweep(board);
      // With a watch, the first scan is its reconcile once it is up (or its failure): one `list`, not two.
      if (!watched) this.wake(board, 0);
    }
  }

  stop(): void {
    this.stopped = true;
    this.ac.abort(new Error("scheduler stopped"));
    for (const t of this.timers.values()) clearTimeout(t);
    this.timers.clear();
  }

  wake(board: Board, delayMs = this.d.discovery.debounceMs): void {
    if (this.stopped || this.timers.has(board.slug)) return;
    this.idleBoards.delete(board.slug);
    this.timers.set(
      board.slug,
      setTimeout(() => {
        this.timers.delete(board.slug);
        void this.scan(board);
      }, delayMs),
    );
  }

  /** A slot is free: try the tasks already known to be ready, else look at the board (unless the watch will tell). */
  async slotFreed(): Promise<void> {
    for (const board of this.d.boards) {
      if (await this.claimPending(board)) continue;
      if (this.d.once || !this.watchHealthy(board.slug)) this.wake(board, 0);
    }
  }

  /** A pause ended: look again. */
  resume(): void {
    for (const b of this.d.boards) this.wake(b, 0);
  }

  private canClaim(board?: string): boolean {
    return !this.stopped && this.d.capacity() > 0 && !this.d.paused() && !(board !== undefined && this.d.boardPaused?.(board));
  }

  private async claimPending(board: Board): Promise<boolean> {
    const ids = this.pending.get(board.slug) ?? [];
    return (await this.claimSome(board, ids, () => this.canClaim(board.slug), true)) > 0;
  }

  /**
   * Claims from `ids` (taken from its front, in the board's order) while `may` — as many at a time as there
   * are free slots: a claim and its read are a few CLI calls, and a seat with four slots and a backlog took
   * them one after another. A claim that misses (not ours) frees its slot for the next id. `quiet`: a claim
   * that fails counts as a miss; else the first failure is thrown once every claim under way has ended.
   */
  private async claimSome(board: Board, ids: string[], may: () => boolean, quiet = false): Promise<number> {
    let claimed = 0;
    let failure: { err: unknown } | null = null;
    const worker = async () => {
      while (ids.length > 0 && may() && !failure) {
        const id = ids.shift() as string;
        if (this.d.busy(board.slug, id)) continue;
        try {
          if (await this.d.claim(board, id)) claimed += 1;
        } catch (err) {
          if (!quiet) failure ??= { err };
        }
      }
    };
    await Promise.all(Array.from({ length: Math.max(1, Math.min(ids.length, this.d.capacity())) }, worker));
    if (failure) throw (failure as { err: unknown }).err;
    return claimed;
  }

  private defer(board: string, ids: readonly string[]): void {
    const list = this.pending.get(board) ?? [];
    for (const id of ids) if (!list.includes(id)) list.push(id);
    this.pending.set(board, list.slice(-200));
  }

  private async onLine(board: Board, line: WatchLine): Promise<void> {
    const e = line.event;
    if (e && this.d.busy(board.slug, e.taskId)) {
      if (mattersToRun(line, this.d.author)) this.d.events.tell("board:event", { board: board.slug, taskId: e.taskId, kind: boardEventKind(e.kind) });
      return;
    }
    const id = readyTaskFromLine(line);
    // Only a task of this seat's lane (a watch shared through the host's hub is filtered there too).
    if (!id || e?.assignee?.toLowerCase() !== this.d.assignee.toLowerCase() || this.d.busy(board.slug, id)) return;
    if (!this.canClaim(board.slug)) return this.defer(board.slug, [id]);
    // A miss (someone else was faster, not ours) costs one call; an error falls back to a scan.
    await this.d.claim(board, id).catch(() => this.wake(board, 0));
  }

  private async supervise(board: Board): Promise<void> {
    await superviseWatch({
      board,
      assignee: this.d.assignee,
      signal: this.ac.signal,
      clock: this.d.clock,
      maxBackoffMs: this.d.discovery.watchRestartMaxSeconds * 1000,
      onLine: (line) => void this.onLine(board, line),
      // watch never replays history: reconcile after every (re)start.
      onRestart: () => {
        this.watching.add(board.slug);
        this.d.events.tell("watch:up", { board: board.slug });
        this.wake(board, 0);
      },
      // The watch is down: look at the board now; its restart reconciles again once it is up.
      onError: (err, ms) => {
        this.watching.delete(board.slug);
        this.d.events.tell("watch:down", { board: board.slug, error: err, restartInMs: ms });
        this.wake(board, 0);
      },
    });
    this.watching.delete(board.slug);
  }

  private async sweep(board: Board): Promise<void> {
    while (await sleepUnlessAborted(this.d.discovery.sweepSeconds * 1000, this.ac.signal)) this.wake(board, 0);
  }

  private async scan(board: Board): Promise<void> {
    if (this.scanning.has(board.slug)) {
      this.rescan.add(board.slug);
      return;
    }
    this.scanning.add(board.slug);
    let result: { ok: true; claimed: number } | { ok: false; error: string; retryInMs: number } = { ok: true, claimed: 0 };
    try {
      if (this.canClaim()) result = await this.look(board);
      // A paused seat claims nothing: for `once` that board is done.
      else if (this.d.paused()) this.idleBoards.add(board.slug);
    } catch (err) {
      result = this.failed(board, err);
    } finally {
      this.scanning.delete(board.slug);
      if (this.rescan.delete(board.slug)) this.wake(board, 0);
    }
    // Reported once the scan is over, so a listener sees the scheduler as it is now.
    this.d.events.tell("scan", { board: board.slug, ...result });
  }

  /** One `list --json`: claim what fits, keep the rest pending. */
  private async look(board: Board): Promise<{ ok: true; claimed: number }> {
    const tasks = await board.listReady({ assignee: this.d.assignee }, this.ac.signal);
    this.pending.set(board.slug, []);
    const ids = tasks.map((t) => t.id).filter((id) => !this.d.busy(board.slug, id));
    const claimed = await this.claimSome(board, ids, () => this.canClaim());
    const left = ids.filter((id) => !this.d.busy(board.slug, id));
    this.defer(board.slug, left);
    this.failures.set(board.slug, 0);
    if (claimed === 0 && left.length === 0) this.idleBoards.add(board.slug);
    return { ok: true, claimed };
  }

  private failed(board: Board, err: unknown): { ok: false; error: string; retryInMs: number } {
    const n = (this.failures.get(board.slug) ?? 0) + 1;
    this.failures.set(board.slug, n);
    const delay = backoffDelay(n, this.d.scanBackoff);
    if (this.stopped) return { ok: false, error: describeError(err), retryInMs: 0 };
    if (err instanceof BoardNotFound || err instanceof UsageError || err instanceof CliUnavailable) this.d.onFatal(board.slug, err as Error);
    else if (this.d.once && n >= 5) this.d.onFatal(board.slug, new Error(`board ${board.slug} kept failing: ${describeError(err)}`, { cause: err }));
    else this.wake(board, delay);
    return { ok: false, error: describeError(err), retryInMs: delay };
  }
}
