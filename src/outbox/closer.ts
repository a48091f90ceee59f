// Close durability: journal the intent (fsync) → the fenced close (lease/fenced.ts: transient failures
// retried, a close that landed never repeated) → mark. Lease lost at close: nothing retried, an unfenced
// comment says the result is kept, alert; lost while the agent ran: nothing written to the task, alert. Other final failure: alert. Alerts go through the
// background sender: a close never waits on the webhook; an alert that cannot be delivered turns
// the entry into a dead letter (marked by the sender). The journal and the alerts hold redacted
// text (state files and webhooks never carry a secret); the board's own boundary redacts what it posts.
import type { Board } from "../board/port.js";
import type { RetryPolicy } from "../board/retry.js";
import { withRetry } from "../board/retry.js";
import { BoardCorrupt, type BoardStop, LeaseLost } from "../errors/board.js";
import { describeError } from "../errors/index.js";
import { type CloseOutcome, type FencedBoard, fencedView } from "../lease/fenced.js";
import type { Lease, LeaseRecord } from "../lease/lease.js";
import type { Redactor } from "../result/redact.js";
import type { Clock } from "../time/clock.js";
import type { CloseIntent, Outbox, OutboxEntry } from "./outbox.js";
import { contractRefusal } from "../result/contract.js";
import { isDefinitiveRefusal, refusedCloseBlock } from "./refused.js";
import type { AlertPayload } from "./webhook.js";

/** `held`: the board's database is corrupt — the entry stays pending in the outbox until the board answers again. */
export type CloseResult = "applied" | "already_applied" | "lease_lost" | "failed" | "dead" | "held";

/** Where alerts go: queued for the background sender (`canDeliver` false: no webhook configured). */
export interface AlertSink {
  readonly canDeliver: boolean;
  enqueue(p: AlertPayload): void;
}

export interface CloserDeps {
  board: (slug: string) => Board;
  outbox: Outbox;
  alerts: AlertSink;
  redactor: Redactor;
  author: string;
  seat: string;
  now: () => Date;
  clock: Clock;
  retry: RetryPolicy;
  log?: (level: "info" | "warn" | "error", msg: string, data: Record<string, unknown>) => void;
}

/** A close's fate; `onBoard`: a person stopped the run on the board before it landed (not applied, as asked). */
export type Closed = { result: CloseResult; entry: OutboxEntry; onBoard?: BoardStop["action"] };

/** What a TaskRun needs of the closer (tests inject their own): a run closes through its own fenced view. */
export interface RunCloser {
  close(fenced: FencedBoard, intent: CloseIntent, traceId: string): Promise<Closed>;
  /** The lease was lost while the agent ran: journaled and alerted — or null, for a stop made on the board by hand. */
  recordLost(lease: Lease, traceId: string, err: LeaseLost): Promise<OutboxEntry | null>;
}

export class Closer implements RunCloser {
  constructor(private readonly d: CloserDeps) {}

  get outbox(): Outbox {
    return this.d.outbox;
  }

  /** A fenced view for a lease no run holds (an outbox replay: the lease from its entry's record). */
  fenced(lease: Lease | LeaseRecord): FencedBoard {
    return fencedView(this.d.board(lease.board), lease, { retry: this.d.retry, clock: this.d.clock, author: this.d.author });
  }

  async close(fenced: FencedBoard, intent: CloseIntent, traceId: string): Promise<Closed> {
    const entry = this.journal(fenced.lease, traceId, this.redactIntent(intent));
    const r = await this.applyEntry(entry, fenced);
    return { result: r.result, entry: r.landed, ...(r.onBoard ? { onBoard: r.onBoard } : {}) };
  }

