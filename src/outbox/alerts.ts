// The background alert sender: closes never wait on the webhook. An alert is journaled (fsync'd) and
// queued; one loop delivers the queue in order with the webhook's own retries, then reports each
// alert delivered or dead (the close's outbox entry becomes a dead letter). A full queue drops its
// oldest alert to dead. Pending alerts survive a restart (the journal is re-read at start).
import { randomUUID } from "node:crypto";
import { describeError } from "../errors/index.js";
import { sleepUnlessAborted } from "../time/clock.js";
import { Journal } from "./journal.js";
import type { AlertPayload, Alerter } from "./webhook.js";
import { statePath } from "../state/layout.js";

type AlertRecord =
  | { op: "queued"; id: string; payload: AlertPayload; at: string }
  | { op: "done"; id: string; delivered: boolean; error: string | null; at: string };

export interface AlertSenderDeps {
  alerter: Alerter;
  dir: string;
  queueSize: number;
  now: () => Date;
  onDelivered?: (p: AlertPayload) => void;
  onDead?: (p: AlertPayload, error: string) => void;
}

export class AlertSender {
  private readonly journal: Journal<AlertRecord>;
  private readonly queue: { id: string; payload: AlertPayload }[] = [];
  private readonly ac = new AbortController();
  private wake: (() => void) | undefined;
  private loop: Promise<void> | undefined;
  private idle: Promise<void> = Promise.resolve();
  private settleIdle: (() => void) | undefined;

  constructor(private readonly d: AlertSenderDeps) {
    this.journal = new Journal(statePath(d.dir, "alerts"));
  }

  get backlog(): number {
    return this.queue.length;
  }

  /** Re-queues what an earlier process left undelivered, then starts delivering. Idempotent. */
  start(): void {
    if (this.loop) return;
    const done = new Set<string>();
    const queued: { id: string; payload: AlertPayload }[] = [];
    for (const r of this.journal.read()) {
      if (r.op === "done") done.add(r.id);
      else queued.push({ id: r.id, payload: r.payload });
    }
    this.journal.rewrite(
      queued.filter((q) => !done.has(q.id)).map((q) => ({ op: "queued" as const, id: q.id, payload: q.payload, at: this.d.now().toISOString() })),
    );
    for (const q of queued) if (!done.has(q.id)) this.queue.push(q);
    this.loop = this.run();
  }

  enqueue(payload: AlertPayload): void {
    const id = randomUUID();
    this.journal.append({ op: "queued", id, payload, at: this.d.now().toISOString() });
    this.queue.push({ id, payload });
    while (this.queue.length > this.d.queueSize) {
      const dropped = this.queue.shift();
      if (dropped) this.finish(dropped, false, `alert queue full (${this.d.queueSize}): dropped undelivered`);
    }
    if (!this.settleIdle) this.idle = new Promise((r) => (this.settleIdle = r));
    const w = this.wake;
    this.wake = undefined;
    w?.();
  }

  /** Waits until the queue is empty, at most `ms`. True when everything was delivered or given up. */
  async drain(ms: number): Promise<boolean> {
    if (this.queue.length === 0) return true;
    const timer = new AbortController();
    const t = setTimeout(() => timer.abort(), ms);
    try {
      await Promise.race([this.idle, new Promise((r) => timer.signal.addEventListener("abort", r, { once: true }))]);
    } finally {
      clearTimeout(t);
    }
    return this.queue.length === 0;
  }

  async stop(): Promise<void> {
    this.ac.abort(new Error("alert sender stopped"));
    const w = this.wake;
    this.wake = undefined;
    w?.();
    await this.loop;
  }

  private async run(): Promise<void> {
    while (!this.ac.signal.aborted) {
      const next = this.queue[0];
      if (!next) {
        this.settleIdle?.();
        this.settleIdle = undefined;
        await new Promise<void>((r) => (this.wake = r));
        continue;
      }
      try {
        await this.d.alerter.send(next.payload, this.ac.signal);
        if (this.queue[0] === next) this.queue.shift();
        this.finish(next, true, null);
      } catch (err) {
        if (this.ac.signal.aborted) return; // stays journaled: delivered by the next process
        if (this.queue[0] === next) this.queue.shift();
        this.finish(next, false, describeError(err));
        await sleepUnlessAborted(100, this.ac.signal);
      }
    }
  }

  private finish(q: { id: string; payload: AlertPayload }, delivered: boolean, error: string | null): void {
    this.journal.append({ op: "done", id: q.id, delivered, error, at: this.d.now().toISOString() });
    if (delivered) this.d.onDelivered?.(q.payload);
    else this.d.onDead?.(q.payload, error ?? "undelivered");
  }
}
