// HermesCliBoard: the Board port over the real `hermes kanban` CLI. It only speaks the CLI: argv,
// environment, output parsing and the typed errors (cli.ts, parse.ts, classify.ts); what a lease may
// write and when is the lease layer's. Reads are retried (p-retry, retry.ts); a write is one call.
import { fitMetadata } from "../result/fit.js";
import { ClaimUncertain, NotClaimable, Rejected, TaskNotFound, Transient } from "../errors/board.js";
import { argvText, escapeControlsDeep } from "../result/text.js";
import type { Clock } from "../time/clock.js";
import { systemClock } from "../time/clock.js";
import type { VerbCall } from "./argv.js";
import { detectCapabilities } from "./capabilities.js";
import { oneLineWithUsage } from "./card.js";
import { type CliCallRecord, HermesCli, type HermesCliOptions } from "./cli.js";
import { parseAttach, parseClaim, parseShow, parseTask, parseTaskList } from "./parse.js";
import type {
  Attachment,
  Board,
  Capabilities,
  ClaimOptions,
  ClaimReceipt,
  CloseBlockKind,
  CreateTaskInput,
  Fence,
  GuardedVerb,
  Task,
  TaskDetail,
  TaskStatus,
  WatchLine,
} from "./port.js";

export type { CliCallRecord };

export interface HermesCliBoardOptions extends HermesCliOptions {
  textCapBytes?: number;
  clock?: Clock;
}

const oneLine = (s: string) => s.replace(/\s+/g, " ").trim();

export class HermesCliBoard implements Board {
  readonly slug: string;
  private readonly cli: HermesCli;
  private readonly textCap: number;
  private readonly clock: Clock;
  private caps: Promise<Capabilities> | undefined;

  constructor(o: HermesCliBoardOptions) {
    this.slug = o.slug;
    this.cli = new HermesCli(o);
    this.textCap = o.textCapBytes ?? 64 * 1024;
    this.clock = o.clock ?? systemClock;
  }