  /**
   * The lease was lost while the agent ran: nothing is closed and nothing more is written to the task — it belongs
   * to someone else now, and its own events say why. A stop made on the board by hand (an operator's reclaim or
   * block, a forced review: LeaseLost.stoppedBy) is the board's own record and an expected event — logged, no outbox
   * entry, no alert (a forced review still gets the comment naming who moved it). Any other loss (the claim ended,
   * another took the task) is recorded in the outbox and alerted.
   */
  async recordLost(lease: Lease, traceId: string, err: LeaseLost): Promise<OutboxEntry | null> {
    const s = err.stoppedBy;
    if (!s) {
      const entry = this.journal(lease, traceId, {
        type: "block",
        reason: `lease lost while the agent was running (run ${lease.runId ?? "?"}); the agent was stopped and nothing was applied`,
      });
      await this.leaseLost(entry, err, { comment: false });
      return entry;
    }
    const ids = { task_id: lease.taskId, run_id: lease.runId, trace_id: traceId, action: s.action, by: s.by };
    this.d.log?.("info", "stopped from the board by hand: the agent was stopped and nothing of the run was applied", ids);
    // Pulled into review by someone else (`request-review --force`): the card says who moved it — the one write
    // after the loss, a comment. A reclaim or block is on the card already: the board's own record of it.
    const moved = s.action === "review" ? await this.movedToReview(lease, err) : null;
    if (moved)
      await this.say(
        lease,
        `hermes-kanban-bridge (seat ${this.d.seat}): run ${lease.runId ?? "?"} was ${moved} while its agent was working; the agent was stopped and nothing of this run was applied (its work so far stays in ${lease.workspace}).`,
      );
    return null;
  }

  /** Who moved the task to review, from the board's own record (the review event, the run's closer), or null when it is not in review. */
  private async movedToReview(entry: Pick<OutboxEntry, "board" | "taskId" | "runId">, err: LeaseLost): Promise<string | null> {
    if (err.currentStatus !== "review") return null;
    const d = await this.d
      .board(entry.board)
      .show(entry.taskId)
      .catch(() => null);
    const run = d?.runs.find((r) => r.id === entry.runId);
    const to = d?.events.findLast((e) => e.kind === "review_requested")?.review?.reviewer;
    const by = run?.closedBy ? `by ${run.closedBy.slice(0, 100)}` : "by another actor (the board records no name; not this seat)";
    return `moved to review ${by} with \`request-review --force\`${to ? `, handed to reviewer ${to.slice(0, 100)}` : ""}`;
  }

  /** A comment on the entry's task (unfenced: the task is not the run's any more); a failure is only logged. */
  private async say(entry: Pick<OutboxEntry, "board" | "taskId">, note: string): Promise<void> {
    try {
      await withRetry(() => this.d.board(entry.board).comment(entry.taskId, this.d.author, note), this.d.retry);
    } catch (cerr) {
      this.d.log?.("warn", "could not post the lease-lost comment", { task_id: entry.taskId, err: describeError(cerr) });
    }
  }

  /** Applies an already journaled entry again (`outbox replay`), fenced on the lease its entry records. */
  async apply(entry: OutboxEntry): Promise<CloseResult> {
    return (await this.applyEntry(entry, this.fenced(entry))).result;
  }

  /** …and says which entry landed (a refused close is replaced by a block). */
  private async applyEntry(entry: OutboxEntry, fenced: FencedBoard): Promise<{ result: CloseResult; landed: OutboxEntry; onBoard?: BoardStop["action"] }> {
    let outcome: CloseOutcome;
    try {
      outcome = await applyIntent(fenced, entry.intent);
    } catch (err) {
      const stop = err instanceof LeaseLost ? err.stoppedBy : undefined;
      if (stop) return { result: await this.stoppedAtClose(entry, err as LeaseLost, stop), landed: entry, onBoard: stop.action };
      if (err instanceof LeaseLost) return { result: await this.leaseLost(entry, err), landed: entry };
      if (err instanceof BoardCorrupt) return { result: this.held(entry, err), landed: entry };
      const explain = isDefinitiveRefusal(err) ? await this.contractOf(entry) : null;
      const instead = isDefinitiveRefusal(err)
        ? refusedCloseBlock(entry.intent, this.d.redactor.redact(describeError(err)), () => explain, {
            err,
            taskId: entry.taskId,
            board: entry.board,
          })
        : null;
      if (instead) return this.refused(entry, fenced, instead, err);
      const error = this.d.redactor.redact(describeError(err));
      this.d.log?.("error", "close failed", { task_id: entry.taskId, run_id: entry.runId, trace_id: entry.traceId, err: error });
      const state = this.d.alerts.canDeliver ? "failed" : "dead";
      this.d.outbox.mark(entry.id, state, { alerted: false, error });
      this.alert("close_failed", entry, error);
      return { result: state, landed: entry };
    }
    this.d.outbox.mark(entry.id, "done");
    return { result: outcome, landed: entry };
  }

