// HermesCliBoard: the Board port over the real `hermes kanban` CLI (execa). The only code that
// ever talks to Hermes. Argv, env, parsing, classification and retries live in sibling files.
import type { Clock } from "../time/clock.js";
import { backoffDelay, sleep, systemClock } from "../time/clock.js";
import { type RunResult, runProcess } from "../process/runner.js";
import { type VerbCall, buildArgv, capText } from "./argv.js";
import { classify, isLeaseBoundRefusal } from "./classify.js";
import { type CliEnvOptions, buildCliEnv } from "./env.js";
import { type BoardError, LeaseLost, Transient, UsageError } from "./errors.js";
import { OutputParseError, openRun, parseClaim, parseShow, parseTask, parseTaskList } from "./parse.js";
import type {
  Board,
  BlockKind,
  Capabilities,
  CloseBlockKind,
  CloseOutcome,
  CreateTaskInput,
  Lease,
  Task,
  TaskDetail,
  WatchLine,
} from "./port.js";
import { DEFAULT_RETRY, type RetryPolicy, withRetry } from "./retry.js";
import { LeaseResolver } from "./lease-resolver.js";
import { watchLines } from "./watch.js";

export interface CliCallRecord {
  verb: string;
  exitCode: number | null;
  durationMs: number;
  ok: boolean;
}

export interface HermesCliBoardOptions {
  slug: string;
  /** argv prefix: ["hermes"], ["python3", "/opt/hermes/hermes"], ["ssh", "board-host", "hermes"]. */
  command: readonly string[];
  env: CliEnvOptions;
  /** Per call; above the CLI's own 120 s SQLite busy wait by default. */
  timeoutMs?: number;
  textCapBytes?: number;
  retry?: RetryPolicy;
  clock?: Clock;
  onCall?: (rec: CliCallRecord) => void;
  onRetry?: (verb: string, err: Error, attempt: number) => void;
}

export class HermesCliBoard implements Board {
  readonly slug: string;
  private readonly timeoutMs: number;
  private readonly textCap: number;
  private readonly retry: RetryPolicy;
  private readonly clock: Clock;
  private caps: Promise<Capabilities> | undefined;
  private readonly resolver: LeaseResolver;

  constructor(private readonly o: HermesCliBoardOptions) {
    this.slug = o.slug;
    this.timeoutMs = o.timeoutMs ?? 150_000;
    this.textCap = o.textCapBytes ?? 64 * 1024;
    this.retry = o.retry ?? DEFAULT_RETRY;
    this.clock = o.clock ?? systemClock;
    this.resolver = new LeaseResolver((id) => this.showOnce(id));
  }

  // ---- read verbs -------------------------------------------------------------------------
  listReady(q: { assignee: string }): Promise<Task[]> {
    return this.list("ready", q.assignee).then((tasks) =>
      tasks.sort((a, b) => b.priority - a.priority || (a.createdAt ?? 0) - (b.createdAt ?? 0) || a.id.localeCompare(b.id)),
    );
  }

  listRunning(q: { assignee: string }): Promise<Task[]> {
    return this.list("running", q.assignee);
  }

  private list(status: "ready" | "running", assignee: string): Promise<Task[]> {
    return this.retrying("list", () =>
      this.run({ verb: "list", options: [["json", true], ["status", status], ["assignee", assignee]] }).then((r) =>
        this.parsed("list", undefined, r, () => parseTaskList(r.stdout)),
      ),
    );
  }

  show(taskId: string): Promise<TaskDetail> {
    return this.retrying("show", () => this.showOnce(taskId));
  }

  context(taskId: string): Promise<string> {
    return this.retrying("context", async () => (await this.run({ verb: "context", positionals: [taskId] }, taskId)).stdout);
  }

  watch(q: { assignee: string; signal: AbortSignal }): AsyncIterable<WatchLine> {
    const argv = buildArgv(this.o.command, this.slug, { verb: "watch", options: [["assignee", q.assignee]] });
    return watchLines({ argv, env: buildCliEnv(this.o.env), signal: q.signal, board: this.slug });
  }

  async capabilities(): Promise<Capabilities> {
    this.caps ??= this.detectCapabilities().catch((err: unknown) => {
      this.caps = undefined;
      throw err;
    });
    return this.caps;
  }

