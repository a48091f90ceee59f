// An honest in-memory Board: the Hermes 0.20 state machine a bridge relies on (claim CAS, runs and
// their `claimed` events, run-id fencing of heartbeat/complete/block, BLOCKED: comments written even
// when the block is refused, reclaim, scratch workspaces deleted on complete, attachments, watch lines)
// and the typed errors the CLI adapter throws. It runs the Board contract (fake-board.test.ts), so the
// unit tests that use it stand on a board that behaves like the real one. `calls` records each verb.
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import type {
  Attachment,
  Board,
  Capabilities,
  ClaimReceipt,
  CloseBlockKind,
  CreateTaskInput,
  Fence,
  Task,
  TaskDetail,
  WatchLine,
} from "../../src/board/port.js";
import { pyRepr } from "../../src/emulator/pyrepr.js";
import { BoardNotFound, ClaimUncertain, NotClaimable, Rejected, TaskNotFound } from "../../src/errors/board.js";
import { AsyncQueue } from "../../src/process/queue.js";
import { argvText, escapeControlsDeep } from "../../src/result/text.js";
import { parseWatchLine, taskEventOf } from "../../src/board/events.js";

interface Row {
  task: Task;
  lock: string | null;
  expires: number | null;
  currentRun: number | null;
  maxRuntime: number | null;
  key: string | null;
  detail: Omit<TaskDetail, "task">;
  attachments: (Attachment & { data: Buffer })[];
}

const CAP = 64 * 1024;

export class FakeBoard implements Board {
  readonly calls: string[] = [];
  private readonly rows = new Map<string, Row>();
  private readonly listeners = new Set<(l: WatchLine) => void>();
  private nextRun = 1;
  private nextAtt = 1;
  private nextLock = 1;
  /** Board time in seconds (tests move it to expire claims). */
  now = 1_800_000_000;
  /** The next claim of these tasks takes effect, then fails like a `worktree:` checkout (exit 1). */
  readonly failAfterClaim = new Set<string>();
  readonly dir = mkdtempSync(join(tmpdir(), "hkb-fake-board-"));

  constructor(
    readonly slug = "b",
    private readonly exists = true,
  ) {}

  // ---- test-side access ---------------------------------------------------------------------
  /** An event on a task's history, as another party's close left it (a reclaim with its reason). */
  addEvent(id: string, e: { kind: string; runId: number | null; reason?: string }): void {
    this.event(id, e.kind, e.reason !== undefined ? { reason: e.reason } : null, e.runId);
  }

  seed(title: string, o: { assignee?: string; body?: string; maxRuntime?: number; priority?: number; status?: Task["status"] } = {}): string {
    const id = `t_${(0x10000000 + this.rows.size * 7919).toString(16)}`;
    const task: Task = {
      id,
      title,
      body: o.body ?? null,
      assignee: o.assignee ?? null,
      status: o.status ?? "ready",
      priority: o.priority ?? 0,
      tenant: null,
      workspaceKind: "scratch",
      workspacePath: null,
      branchName: null,
      projectId: null,
      createdAt: this.now,
      startedAt: null,
      completedAt: null,
      result: null,
      skills: [],
      maxRuntimeSeconds: null,
      pins: { model: null, provider: null },
      completionContract: null,
      lastFailure: null,
    };
    this.rows.set(id, {
      task,
      lock: null,
      expires: null,
      currentRun: null,
      maxRuntime: o.maxRuntime ?? null,
      key: null,
      detail: { latestSummary: null, parents: [], children: [], comments: [], events: [], runs: [] },
      attachments: [],
    });
    this.event(id, "created", { assignee: task.assignee, status: task.status });
    return id;
  }

  /** What a gateway does to an expired CLI claim: the run is reclaimed, the task ready again. */
  expire(id: string): void {
    const r = this.row(id, "dispatch");
    if (r.task.status !== "running") return;
    this.endRun(r, "reclaimed", null);
    r.task.status = "ready";
    this.event(id, "reclaimed", { stale_lock: r.lock });
    r.lock = null;
    r.expires = null;
  }

  attachmentsOf(id: string): (Attachment & { data: Buffer })[] {
    return this.row(id, "attachments").attachments;
  }