  /**
   * The board's database is corrupt: nothing was decided about this close. It stays pending in the outbox
   * (its error says why) and is applied when the board answers again (the seat's board pause, daemon/
   * board-health.ts, alerts once for the board — not once per close).
   */
  private held(entry: OutboxEntry, err: BoardCorrupt): CloseResult {
    const error = this.d.redactor.redact(err.message);
    this.d.outbox.mark(entry.id, "pending", { error });
    this.d.log?.("warn", "the board's database is corrupt: the close is kept in the outbox until the board answers again", {
      task_id: entry.taskId,
      run_id: entry.runId,
      trace_id: entry.traceId,
      repair: err.repair,
    });
    return "held";
  }

  /** The task's completion contract and the board's last word on it, when they explain a refusal. */
  private async contractOf(entry: OutboxEntry): Promise<string | null> {
    try {
      const detail = await this.d.board(entry.board).show(entry.taskId);
      const why = contractRefusal(detail.task);
      return why ? this.d.redactor.redact(why) : null;
    } catch {
      return null; // the refusal itself still says what the board said
    }
  }

  /** The board refused this close for good: a templated block takes its place (the refused entry is kept). */
  private refused(entry: OutboxEntry, fenced: FencedBoard, instead: CloseIntent, err: unknown): Promise<{ result: CloseResult; landed: OutboxEntry }> {
    const error = this.d.redactor.redact(describeError(err));
    this.d.log?.("warn", "the board refused the close: blocking the task with the refusal instead", {
      task_id: entry.taskId,
      run_id: entry.runId,
      trace_id: entry.traceId,
      err: error,
    });
    this.d.outbox.mark(entry.id, "refused", { error });
    const block = this.journal(fenced.lease, entry.traceId, this.redactIntent(instead));
    return this.applyEntry(block, fenced);
  }

  /** Stopped on the board by hand after the agent finished, before its close landed — as asked: the entry dropped with why
   * (in the journal, out of the backlog), one comment saying the result was not applied and where it stays; no alert. */
  private async stoppedAtClose(entry: OutboxEntry, err: LeaseLost, s: BoardStop): Promise<CloseResult> {
    const how = `stopped from the board by hand (${s.action}${s.by ? ` by ${s.by}` : ""}) before its ${entry.intent.type} landed`;
    this.d.outbox.mark(entry.id, "dropped", { error: this.d.redactor.redact(err.message), note: `dropped: ${how}` });
    const ids = { task_id: entry.taskId, run_id: entry.runId, trace_id: entry.traceId, action: s.action, by: s.by };
    this.d.log?.("info", "stopped from the board by hand before the close: the result was not applied, as asked", ids);
    const moved = await this.movedToReview(entry, err);
    await this.say(
      entry,
      `hermes-kanban-bridge (seat ${this.d.seat}): run ${entry.runId ?? "?"} was ${moved ?? `${s.action === "reclaim" ? "reclaimed" : "blocked"} by hand`} after its agent finished; its ${entry.intent.type} was not applied, as asked (the work stays in ${entry.workspace}; the result in the outbox journal of seat ${this.d.seat}, entry ${entry.id}).`,
    );
    return "lease_lost";
  }