  // ---- claim ------------------------------------------------------------------------------
  async claim(taskId: string, ttlSeconds: number): Promise<{ lease: Lease; detail: TaskDetail | null }> {
    const claimedAt = this.clock.now();
    // No retry: a lost race is final, any other failure is the caller's backoff + rescan.
    const res = await this.run({ verb: "claim", options: [["ttl", Math.max(1, Math.floor(ttlSeconds))]], positionals: [taskId] }, taskId);
    const { workspace } = this.parsed("claim", taskId, res, () => parseClaim(res.stdout, taskId));
    const base: Lease = {
      board: this.slug,
      taskId,
      runId: null,
      lock: null,
      workspace,
      claimedAt,
      expiresAt: claimedAt + ttlSeconds * 1000,
      ttlSeconds,
    };
    let detail: TaskDetail | null = null;
    try {
      detail = await this.show(taskId);
    } catch {
      return { lease: base, detail: null }; // the caller re-checks; calls stay unfenced until then
    }
    return { lease: leaseFrom(base, detail), detail };
  }

  // ---- lease-bound verbs (fenced) ---------------------------------------------------------
  async heartbeat(lease: Lease, note?: string): Promise<void> {
    const opts: VerbCall = { verb: "heartbeat", options: [["note", note ? capText(oneLine(note), 2000) : undefined]], positionals: [lease.taskId] };
    try {
      await this.retrying("heartbeat", () => this.run(opts, lease.taskId, lease));
    } catch (err) {
      throw await this.leaseAware(err, lease, "heartbeat");
    }
  }

  async complete(lease: Lease, close: { summary: string; metadata: Record<string, unknown> }): Promise<CloseOutcome> {
    const call: VerbCall = {
      verb: "complete",
      options: [
        ["summary", capText(close.summary, this.textCap)],
        ["metadata", JSON.stringify(close.metadata)],
      ],
      positionals: [lease.taskId],
    };
    if (Buffer.byteLength(JSON.stringify(close.metadata)) > this.textCap)
      throw new UsageError({ verb: "complete", board: this.slug, taskId: lease.taskId }, `metadata is larger than ${this.textCap} bytes`);
    return this.closeCall(call, lease, "completed");
  }

  async block(lease: Lease, close: { reason: string; kind?: CloseBlockKind }): Promise<CloseOutcome> {
    const caps = await this.capabilities().catch(() => null);
    const kind = close.kind && caps?.blockKinds.includes(close.kind) ? close.kind : undefined;
    const call: VerbCall = { verb: "block", options: [["kind", kind]], positionals: [lease.taskId, capText(close.reason, this.textCap)] };
    return this.closeCall(call, lease, "blocked");
  }

  // ---- other writes -----------------------------------------------------------------------
  async comment(taskId: string, author: string, text: string): Promise<void> {
    const call: VerbCall = { verb: "comment", options: [["author", author]], positionals: [taskId, capText(text, this.textCap)] };
    await this.retrying("comment", () => this.run(call, taskId));
  }

  async createIdempotent(input: CreateTaskInput): Promise<Task> {
    const options: [string, string | number | boolean | undefined][] = [
      ["json", true],
      ["idempotency-key", input.key],
      ["assignee", input.assignee],
      ["body", input.body === undefined ? undefined : capText(input.body, this.textCap)],
      ["priority", input.priority],
      ["tenant", input.tenant],
      ["workspace", input.workspace],
    ];
    for (const p of input.parents ?? []) options.push(["parent", p]);
    const call: VerbCall = { verb: "create", options, positionals: [capText(input.title, 4096)] };
    return this.retrying("create", async () => {
      const r = await this.run(call);
      return this.parsed("create", undefined, r, () => parseTask(r.stdout));
    });
  }