  // ---- reads ----------------------------------------------------------------------------------
  async listReady(q: { assignee: string }): Promise<Task[]> {
    return this.list("ready", q.assignee).sort((a, b) => b.priority - a.priority || (a.createdAt ?? 0) - (b.createdAt ?? 0) || a.id.localeCompare(b.id));
  }
  async listRunning(q: { assignee: string }): Promise<Task[]> {
    return this.list("running", q.assignee);
  }
  async listTasks(q: { assignee?: string | undefined; archived?: boolean | undefined }): Promise<Task[]> {
    this.calls.push("list");
    this.needBoard("list");
    return [...this.rows.values()]
      .filter((r) => (q.assignee === undefined || r.task.assignee === q.assignee) && (q.archived || r.task.status !== "archived"))
      .map((r) => ({ ...r.task }));
  }
  private list(status: string, assignee: string): Task[] {
    this.needBoard("list");
    return [...this.rows.values()].filter((r) => r.task.status === status && r.task.assignee === assignee).map((r) => ({ ...r.task }));
  }
  async show(taskId: string): Promise<TaskDetail> {
    this.calls.push("show");
    const r = this.row(taskId, "show");
    return structuredClone({ task: r.task, ...r.detail });
  }
  async context(taskId: string): Promise<string> {
    this.calls.push("context");
    const r = this.row(taskId, "context");
    return `# Kanban task ${taskId}: ${r.task.title}\n${r.maxRuntime ? `Max runtime: ${r.maxRuntime}s\n` : ""}\n## Body\n${r.task.body ?? ""}\n`;
  }
  async *watch(q: { assignee: string; signal: AbortSignal }): AsyncGenerator<WatchLine> {
    this.needBoard("watch");
    const queue = new AsyncQueue<WatchLine>();
    const push = (l: WatchLine) => {
      if (l.event?.assignee === q.assignee) queue.push(l);
    };
    this.listeners.add(push);
    const stop = () => queue.close();
    q.signal.addEventListener("abort", stop, { once: true });
    try {
      yield { raw: "Watching kanban events. Ctrl-C to stop.", event: null };
      yield* queue;
    } finally {
      this.listeners.delete(push);
      q.signal.removeEventListener("abort", stop);
    }
  }
  async capabilities(): Promise<Capabilities> {
    return {
      version: "0.20.0",
      blockKinds: ["needs_input", "capability", "transient", "dependency"],
      attach: true,
      heartbeatExtends: false,
      reclaimCountsAsFailure: false,
      namedClaims: false,
      expectedStatus: [],
      review: true,
      reviewMetadata: false,
      authorizeExistingPr: false,
    };
  }

  // ---- writes ---------------------------------------------------------------------------------
  async claim(taskId: string, ttlSeconds: number): Promise<ClaimReceipt> {
    this.calls.push("claim");
    const r = this.row(taskId, "claim");
    if (r.task.status !== "ready" || r.lock !== null)
      throw new NotClaimable(this.err("claim", taskId, `cannot claim ${taskId}: status=${r.task.status} lock=${r.lock ?? "(none)"}`), r.task.status, r.lock);
    const lock = `fake:${this.nextLock++}`;
    const ttl = Math.max(1, Math.floor(ttlSeconds));
    const runId = this.nextRun++;
    r.lock = lock;
    r.expires = this.now + ttl;
    r.currentRun = runId;
    r.task.status = "running";
    r.task.startedAt ??= this.now;
    const ws = join(this.dir, "workspaces", taskId);
    mkdirSync(ws, { recursive: true });
    r.task.workspacePath = ws;
    r.detail.runs.push({
      id: runId,
      profile: r.task.assignee,
      status: "running",
      outcome: null,
      summary: null,
      error: null,
      metadata: null,
      startedAt: this.now,
      endedAt: null,
    });
    this.event(taskId, "claimed", { lock, expires: r.expires, run_id: runId }, runId);
    const claimedAt = this.now * 1000;
    if (this.failAfterClaim.delete(taskId))
      throw new ClaimUncertain({
        taskId,
        claimedAt,
        ttlSeconds: ttl,
        claimLock: lock,
        cause: new Rejected(this.err("claim", taskId, "kanban: worktree checkout failed")),
      });
    return { taskId, workspace: ws, claimedAt, ttlSeconds: ttl, claimLock: lock };
  }

