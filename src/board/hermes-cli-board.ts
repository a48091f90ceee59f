// HermesCliBoard: the Board port over the real `hermes kanban` CLI. Domain verbs here; the call
// machinery (argv, env, classification, retries) in cli.ts, capabilities in capabilities.ts.
import { hostname } from "node:os";
import { LeaseLost, Transient, UsageError } from "../errors/board.js";
import { type Lease, judge, leaseFrom, openRun } from "../lease/lease.js";
import { argvText, escapeControlsDeep } from "../result/text.js";
import type { Clock } from "../time/clock.js";
import { backoffDelay, sleep, systemClock } from "../time/clock.js";
import type { VerbCall } from "./argv.js";
import { detectCapabilities } from "./capabilities.js";
import { isLeaseBoundRefusal } from "./classify.js";
import { type CliCallRecord, HermesCli, type HermesCliOptions } from "./cli.js";
import { LeaseResolver } from "./lease-resolver.js";
import { parseAttach, parseClaim, parseShow, parseTask, parseTaskList } from "./parse.js";
import type { Attachment, Board, Capabilities, CloseBlockKind, CloseOutcome, CreateTaskInput, Task, TaskDetail, WatchLine } from "./port.js";
import { watchLines } from "./watch.js";

export type { CliCallRecord };

export interface HermesCliBoardOptions extends HermesCliOptions {
  textCapBytes?: number;
  clock?: Clock;
}

export class HermesCliBoard implements Board {
  readonly slug: string;
  private readonly cli: HermesCli;
  private readonly textCap: number;
  private readonly clock: Clock;
  private caps: Promise<Capabilities> | undefined;
  private readonly resolver: LeaseResolver;

  constructor(o: HermesCliBoardOptions) {
    this.slug = o.slug;
    this.cli = new HermesCli(o);
    this.textCap = o.textCapBytes ?? 64 * 1024;
    this.clock = o.clock ?? systemClock;
    this.resolver = new LeaseResolver((id) => this.showOnce(id));
  }

  // ---- read verbs -------------------------------------------------------------------------
  listReady(q: { assignee: string }, signal?: AbortSignal): Promise<Task[]> {
    return this.list("ready", q.assignee, signal).then((tasks) =>
      tasks.sort((a, b) => b.priority - a.priority || (a.createdAt ?? 0) - (b.createdAt ?? 0) || a.id.localeCompare(b.id)),
    );
  }

  listRunning(q: { assignee: string }, signal?: AbortSignal): Promise<Task[]> {
    return this.list("running", q.assignee, signal);
  }

  private list(status: "ready" | "running", assignee: string, signal?: AbortSignal): Promise<Task[]> {
    const call: VerbCall = {
      verb: "list",
      options: [
        ["json", true],
        ["status", status],
        ["assignee", assignee],
      ],
    };
    return this.cli.retrying(
      "list",
      async () => {
        const r = await this.cli.run(call, { signal });
        return this.cli.parsed("list", undefined, r, () => parseTaskList(r.stdout));
      },
      signal,
    );
  }

  show(taskId: string, signal?: AbortSignal): Promise<TaskDetail> {
    return this.cli.retrying("show", () => this.showOnce(taskId, signal), signal);
  }

  context(taskId: string, signal?: AbortSignal): Promise<string> {
    return this.cli.retrying("context", async () => (await this.cli.run({ verb: "context", positionals: [taskId] }, { taskId, signal })).stdout, signal);
  }

  watch(q: { assignee: string; signal: AbortSignal }): AsyncIterable<WatchLine> {
    return watchLines({ ...this.cli.watchSpawn(q.assignee), signal: q.signal, board: this.slug });
  }

  async capabilities(signal?: AbortSignal): Promise<Capabilities> {
    this.caps ??= detectCapabilities(this.cli, signal).catch((err: unknown) => {
      this.caps = undefined;
      throw err;
    });
    return this.caps;
  }

