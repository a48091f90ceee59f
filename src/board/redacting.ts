// Redaction at the board boundary: every text that reaches a board argv — heartbeat notes, comments,
// summaries, metadata (keys and values), block and release reasons, attachment names, created titles
// and bodies — passes the redactor here, once, whoever wrote it (the agent, the bridge's own texts, a
// replayed outbox entry). No call site has to remember it.
import type { Redactor } from "../result/redact.js";
import type {
  Attachment,
  Board,
  Capabilities,
  ClaimOptions,
  ClaimReceipt,
  CloseBlockKind,
  CreateTaskInput,
  Fence,
  Task,
  TaskDetail,
  TaskStatus,
  WatchLine,
} from "./port.js";

export class RedactingBoard implements Board {
  readonly slug: string;
  constructor(
    private readonly inner: Board,
    private readonly r: Redactor,
  ) {
    this.slug = inner.slug;
  }

  listReady(q: { assignee: string }, signal?: AbortSignal): Promise<Task[]> {
    return this.inner.listReady(q, signal);
  }
  listTasks(q: { assignee?: string | undefined; archived?: boolean | undefined }, signal?: AbortSignal): Promise<Task[]> {
    return this.inner.listTasks(q, signal);
  }

  listRunning(q: { assignee: string }, signal?: AbortSignal): Promise<Task[]> {
    return this.inner.listRunning(q, signal);
  }
  watch(q: { assignee: string; signal: AbortSignal }): AsyncIterable<WatchLine> {
    return this.inner.watch(q);
  }
  show(taskId: string, signal?: AbortSignal): Promise<TaskDetail> {
    return this.inner.show(taskId, signal);
  }
  context(taskId: string, signal?: AbortSignal): Promise<string> {
    return this.inner.context(taskId, signal);
  }
  claim(taskId: string, ttlSeconds: number, signal?: AbortSignal, o?: ClaimOptions): Promise<ClaimReceipt> {
    return this.inner.claim(taskId, ttlSeconds, signal, o);
  }
  capabilities(signal?: AbortSignal): Promise<Capabilities> {
    return this.inner.capabilities(signal);
  }
  /** Stops what the inner board keeps running (its call server), if anything. */
  close(): Promise<void> {
    return (this.inner as { close?: () => Promise<void> }).close?.() ?? Promise.resolve();
  }

  release(taskId: string, reason: string, signal?: AbortSignal): Promise<void> {
    return this.inner.release(taskId, this.r.redact(reason), signal);
  }
  heartbeat(fence: Fence, o: { note?: string | undefined; ttlSeconds?: number | undefined }, signal?: AbortSignal): Promise<void> {
    return this.inner.heartbeat(fence, { ...o, note: o.note === undefined ? undefined : this.r.redact(o.note) }, signal);
  }
  schedule(fence: Fence, close: { reason: string }, signal?: AbortSignal): Promise<void> {
    return this.inner.schedule(fence, { reason: this.r.redact(close.reason) }, signal);
  }

  unblock(taskId: string, reason: string, signal?: AbortSignal): Promise<void> {
    return this.inner.unblock(taskId, this.r.redact(reason), signal);
  }

  comment(taskId: string, author: string, text: string, signal?: AbortSignal, o?: { expectedStatus?: TaskStatus | undefined }): Promise<void> {
    return this.inner.comment(taskId, author, this.r.redact(text), signal, o);
  }
  attach(taskId: string, file: { path: string; name: string }, signal?: AbortSignal): Promise<Attachment> {
    return this.inner.attach(taskId, { path: file.path, name: this.r.redact(file.name) }, signal);
  }
  complete(fence: Fence, close: { summary: string; metadata: Record<string, unknown> }, signal?: AbortSignal): Promise<void> {
    return this.inner.complete(fence, { summary: this.r.redact(close.summary), metadata: this.r.redactDeep(close.metadata) }, signal);
  }
  requestReview(fence: Fence, close: { summary: string; metadata: Record<string, unknown>; reviewer: string | null }, signal?: AbortSignal): Promise<void> {
    return this.inner.requestReview(fence, { ...close, summary: this.r.redact(close.summary), metadata: this.r.redactDeep(close.metadata) }, signal);
  }
  block(fence: Fence, close: { reason: string; kind?: CloseBlockKind | undefined }, signal?: AbortSignal): Promise<void> {
    return this.inner.block(fence, { ...close, reason: this.r.redact(close.reason) }, signal);
  }
  createIdempotent(input: CreateTaskInput, signal?: AbortSignal): Promise<Task> {
    return this.inner.createIdempotent(
      { ...input, title: this.r.redact(input.title), ...(input.body !== undefined ? { body: this.r.redact(input.body) } : {}) },
      signal,
    );
  }
}