  async release(taskId: string, reason: string): Promise<void> {
    this.calls.push(`release ${reason}`);
    const r = this.row(taskId, "reclaim");
    if (r.task.status !== "running") throw new Rejected(this.err("reclaim", taskId, `cannot reclaim ${taskId} (not running or unknown id)`));
    this.expire(taskId);
  }

  async heartbeat(fence: Fence, o: { note?: string | undefined; ttlSeconds?: number | undefined }): Promise<void> {
    this.calls.push(`heartbeat ${o.note ?? ""}`);
    const r = this.row(fence.taskId, "heartbeat", true);
    if (!r || r.task.status !== "running" || r.currentRun !== fence.runId)
      throw new Rejected(this.err("heartbeat", fence.taskId, `cannot heartbeat ${fence.taskId} (not running?)`));
    this.event(fence.taskId, "heartbeat", o.note ? { note: argvText(o.note, 2000) } : null, fence.runId);
  }

  async comment(taskId: string, author: string, text: string): Promise<void> {
    this.calls.push(`comment ${text}`);
    const r = this.row(taskId, "comment");
    const body = argvText(text, CAP).trim();
    r.detail.comments.push({ author, body, createdAt: this.now });
    this.event(taskId, "commented", { author, len: body.length });
  }

  async attach(taskId: string, file: { path: string; name: string }): Promise<Attachment> {
    this.calls.push(`attach ${file.name}`);
    const r = this.row(taskId, "attach");
    const data = readFileSync(file.path);
    const att = { id: this.nextAtt++, filename: file.name || basename(file.path), size: data.length };
    r.attachments.push({ ...att, data });
    this.event(taskId, "attached", { filename: att.filename, size: att.size });
    return att;
  }

  async complete(fence: Fence, close: { summary: string; metadata: Record<string, unknown> }): Promise<void> {
    this.calls.push("complete");
    const r = this.row(fence.taskId, "complete", true);
    if (!r || !["running", "ready", "blocked", "review"].includes(r.task.status) || r.currentRun !== fence.runId)
      throw new Rejected(this.err("complete", fence.taskId, `cannot complete ${fence.taskId} (unknown id or terminal state)`));
    const summary = argvText(close.summary, CAP);
    this.endRun(r, "completed", { summary, metadata: escapeControlsDeep(close.metadata) });
    r.task.status = "done";
    r.task.completedAt = this.now;
    r.detail.latestSummary = summary;
    if (r.task.workspacePath) rmSync(r.task.workspacePath, { recursive: true, force: true });
    this.event(fence.taskId, "completed", { summary: summary.split("\n")[0]?.slice(0, 400) ?? "" });
  }

  async requestReview(fence: Fence, close: { summary: string; metadata: Record<string, unknown>; reviewer: string | null }): Promise<void> {
    this.calls.push("request-review");
    const r = this.row(fence.taskId, "request-review", true);
    if (!r || !["running", "ready"].includes(r.task.status) || r.currentRun !== fence.runId)
      throw new Rejected(this.err("request-review", fence.taskId, `cannot request review for ${fence.taskId} (not running/ready?)`));
    const summary = argvText(close.summary, CAP);
    this.endRun(r, "review_requested", { summary, metadata: escapeControlsDeep(close.metadata) });
    r.task.status = "review";
    this.event(fence.taskId, "review_requested", { summary: summary.split("\n")[0]?.slice(0, 400) ?? "", reviewer: close.reviewer });
  }

  async block(fence: Fence, close: { reason: string; kind?: CloseBlockKind | undefined }): Promise<void> {
    this.calls.push("block");
    const r = this.row(fence.taskId, "block", true);
    if (!r) throw new Rejected(this.err("block", fence.taskId, `cannot block ${fence.taskId}`));
    const reason = argvText(close.reason, CAP).trim();
    // Hermes writes the BLOCKED: comment before it tries the transition (hazard 6).
    r.detail.comments.push({ author: r.task.assignee ?? "default", body: `BLOCKED: ${reason}`, createdAt: this.now });
    if (!["running", "ready"].includes(r.task.status) || r.currentRun !== fence.runId)
      throw new Rejected(this.err("block", fence.taskId, `cannot block ${fence.taskId}`));
    this.endRun(r, "blocked", { summary: reason, metadata: null });
    r.task.status = "blocked";
    this.event(fence.taskId, "blocked", { reason, kind: close.kind ?? null });
  }

