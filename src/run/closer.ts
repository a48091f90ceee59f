// Close durability: journal the intent (fsync) → fenced CLI call (the adapter retries transient
// failures and never repeats a close that landed) → mark. Lease lost: nothing retried, an unfenced
// comment says where the result is kept, alert. Other final failure: alert; alert failing = dead letter.
import type { Board, CloseOutcome, Lease } from "../board/port.js";
import { LeaseLost } from "../board/errors.js";
import { describeError } from "../errors/index.js";
import type { CloseIntent, Outbox, OutboxEntry } from "../outbox/outbox.js";
import type { AlertPayload, Alerter } from "../outbox/webhook.js";
import type { Redactor } from "../result/redact.js";

export type CloseResult = "applied" | "already_applied" | "lease_lost" | "failed" | "dead";

export interface CloserDeps {
  board: (slug: string) => Board;
  outbox: Outbox;
  alerter: Alerter;
  redactor: Redactor;
  author: string;
  seat: string;
  now: () => Date;
  log?: (level: "info" | "warn" | "error", msg: string, data: Record<string, unknown>) => void;
}

export class Closer {
  constructor(private readonly d: CloserDeps) {}

  async close(lease: Lease, intent: CloseIntent, traceId: string): Promise<{ result: CloseResult; entry: OutboxEntry }> {
    const entry = this.journal(lease, traceId, this.redactIntent(intent));
    return { result: await this.apply(entry, lease), entry };
  }

  /** The lease was lost while the agent ran: nothing is closed; record it, say so on the task, alert. */
  async recordLost(lease: Lease, traceId: string, err: LeaseLost): Promise<OutboxEntry> {
    const entry = this.journal(lease, traceId, {
      type: "block",
      reason: `lease lost while the agent was running (run ${lease.runId ?? "?"}); the agent was stopped and nothing was applied`,
    });
    await this.leaseLost(entry, err);
    return entry;
  }

  /** Applies an already journaled entry (first attempt, or `outbox replay`). */
  async apply(entry: OutboxEntry, lease: Lease): Promise<CloseResult> {
    const board = this.d.board(entry.board);
    let outcome: CloseOutcome;
    try {
      outcome =
        entry.intent.type === "complete"
          ? await board.complete(lease, { summary: entry.intent.summary, metadata: entry.intent.metadata })
          : await board.block(lease, entry.intent.kind ? { reason: entry.intent.reason, kind: entry.intent.kind } : { reason: entry.intent.reason });
    } catch (err) {
      if (err instanceof LeaseLost) return this.leaseLost(entry, err);
      const error = this.d.redactor.redact(describeError(err));
      this.d.log?.("error", "close failed", { task_id: entry.taskId, run_id: entry.runId, trace_id: entry.traceId, err: error });
      const alerted = await this.alert("close_failed", entry, error);
      this.d.outbox.mark(entry.id, alerted ? "failed" : "dead", { alerted, error });
      return alerted ? "failed" : "dead";
    }
    this.d.outbox.mark(entry.id, "done");
    return outcome;
  }

  private async leaseLost(entry: OutboxEntry, err: LeaseLost): Promise<CloseResult> {
    const error = this.d.redactor.redact(err.message);
    this.d.outbox.mark(entry.id, "lease_lost", { error });
    this.d.log?.("warn", "lease lost at close: result not applied", { task_id: entry.taskId, run_id: entry.runId, trace_id: entry.traceId });
    const note = this.d.redactor.redact(
      `hermes-kanban-bridge (seat ${this.d.seat}): run ${entry.runId ?? "?"} lost its lease before it could ${entry.intent.type}; ` +
        `its result was NOT applied to the board. It is kept in the bridge outbox (${this.d.outbox.path}, entry ${entry.id}, trace ${entry.traceId}).`,
    );
    try {
      await this.d.board(entry.board).comment(entry.taskId, this.d.author, note);
    } catch (cerr) {
      this.d.log?.("warn", "could not post the lease-lost comment", { task_id: entry.taskId, err: describeError(cerr) });
    }
    const alerted = await this.alert("lease_lost", entry, error);
    this.d.outbox.mark(entry.id, "lease_lost", { alerted, error });
    return "lease_lost";
  }

  async alert(event: AlertPayload["event"], entry: OutboxEntry, error: string | null): Promise<boolean> {
    const payload: AlertPayload = {
      event,
      board: entry.board,
      task_id: entry.taskId,
      run_id: entry.runId,
      trace_id: entry.traceId,
      intended_close: entry.intent,
      error,
      at: this.d.now().toISOString(),
    };
    try {
      await this.d.alerter.send(this.d.redactor.redactDeep(payload));
      return true;
    } catch (err) {
      this.d.log?.("error", "alert not delivered: entry kept as a dead letter", { task_id: entry.taskId, err: describeError(err) });
      return false;
    }
  }

  private journal(lease: Lease, traceId: string, intent: CloseIntent): OutboxEntry {
    return this.d.outbox.record({ board: lease.board, taskId: lease.taskId, runId: lease.runId, traceId, seat: this.d.seat, workspace: lease.workspace, intent });
  }

  private redactIntent(intent: CloseIntent): CloseIntent {
    if (intent.type === "complete")
      return { type: "complete", summary: this.d.redactor.redact(intent.summary), metadata: this.d.redactor.redactDeep(intent.metadata) };
    return { ...intent, reason: this.d.redactor.redact(intent.reason) };
  }
}

/** The lease an outbox entry was written under (for replay: fenced on the recorded run id). */
export function leaseOf(entry: OutboxEntry): Lease {
  return {
    board: entry.board,
    taskId: entry.taskId,
    runId: entry.runId,
    lock: null,
    workspace: entry.workspace,
    claimedAt: 0,
    expiresAt: 0,
    ttlSeconds: 0,
  };
}