  // ---- internals --------------------------------------------------------------------------
  private async closeCall(call: VerbCall, lease: Lease, closedOutcome: "completed" | "blocked"): Promise<CloseOutcome> {
    let attempt = 0;
    for (;;) {
      attempt += 1;
      try {
        await this.run(call, lease.taskId, lease);
        return "applied";
      } catch (err) {
        if (isBoardErr(err) && isLeaseBoundRefusal(err)) {
          const state = await this.resolver.resolve(lease, closedOutcome, err);
          if (state === "already_applied") return state;
          throw state;
        }
        if (!(err instanceof Transient) || attempt > this.retry.retries) throw err;
        this.o.onRetry?.(call.verb, err, attempt);
        await sleep(backoffDelay(attempt, { baseMs: this.retry.minDelayMs, maxMs: this.retry.maxDelayMs }));
        // Never retry a close blindly: re-read first, stop if it already landed or the lease is gone.
        const state = await this.resolver.check(lease, closedOutcome).catch(() => "unknown" as const);
        if (state === "already_applied") return state;
        if (state instanceof LeaseLost) throw state;
      }
    }
  }

  private async leaseAware(err: unknown, lease: Lease, _verb: string): Promise<unknown> {
    if (isBoardErr(err) && isLeaseBoundRefusal(err)) {
      const state = await this.resolver.resolve(lease, null, err).catch(() => err);
      return state === "already_applied" ? err : state;
    }
    return err;
  }

  private async showOnce(taskId: string): Promise<TaskDetail> {
    const r = await this.run({ verb: "show", options: [["json", true]], positionals: [taskId] }, taskId);
    return this.parsed("show", taskId, r, () => parseShow(r.stdout));
  }

  private async detectCapabilities(): Promise<Capabilities> {
    const help = async (verb: string) => {
      const argv = buildArgv(this.o.command, this.slug, { verb, options: [["help", true]] });
      const r = await runProcess({ argv, env: buildCliEnv(this.o.env), timeoutMs: this.timeoutMs });
      const err = classify(r, { verb: `${verb} --help`, board: this.slug });
      if (err) throw err;
      return r.stdout;
    };
    const [block, ...rest] = await Promise.all(["block", "list", "show", "create"].map(help));
    const kinds = /--kind \{([^}]*)\}/.exec(block ?? "")?.[1]?.split(",").map((k) => k.trim()) ?? [];
    const jsonVerbs = ["list", "show", "create"].filter((_, i) => /--json/.test(rest[i] ?? ""));
    return { blockKinds: kinds.filter(isBlockKind), jsonVerbs };
  }

  private retrying<T>(verb: string, fn: () => Promise<T>): Promise<T> {
    return withRetry(fn, this.retry, { onRetry: (err, attempt) => this.o.onRetry?.(verb, err, attempt) });
  }

  private parsed<T>(verb: string, taskId: string | undefined, r: RunResult, parse: () => T): T {
    try {
      return parse();
    } catch (err) {
      if (err instanceof OutputParseError)
        throw new Transient({ verb, board: this.slug, taskId, exitCode: r.exitCode, stderrTail: err.sample, cause: err }, err.message);
      throw err;
    }
  }

  private async run(call: VerbCall, taskId?: string, fence?: Lease): Promise<RunResult> {
    const argv = buildArgv(this.o.command, this.slug, call);
    const env = buildCliEnv(this.o.env, fence ? { taskId: fence.taskId, runId: fence.runId } : undefined);
    const r = await runProcess({ argv, env, timeoutMs: this.timeoutMs, captureLimit: 64 * 1024 * 1024 });
    const err = classify(r, { verb: call.verb, board: this.slug, taskId });
    this.o.onCall?.({ verb: call.verb, exitCode: r.exitCode, durationMs: r.durationMs, ok: err === null });
    if (err) throw err;
    return r;
  }
}

/** The lease with run id, lock and expiry read from show --json. */
export function leaseFrom(base: Lease, detail: TaskDetail): Lease {
  const open = openRun(detail);
  return {
    ...base,
    runId: open.runId,
    lock: open.lock,
    expiresAt: open.expires !== null ? Math.min(base.expiresAt, open.expires * 1000 + 999) : base.expiresAt,
  };
}

function isBoardErr(e: unknown): e is BoardError {
  return e instanceof Error && "verb" in e && "board" in e;
}

function isBlockKind(k: string): k is BlockKind {
  return k === "needs_input" || k === "capability" || k === "transient" || k === "dependency";
}

function oneLine(s: string): string {
  return s.replace(/\s+/g, " ").trim();
}