  // ---- claim ------------------------------------------------------------------------------
  async claim(taskId: string, ttlSeconds: number, signal?: AbortSignal): Promise<{ lease: Lease; detail: TaskDetail | null }> {
    const claimedAt = this.clock.now();
    // No retry: a lost race is final, any other failure is the caller's backoff + rescan.
    const res = await this.cli.run({ verb: "claim", options: [["ttl", Math.max(1, Math.floor(ttlSeconds))]], positionals: [taskId] }, { taskId, signal });
    const { workspace } = this.cli.parsed("claim", taskId, res, () => parseClaim(res.stdout, taskId));
    const base: Lease = { board: this.slug, taskId, runId: null, lock: null, workspace, claimedAt, expiresAt: claimedAt + ttlSeconds * 1000, ttlSeconds };
    if (res.pid !== undefined) base.claimLock = `${hostname()}:${res.pid}`;
    let detail: TaskDetail | null = null;
    try {
      detail = await this.show(taskId, signal);
    } catch {
      return { lease: base, detail: null }; // the run id is read later; nothing is written for the lease until then
    }
    return { lease: leaseFrom(base, detail), detail };
  }

  async release(lease: Lease, reason: string, signal?: AbortSignal): Promise<void> {
    const call: VerbCall = { verb: "reclaim", options: [["reason", argvText(oneLine(reason), 500)]], positionals: [lease.taskId] };
    await this.cli.retrying("reclaim", () => this.cli.run(call, { taskId: lease.taskId, signal }), signal);
  }

  // ---- lease-bound verbs (fenced) ---------------------------------------------------------
  async heartbeat(lease: Lease, note?: string, signal?: AbortSignal, extend?: { ttlSeconds: number }): Promise<void> {
    const call: VerbCall = {
      verb: "heartbeat",
      options: [
        ["note", note ? argvText(oneLine(note), 2000) : undefined],
        ["ttl", extend ? Math.max(1, Math.floor(extend.ttlSeconds)) : undefined],
      ],
      positionals: [lease.taskId],
    };
    const fence = await this.fenceFor(lease, signal);
    try {
      await this.cli.retrying("heartbeat", () => this.cli.run(call, { taskId: lease.taskId, fence, signal }), signal);
    } catch (err) {
      throw await this.leaseAware(err, fence);
    }
  }

  async attach(lease: Lease, file: { path: string; name: string }, signal?: AbortSignal): Promise<Attachment> {
    // `attach` is not fenced by Hermes: the bridge checks the lease first, as a fenced verb would.
    const state = judge(await this.fenceFor(lease, signal), await this.show(lease.taskId, signal), null);
    if (state instanceof LeaseLost) throw state;
    const call: VerbCall = { verb: "attach", options: [["name", argvText(file.name, 200)]], positionals: [lease.taskId, file.path] };
    const r = await this.cli.retrying("attach", () => this.cli.run(call, { taskId: lease.taskId, signal }), signal);
    return this.cli.parsed("attach", lease.taskId, r, () => parseAttach(r.stdout, lease.taskId));
  }

  async complete(lease: Lease, close: { summary: string; metadata: Record<string, unknown> }, signal?: AbortSignal): Promise<CloseOutcome> {
    const metadata = JSON.stringify(escapeControlsDeep(close.metadata));
    if (Buffer.byteLength(metadata) > this.textCap)
      throw new UsageError({ verb: "complete", board: this.slug, taskId: lease.taskId }, `metadata is larger than ${this.textCap} bytes`);
    const call: VerbCall = {
      verb: "complete",
      options: [
        ["summary", argvText(close.summary, this.textCap)],
        ["metadata", metadata],
      ],
      positionals: [lease.taskId],
    };
    return this.closeCall(call, lease, "completed", signal);
  }

  async block(lease: Lease, close: { reason: string; kind?: CloseBlockKind }, signal?: AbortSignal): Promise<CloseOutcome> {
    const caps = await this.capabilities(signal).catch(() => null);
    const kind = close.kind && caps?.blockKinds.includes(close.kind) ? close.kind : undefined;
    const call: VerbCall = { verb: "block", options: [["kind", kind]], positionals: [lease.taskId, argvText(close.reason, this.textCap)] };
    return this.closeCall(call, lease, "blocked", signal);
  }