  /** Lost at close (`comment`: a result existed and was not applied — the task says where it is kept). */
  private async leaseLost(entry: OutboxEntry, err: LeaseLost, o = { comment: true }): Promise<CloseResult> {
    const error = this.d.redactor.redact(err.message);
    this.d.outbox.mark(entry.id, "lease_lost", { alerted: false, error });
    if (!o.comment) {
      this.d.log?.("warn", "lease lost while the agent ran: agent stopped, nothing written", {
        task_id: entry.taskId,
        run_id: entry.runId,
        trace_id: entry.traceId,
      });
      this.alert("lease_lost", entry, error);
      return "lease_lost";
    }
    this.d.log?.("warn", "lease lost at close: result not applied", { task_id: entry.taskId, run_id: entry.runId, trace_id: entry.traceId });
    const moved = await this.movedToReview(entry, err);
    const note =
      `hermes-kanban-bridge (seat ${this.d.seat}): run ${entry.runId ?? "?"} lost its lease before it could ${entry.intent.type}${moved ? ` (it was ${moved})` : ""}; ` +
      `its result was NOT applied to the board. It is kept in the outbox of seat ${this.d.seat} (entry ${entry.id}, trace ${entry.traceId}: \`hermes-bridge outbox list\`).`;
    await this.say(entry, note);
    this.alert("lease_lost", entry, error);
    return "lease_lost";
  }

  /** Queues an alert about an entry (delivery marks the entry alerted; failure makes it a dead letter). */
  alert(event: AlertPayload["event"], entry: OutboxEntry, error: string | null): void {
    this.d.alerts.enqueue(
      this.d.redactor.redactDeep({
        event,
        entry_id: entry.id,
        board: entry.board,
        task_id: entry.taskId,
        run_id: entry.runId,
        trace_id: entry.traceId,
        intended_close: entry.intent,
        error,
        at: this.d.now().toISOString(),
      }),
    );
  }

  private journal(lease: Lease, traceId: string, intent: CloseIntent): OutboxEntry {
    return this.d.outbox.record({
      board: lease.board,
      taskId: lease.taskId,
      runId: lease.runId,
      ...(lease.claimLock !== undefined ? { claimLock: lease.claimLock } : {}),
      traceId,
      seat: this.d.seat,
      workspace: lease.workspace,
      intent,
    });
  }

  private redactIntent(intent: CloseIntent): CloseIntent {
    const r = this.d.redactor;
    if (intent.type === "complete") return { ...intent, summary: r.redact(intent.summary), metadata: r.redactDeep(intent.metadata) };
    if (intent.type === "release") return { ...intent, reason: r.redact(intent.reason), comment: r.redact(intent.comment) };
    return { ...intent, reason: r.redact(intent.reason) };
  }
}

/** One close through the lease's fenced view. A hand-back says why on the task first, while it is still ours. */
async function applyIntent(fenced: FencedBoard, intent: CloseIntent): Promise<CloseOutcome> {
  switch (intent.type) {
    case "complete":
      if (intent.review) return fenced.requestReview({ summary: intent.summary, metadata: intent.metadata, reviewer: intent.review.reviewer });
      return fenced.complete({ summary: intent.summary, metadata: intent.metadata });
    case "block":
      return fenced.block({ reason: intent.reason, kind: intent.kind });
    case "schedule":
      return fenced.schedule({ reason: intent.reason });
    case "release":
      await fenced.comment(intent.comment);
      return fenced.release({ reason: intent.reason });
  }
}

/** Marks an entry after its alert's fate is known (the background sender's callbacks). */
export function markAlert(outbox: Outbox, p: AlertPayload, delivered: boolean, error?: string): void {
  if (!p.entry_id) return;
  const e = outbox.get(p.entry_id);
  if (!e) return;
  if (delivered) outbox.mark(e.id, e.state, { alerted: true });
  else if (e.state !== "done" && e.state !== "lease_lost") outbox.mark(e.id, "dead", { alerted: false, error: error ?? e.error });
  else outbox.mark(e.id, e.state, { alerted: false });
}
