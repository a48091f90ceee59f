// The fenced view of the board for one lease: the only way a run (or an outbox replay) writes to its
// task. Every write is fenced on the lease's run id (Hermes refuses it once the run is not current),
// the run id is settled once — read from `show` when the claim's read was lost — and a lease whose run
// was never found writes nothing. A refusal is told apart by reading the task (already applied: the
// answer of an earlier attempt was lost; lost: LeaseLost). Unfenced verbs (comment, attach) check
// ownership first. A close is never repeated blindly: before a retry the task is read again.
import type { Attachment, Board, CloseBlockKind, Fence, TaskDetail } from "../board/port.js";
import { withRetry, type RetryPolicy } from "../board/retry.js";
import { isLeaseBoundRefusal, isOwnershipRefusal } from "../board/classify.js";
import { LeaseLost } from "../errors/board.js";
import type { Clock } from "../time/clock.js";
import { type ClosedOutcome, type Lease, type LeaseRecord, type LeaseState, judge, leaseFrom, leaseOf, namedClaimer, openRun } from "./lease.js";

export type CloseOutcome = "applied" | "already_applied";

export interface FencedOptions {
  retry: RetryPolicy;
  clock: Clock;
  author: string;
  onRetry?: (verb: string, err: Error, attempt: number) => void;
}

/**
 * The fenced view of a lease no run holds (an outbox entry replayed, from its record): its writes, no
 * heartbeat, no deadline.
 */
export function fencedView(board: Board, lease: Lease | LeaseRecord, o: FencedOptions): FencedBoard {
  return new FencedBoard(board, "expiresAt" in lease ? lease : leaseOf(lease), o);
}

export class FencedBoard {
  private current: Lease;

  constructor(
    private readonly board: Board,
    lease: Lease,
    private readonly o: FencedOptions,
  ) {
    this.current = lease;
  }

  get lease(): Lease {
    return this.current;
  }

  /**
   * The fence of every lease-bound call. A lease whose run id was never read gets it now; a claim with
   * no run to call its own was lost before it was read, and nothing is written for it — an unfenced
   * write would land on whatever run holds the task by then.
   */
  async fence(signal?: AbortSignal): Promise<Fence> {
    if (this.current.runId !== null) return this.fenceOf(this.current.runId);
    const detail = await this.board.show(this.current.taskId, signal);
    return this.settle(detail);
  }

  private fenceOf(runId: number): Fence {
    return { taskId: this.current.taskId, runId, claimer: namedClaimer(this.current) };
  }

  /** Settles the run id from a `show` already in hand (the claim's own read). */
  settle(detail: TaskDetail): Fence {
    if (this.current.runId === null) {
      const read = leaseFrom(this.current, detail, this.o.clock.now());
      if (read.runId === null)
        throw new LeaseLost(
          { verb: "show", board: this.board.slug, taskId: this.current.taskId },
          { runId: null, currentStatus: detail.task.status, currentRunId: openRun(detail).runId },
        );
      // Our claim's run, found by its lock, but already over (reclaimed before it was read): nothing to write for.
      const state = judge(read, detail, null);
      if (state instanceof LeaseLost) throw state;
      this.current = read;
    }
    return this.fenceOf(this.current.runId as number);
  }

  show(signal?: AbortSignal): Promise<TaskDetail> {
    return this.board.show(this.current.taskId, signal);
  }

  /** Reads the task; throws LeaseLost when the run is no longer the task's current one. */
  async checkOwned(signal?: AbortSignal): Promise<TaskDetail> {
    await this.fence(signal);
    const detail = await this.show(signal);
    const state = judge(this.current, detail, null);
    if (state instanceof LeaseLost) throw state;
    return detail;
  }

  async heartbeat(note: string | undefined, o: { ttlSeconds?: number | undefined } = {}, signal?: AbortSignal): Promise<void> {
    const fence = await this.fence(signal);
    try {
      await this.retrying("heartbeat", () => this.board.heartbeat(fence, { note, ttlSeconds: o.ttlSeconds }, signal), signal);
    } catch (err) {
      throw await this.meaning(err, null, signal);
    }
  }

  /** Ownership checked first (comments are not fenced by run id); where the CLI has it, guarded on `running` too. */
  async comment(text: string, signal?: AbortSignal): Promise<void> {
    await this.checkOwned(signal);
    try {
      await this.retrying("comment", () => this.board.comment(this.current.taskId, this.o.author, text, signal, { expectedStatus: "running" }), signal);
    } catch (err) {
      throw isOwnershipRefusal(err) ? this.lost(err) : err;
    }
  }