  /** Stops what the board keeps running between calls (the call server). */
  close(): Promise<void> {
    return this.cli.transport.close();
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

  listTasks(q: { assignee?: string | undefined; archived?: boolean | undefined }, signal?: AbortSignal): Promise<Task[]> {
    return this.list(undefined, q.assignee, signal, q.archived === true);
  }

  private list(status: "ready" | "running" | undefined, assignee: string | undefined, signal?: AbortSignal, archived = false): Promise<Task[]> {
    const call: VerbCall = {
      verb: "list",
      options: [
        ["json", true],
        ...(status ? [["status", status] as const] : []),
        ...(assignee !== undefined ? [["assignee", assignee] as const] : []),
        ...(archived ? [["archived", true] as const] : []),
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
    return this.cli.retrying(
      "show",
      async () => {
        const r = await this.cli.run({ verb: "show", options: [["json", true]], positionals: [taskId] }, { taskId, signal });
        return this.cli.parsed("show", taskId, r, () => parseShow(r.stdout));
      },
      signal,
    );
  }

  context(taskId: string, signal?: AbortSignal): Promise<string> {
    return this.cli.retrying("context", async () => (await this.cli.run({ verb: "context", positionals: [taskId] }, { taskId, signal })).stdout, signal);
  }

  watch(q: { assignee: string; signal: AbortSignal }): AsyncIterable<WatchLine> {
    return this.cli.watch(q.assignee, q.signal);
  }

  async capabilities(signal?: AbortSignal): Promise<Capabilities> {
    this.caps ??= detectCapabilities(this.cli, signal).catch((err: unknown) => {
      this.caps = undefined;
      throw err;
    });
    return this.caps;
  }

  // ---- claim ------------------------------------------------------------------------------
  async claim(taskId: string, ttlSeconds: number, signal?: AbortSignal, o: ClaimOptions = {}): Promise<ClaimReceipt> {
    const claimedAt = this.clock.now();
    const ttl = Math.max(1, Math.floor(ttlSeconds));
    const named = o.claimer !== undefined && (await this.caps_(signal))?.namedClaims === true ? o.claimer : undefined;
    // The lock Hermes writes: a named claimer, else `<host>:<pid>` of the process that claims — known when
    // that process runs here, or when the call server (on any host) or the board host's shell (ssh) announced it.
    let [claimLock, lockSince]: [string | undefined, number | undefined] = [named, undefined];
    const receipt = (workspace: string): ClaimReceipt => ({ taskId, workspace, claimedAt, ttlSeconds: ttl, ...(claimLock !== undefined ? { claimLock } : {}) });
    try {
      const res = await this.cli.run(
        {
          verb: "claim",
          options: [
            ["ttl", ttl],
            ["claimer", named],
          ],
          positionals: [taskId],
        },
        {
          taskId,
          signal,
          onSpawn: (pid, host, since) => {
            if (named === undefined) [claimLock, lockSince] = [host === null ? undefined : `${host}:${pid}`, since];
          },
        },
      );
      return receipt(this.cli.parsed("claim", taskId, res, () => parseClaim(res.stdout, taskId)).workspace);
    } catch (err) {
      // A lost race, a missing task, a bad call: the claim did not happen. Anything else may have.
      if (err instanceof Transient || err instanceof Rejected)
        throw new ClaimUncertain({ taskId, claimedAt, ttlSeconds: ttl, claimLock: receipt("").claimLock, lockSince, cause: err });
      throw err;
    }
  }

  async release(taskId: string, reason: string, signal?: AbortSignal): Promise<void> {
    // One line (the CLI's reason), its usage line kept whole at the end: the run's record of what it used (board/card.ts).
    const call: VerbCall = { verb: "reclaim", options: [["reason", argvText(oneLineWithUsage(reason, 500), 500)]], positionals: [taskId] };
    // Never retried here: Hermes does not fence `reclaim`, and a retry after a lost answer could reclaim the
    // next seat's run. Its one caller reads the task first (lease/fenced.ts release, through lease/held.ts giveBack and the closer).
    await this.cli.run(call, { taskId, signal });
  }

  async unblock(taskId: string, reason: string, signal?: AbortSignal): Promise<void> {
    const call: VerbCall = { verb: "unblock", options: [["reason", argvText(oneLine(reason), 500)]], positionals: [taskId] };
    await this.cli.run(call, { taskId, signal });
  }

  // ---- lease-bound verbs (Hermes fences them on the run id) --------------------------------
  async schedule(fence: Fence, close: { reason: string }, signal?: AbortSignal): Promise<void> {
    const call: VerbCall = {
      verb: "schedule",
      options: [["claimer", await this.claimerFor(fence, signal)]],
      positionals: [fence.taskId, argvText(close.reason, this.textCap)],
    };
    await this.cli.run(call, { taskId: fence.taskId, fence, signal });
  }

  async heartbeat(fence: Fence, o: { note?: string | undefined; ttlSeconds?: number | undefined }, signal?: AbortSignal): Promise<void> {
    const claimer = await this.claimerFor(fence, signal);
    // Upstream renews only a named claim: `--ttl` without `--claimer` is refused.
    const renews = o.ttlSeconds !== undefined && (claimer !== undefined || (await this.caps_(signal))?.namedClaims !== true);
    const call: VerbCall = {
      verb: "heartbeat",
      options: [
        ["note", o.note ? argvText(oneLine(o.note), 2000) : undefined],
        ["claimer", claimer],
        ["ttl", renews && o.ttlSeconds !== undefined ? Math.max(1, Math.floor(o.ttlSeconds)) : undefined],
      ],
      positionals: [fence.taskId],
    };
    await this.cli.run(call, { taskId: fence.taskId, fence, signal });
  }

  async complete(fence: Fence, close: { summary: string; metadata: Record<string, unknown> }, signal?: AbortSignal): Promise<void> {
    // One argv element: over the cap, the largest parts are trimmed with a marker (never a refused close).
    const metadata = JSON.stringify(fitMetadata(escapeControlsDeep(close.metadata), this.textCap));
    const call: VerbCall = {
      verb: "complete",
      options: [["summary", argvText(close.summary, this.textCap)], ["metadata", metadata], ...(await this.guards("complete", fence, signal))],
      positionals: [fence.taskId],
    };
    await this.cli.run(call, { taskId: fence.taskId, fence, signal });
  }

  async requestReview(
    fence: Fence,
    close: { summary: string; metadata: Record<string, unknown>; reviewer: string | null },
    signal?: AbortSignal,
  ): Promise<void> {
    const caps = await this.caps_(signal);
    // 0.20 takes no metadata on a hand-off: the summary carries it alone there.
    const metadata = caps?.reviewMetadata ? JSON.stringify(fitMetadata(escapeControlsDeep(close.metadata), this.textCap)) : undefined;
    const call: VerbCall = {
      verb: "request-review",
      options: [
        ["summary", argvText(close.summary, this.textCap)],
        ["metadata", metadata],
        ["reviewer", close.reviewer === null ? undefined : argvText(close.reviewer, 200)],
      ],
      positionals: [fence.taskId],
    };
    await this.cli.run(call, { taskId: fence.taskId, fence, signal });
  }

  async block(fence: Fence, close: { reason: string; kind?: CloseBlockKind | undefined }, signal?: AbortSignal): Promise<void> {
    const caps = await this.caps_(signal);
    const kind = close.kind && caps?.blockKinds.includes(close.kind) ? close.kind : undefined;
    const call: VerbCall = {
      verb: "block",
      options: [["kind", kind], ...(await this.guards("block", fence, signal))],
      positionals: [fence.taskId, argvText(close.reason, this.textCap)],
    };
    await this.cli.run(call, { taskId: fence.taskId, fence, signal });
  }

  /** A close's guards where this Hermes has them: the named claimer, and the task still `running`. */
  private async guards(verb: GuardedVerb, fence: Fence, signal?: AbortSignal): Promise<[string, string | undefined][]> {
    const caps = await this.caps_(signal);
    return [
      ["claimer", await this.claimerFor(fence, signal)],
      ["expected-status", caps?.expectedStatus.includes(verb) ? "running" : undefined],
    ];
  }

  private async claimerFor(fence: Fence, signal?: AbortSignal): Promise<string | undefined> {
    return fence.claimer !== undefined && (await this.caps_(signal))?.namedClaims === true ? fence.claimer : undefined;
  }

  /** The capabilities, or null when they cannot be read now (the call then goes without the newer flags). */
  private caps_(signal?: AbortSignal): Promise<Capabilities | null> {
    return this.capabilities(signal).catch(() => null);
  }

  // ---- other writes -----------------------------------------------------------------------
  async comment(taskId: string, author: string, text: string, signal?: AbortSignal, o: { expectedStatus?: TaskStatus | undefined } = {}): Promise<void> {
    const guard = o.expectedStatus !== undefined && (await this.caps_(signal))?.expectedStatus.includes("comment") ? o.expectedStatus : undefined;
    const call: VerbCall = {
      verb: "comment",
      options: [
        ["author", argvText(author, 200)],
        ["expected-status", guard],
      ],
      positionals: [taskId, argvText(text, this.textCap)],
    };
    await this.cli.run(call, { taskId, signal });
  }

  async attach(taskId: string, file: { path: string; name: string }, signal?: AbortSignal): Promise<Attachment> {
    const call: VerbCall = { verb: "attach", options: [["name", argvText(oneLine(file.name), 200)]], positionals: [taskId, file.path] };
    const r = await this.cli.run(call, { taskId, signal });
    return this.cli.parsed("attach", taskId, r, () => parseAttach(r.stdout, taskId));
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
}

/** Not ours to take: a lost race or a vanished task. */
export const notOurs = (err: unknown): boolean => err instanceof NotClaimable || err instanceof TaskNotFound;