  // ---- other writes -----------------------------------------------------------------------
  async comment(taskId: string, author: string, text: string, signal?: AbortSignal): Promise<void> {
    const call: VerbCall = { verb: "comment", options: [["author", argvText(author, 200)]], positionals: [taskId, argvText(text, this.textCap)] };
    await this.cli.retrying("comment", () => this.cli.run(call, { taskId, signal }), signal);
  }

  async createIdempotent(input: CreateTaskInput, signal?: AbortSignal): Promise<Task> {
    const options: [string, string | number | boolean | undefined][] = [
      ["json", true],
      ["idempotency-key", input.key],
      ["assignee", input.assignee],
      ["body", input.body === undefined ? undefined : argvText(input.body, this.textCap)],
      ["priority", input.priority],
      ["tenant", input.tenant],
      ["workspace", input.workspace],
    ];
    for (const p of input.parents ?? []) options.push(["parent", p]);
    const call: VerbCall = { verb: "create", options, positionals: [argvText(input.title, 4096)] };
    return this.cli.retrying(
      "create",
      async () => {
        const r = await this.cli.run(call, { signal });
        return this.cli.parsed("create", undefined, r, () => parseTask(r.stdout));
      },
      signal,
    );
  }

  // ---- internals --------------------------------------------------------------------------
  /**
   * The lease every lease-bound call is fenced with. A lease whose run id was never read gets it now
   * (show --json); a claim with no run to call its own was lost before it was read, and nothing is
   * written for it — an unfenced close would land on whatever run holds the task by then.
   */
  private async fenceFor(lease: Lease, signal?: AbortSignal): Promise<Lease> {
    if (lease.runId !== null) return lease;
    const detail = await this.show(lease.taskId, signal);
    const read = leaseFrom(lease, detail, this.clock.now());
    if (read.runId !== null) return read;
    throw new LeaseLost(
      { verb: "show", board: this.slug, taskId: lease.taskId },
      { runId: null, currentStatus: detail.task.status, currentRunId: openRun(detail).runId },
    );
  }

  private async closeCall(call: VerbCall, given: Lease, closedOutcome: "completed" | "blocked", signal?: AbortSignal): Promise<CloseOutcome> {
    const lease = await this.fenceFor(given, signal);
    for (let attempt = 1; ; attempt += 1) {
      try {
        await this.cli.run(call, { taskId: lease.taskId, fence: lease, signal });
        return "applied";
      } catch (err) {
        if (isLeaseBoundRefusal(err)) {
          const state = await this.resolver.resolve(lease, closedOutcome, err);
          if (state === "already_applied") return state;
          throw state;
        }
        if (!(err instanceof Transient) || attempt > this.cli.retry.retries || signal?.aborted) throw err;
        this.cli.onRetry(call.verb, err, attempt);
        await sleep(backoffDelay(attempt, { baseMs: this.cli.retry.minDelayMs, maxMs: this.cli.retry.maxDelayMs }), signal);
        // Never retry a close blindly: re-read first, stop if it already landed or the lease is gone.
        const state = await this.resolver.check(lease, closedOutcome).catch(() => "unknown" as const);
        if (state === "already_applied") return state;
        if (state instanceof LeaseLost) throw state;
      }
    }
  }

  private async leaseAware(err: unknown, lease: Lease): Promise<unknown> {
    if (isLeaseBoundRefusal(err)) {
      const state = await this.resolver.resolve(lease, null, err).catch(() => err);
      return state === "already_applied" ? err : state;
    }
    return err;
  }

  private async showOnce(taskId: string, signal?: AbortSignal): Promise<TaskDetail> {
    const r = await this.cli.run({ verb: "show", options: [["json", true]], positionals: [taskId] }, { taskId, signal });
    return this.cli.parsed("show", taskId, r, () => parseShow(r.stdout));
  }
}

function oneLine(s: string): string {
  return s.replace(/\s+/g, " ").trim();
}