  /** `attach` is not fenced by Hermes: ownership is checked first, as a fenced verb would be. */
  async attach(file: { path: string; name: string }, signal?: AbortSignal): Promise<Attachment> {
    await this.checkOwned(signal);
    return this.board.attach(this.current.taskId, file, signal);
  }

  complete(close: { summary: string; metadata: Record<string, unknown> }, signal?: AbortSignal): Promise<CloseOutcome> {
    return this.close("complete", "completed", (f) => this.board.complete(f, close, signal), signal);
  }

  /** A review hand-off (`request-review`): the task goes to `review`, its run ends `review_requested`. */
  requestReview(close: { summary: string; metadata: Record<string, unknown>; reviewer: string | null }, signal?: AbortSignal): Promise<CloseOutcome> {
    return this.close("request-review", "review_requested", (f) => this.board.requestReview(f, close, signal), signal);
  }

  block(close: { reason: string; kind?: CloseBlockKind | undefined }, signal?: AbortSignal): Promise<CloseOutcome> {
    return this.close("block", "blocked", (f) => this.board.block(f, close, signal), signal);
  }

  /** `schedule`: the task waits on time (this seat's usage limit) until it is unblocked. */
  schedule(close: { reason: string }, signal?: AbortSignal): Promise<CloseOutcome> {
    return this.close("schedule", "scheduled", (f) => this.board.schedule(f, close, signal), signal);
  }

  /**
   * Gives the task back to the lane (`reclaim`, which Hermes does not fence on the run id): ownership is
   * checked right before, and a retry first reads whether the earlier attempt landed.
   */
  release(close: { reason: string }, signal?: AbortSignal): Promise<CloseOutcome> {
    return this.close(
      "reclaim",
      "reclaimed",
      async () => {
        await this.checkOwned(signal);
        await this.board.release(this.current.taskId, close.reason, signal);
      },
      signal,
    );
  }

  private async close(verb: string, outcome: ClosedOutcome, call: (f: Fence) => Promise<void>, signal?: AbortSignal): Promise<CloseOutcome> {
    const fence = await this.fence(signal);
    return this.retrying(
      verb,
      async (attempt) => {
        if (attempt > 1) {
          // Never retry a close blindly: it may have landed with its answer lost, or the lease may be gone.
          const state = await this.state(outcome, signal).catch(() => "unknown" as const);
          if (state === "already_applied") return state;
          if (state instanceof LeaseLost) throw state;
        }
        try {
          await call(fence);
          return "applied" as const;
        } catch (err) {
          const meaning = await this.meaning(err, outcome, signal);
          if (meaning === "already_applied") return meaning;
          if (meaning === err && !signal?.aborted) {
            // A failure that says nothing of the close (a lost answer, a crash): read at once whether it
            // landed — before a retry waits, and before anyone else can take the task meanwhile.
            const state = await this.state(outcome, signal).catch(() => "unknown" as const);
            if (state === "already_applied") return state;
            if (state instanceof LeaseLost) throw state;
          }
          throw meaning;
        }
      },
      signal,
    );
  }

  private async state(outcome: ClosedOutcome | null, signal?: AbortSignal): Promise<LeaseState> {
    return judge(this.current, await this.show(signal), outcome);
  }

  /** What a failed lease-bound call means: a `cannot <verb>` refusal is read against the task. */
  private async meaning(err: unknown, outcome: ClosedOutcome | null, signal?: AbortSignal): Promise<unknown> {
    if (!isLeaseBoundRefusal(err)) return err;
    const state = await this.state(outcome, signal).catch(() => null);
    if (state === "already_applied" || state instanceof LeaseLost) return state;
    // The board said so itself (a claim the sweep reserved, a guard, the live-claim fence): lost, even if
    // the task still reads as ours for a moment.
    if (isOwnershipRefusal(err)) return this.lost(err);
    return err;
  }

  private lost(err: { stderrTail?: string | undefined; verb?: string }): LeaseLost {
    return new LeaseLost(
      { verb: err.verb ?? "write", board: this.board.slug, taskId: this.current.taskId, stderrTail: err.stderrTail },
      { runId: this.current.runId, currentStatus: null, currentRunId: null },
    );
  }

  private retrying<T>(verb: string, fn: (attempt: number) => Promise<T>, signal?: AbortSignal): Promise<T> {
    return withRetry(fn, this.o.retry, { signal, onRetry: (err, attempt) => this.o.onRetry?.(verb, err, attempt) });
  }
}