  async schedule(fence: Fence, close: { reason: string }): Promise<void> {
    this.calls.push("schedule");
    const r = this.row(fence.taskId, "schedule", true);
    if (!r) throw new Rejected(this.err("schedule", fence.taskId, `kanban: unknown task ${fence.taskId}`));
    const reason = argvText(close.reason, CAP).trim();
    // Like block, Hermes writes the SCHEDULED: comment before it tries the transition.
    r.detail.comments.push({ author: r.task.assignee ?? "default", body: `SCHEDULED: ${reason}`, createdAt: this.now });
    if (!["running", "ready", "blocked"].includes(r.task.status) || r.currentRun !== fence.runId)
      throw new Rejected(this.err("schedule", fence.taskId, `cannot schedule ${fence.taskId}`));
    this.endRun(r, "scheduled", { summary: reason, metadata: null });
    r.task.status = "scheduled";
    this.event(fence.taskId, "scheduled", { reason }, fence.runId);
  }

  async unblock(taskId: string, reason: string): Promise<void> {
    this.calls.push(`unblock ${reason}`);
    const r = this.row(taskId, "unblock");
    if (!["blocked", "scheduled"].includes(r.task.status)) throw new Rejected(this.err("unblock", taskId, `cannot unblock ${taskId} (not blocked/scheduled?)`));
    if (reason) r.detail.comments.push({ author: "default", body: `UNBLOCK: ${reason}`, createdAt: this.now });
    r.task.status = "ready";
    this.event(taskId, "unblocked", null);
  }

  async createIdempotent(input: CreateTaskInput): Promise<Task> {
    this.needBoard("create");
    const existing = [...this.rows.values()].find((r) => r.key === input.key && r.task.status !== "archived");
    if (existing) return { ...existing.task };
    const id = this.seed(argvText(input.title, 4096), { ...(input.assignee ? { assignee: input.assignee } : {}), ...(input.body ? { body: input.body } : {}) });
    const r = this.row(id, "create");
    r.key = input.key;
    return { ...r.task };
  }

  // ---- internals --------------------------------------------------------------------------------
  private err(verb: string, taskId: string | undefined, stderr: string) {
    return { verb, board: this.slug, taskId, exitCode: 1, stderrTail: stderr };
  }
  private needBoard(verb: string): void {
    if (!this.exists) throw new BoardNotFound({ verb, board: this.slug, exitCode: 1, stderrTail: `kanban: board '${this.slug}' does not exist.` });
  }
  private row(id: string, verb: string): Row;
  private row(id: string, verb: string, maybe: true): Row | undefined;
  private row(id: string, verb: string, maybe = false): Row | undefined {
    this.needBoard(verb);
    const r = this.rows.get(id);
    if (!r && !maybe) throw new TaskNotFound(this.err(verb, id, `no such task: ${id}`));
    return r;
  }
  private endRun(
    r: Row,
    outcome: "completed" | "blocked" | "reclaimed" | "scheduled" | "review_requested",
    o: { summary: string; metadata: Record<string, unknown> | null } | null,
  ): void {
    const run = r.detail.runs.find((x) => x.id === r.currentRun);
    if (run) Object.assign(run, { status: outcome === "completed" ? "done" : outcome, outcome, endedAt: this.now, ...(o ?? {}) });
    r.currentRun = null;
    r.lock = null;
  }
  private event(id: string, kind: string, payload: Record<string, unknown> | null, runId: number | null = null): void {
    const r = this.rows.get(id);
    if (!r) return;
    r.detail.events.push(taskEventOf({ kind, payload, createdAt: this.now, runId }));
    // The line as `watch` prints it, read by the board's own parser.
    const line: WatchLine = parseWatchLine(`[2026-01-01 00:00] ${id} ${kind.padEnd(18)} (@${r.task.assignee ?? "-"})${payload ? ` ${pyRepr(payload)}` : ""}`);
    for (const l of this.listeners) l(line);
  }
}
