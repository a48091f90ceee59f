// Output parsers (zod): tolerant of unknown keys; unknown statuses/outcomes map to "unknown".
import { z } from "zod";
import { BridgeError } from "../errors/index.js";
import { taskEventOf } from "./events.js";
import type { Attachment, RunOutcome, Task, TaskDetail, TaskStatus } from "./port.js";

const STATUSES = new Set<TaskStatus>(["triage", "todo", "scheduled", "ready", "running", "blocked", "review", "done", "archived"]);
const OUTCOMES = new Set<RunOutcome>([
  "completed",
  "blocked",
  "reclaimed",
  "crashed",
  "rate_limited",
  "timed_out",
  "stale",
  "spawn_failed",
  "gave_up",
  "review_requested",
  "scheduled",
]);

const nullableStr = z
  .string()
  .nullable()
  .optional()
  .transform((v) => v ?? null);
const nullableNum = z
  .number()
  .nullable()
  .optional()
  .transform((v) => v ?? null);
const record = z.record(z.string(), z.unknown());

const TaskSchema = z
  .looseObject({
    id: z.string(),
    title: z.string(),
    body: nullableStr,
    assignee: nullableStr,
    status: z.string().transform((s): TaskStatus => (STATUSES.has(s as TaskStatus) ? (s as TaskStatus) : "unknown")),
    priority: z
      .number()
      .nullable()
      .optional()
      .transform((v) => v ?? 0),
    tenant: nullableStr,
    workspace_kind: nullableStr,
    workspace_path: nullableStr,
    branch_name: nullableStr,
    project_id: nullableStr,
    max_runtime_seconds: nullableNum,
    model_override: nullableStr,
    provider_override: nullableStr,
    completion_contract: nullableStr,
    last_failure_error: nullableStr,
    created_at: nullableNum,
    started_at: nullableNum,
    completed_at: nullableNum,
    result: nullableStr,
    skills: z
      .array(z.string())
      .nullable()
      .optional()
      .transform((v) => v ?? []),
    // Upstream show --json names the claim (#113627); absent on 0.20.0.
    claim_lock: z.string().nullable().optional(),
    claim_expires: z.number().nullable().optional(),
    current_run_id: z.number().nullable().optional(),
    last_heartbeat_at: z.number().nullable().optional(),
  })
  .transform(
    (t): Task => ({
      id: t.id,
      title: t.title,
      body: t.body,
      assignee: t.assignee,
      status: t.status,
      priority: t.priority,
      tenant: t.tenant,
      workspaceKind: t.workspace_kind,
      workspacePath: t.workspace_path,
      branchName: t.branch_name,
      projectId: t.project_id,
      createdAt: t.created_at,
      startedAt: t.started_at,
      completedAt: t.completed_at,
      result: t.result,
      skills: t.skills,
      maxRuntimeSeconds: t.max_runtime_seconds,
      pins: { model: t.model_override, provider: t.provider_override },
      completionContract: t.completion_contract,
      lastFailure: t.last_failure_error,
      ...(t.current_run_id !== undefined ? { claim: { runId: t.current_run_id, lock: t.claim_lock ?? null, expires: t.claim_expires ?? null } } : {}),
      ...(t.last_heartbeat_at !== undefined ? { lastHeartbeatAt: t.last_heartbeat_at } : {}),
    }),
  );

const ShowSchema = z.looseObject({
  task: TaskSchema,
  latest_summary: nullableStr,
  parents: z.array(z.string()).optional().default([]),
  children: z.array(z.string()).optional().default([]),
  comments: z
    .array(
      z.looseObject({
        author: z
          .string()
          .nullable()
          .transform((a) => a ?? ""),
        body: z.string(),
        created_at: z.number(),
      }),
    )
    .optional()
    .default([]),
  events: z
    .array(
      z.looseObject({
        kind: z.string(),
        payload: z.unknown().transform((p) => (p && typeof p === "object" && !Array.isArray(p) ? (p as Record<string, unknown>) : null)),
        created_at: z.number(),
        run_id: nullableNum,
      }),
    )
    .optional()
    .default([]),
  runs: z
    .array(
      z.looseObject({
        id: z.number(),
        profile: nullableStr,
        // 0.21 runs name their workflow step; upstream after 0.21.3 names who closed them.
        step_key: z.string().nullable().optional(),
        closed_by: z.string().nullable().optional(),
        status: z.string(),
        outcome: z
          .string()
          .nullable()
          .optional()
          .transform((o): RunOutcome | null => (o == null ? null : OUTCOMES.has(o as RunOutcome) ? (o as RunOutcome) : "unknown")),
        summary: nullableStr,
        error: nullableStr,
        metadata: record
          .nullable()
          .optional()
          .catch(null)
          .transform((m) => m ?? null),
        started_at: nullableNum,
        ended_at: nullableNum,
      }),
    )
    .optional()
    .default([]),
});

export class OutputParseError extends BridgeError {
  constructor(
    what: string,
    cause: unknown,
    readonly sample: string,
  ) {
    super("output_unparsable", `could not parse ${what}: ${cause instanceof Error ? cause.message.split("\n")[0] : String(cause)}`, { cause });
  }
}

function parseJsonDocument(text: string, what: string): unknown {
  try {
    return JSON.parse(text);
  } catch (err) {
    throw new OutputParseError(what, err, text.slice(0, 200));
  }
}

function zparse<T>(schema: z.ZodType<T>, value: unknown, what: string, text: string): T {
  const r = schema.safeParse(value);
  if (!r.success) {
    const first = r.error.issues[0];
    throw new OutputParseError(what, new Error(`${first?.path.join(".") || "(root)"}: ${first?.message ?? "invalid"}`), text.slice(0, 200));
  }
  return r.data;
}

export function parseTaskList(text: string): Task[] {
  return zparse(z.array(TaskSchema), parseJsonDocument(text, "list --json"), "list --json", text);
}

export function parseTask(text: string): Task {
  return zparse(TaskSchema, parseJsonDocument(text, "create --json"), "create --json", text);
}

export function parseShow(text: string): TaskDetail {
  const s = zparse(ShowSchema, parseJsonDocument(text, "show --json"), "show --json", text);
  return {
    task: s.task,
    latestSummary: s.latest_summary,
    parents: s.parents,
    children: s.children,
    comments: s.comments.map((c) => ({ author: c.author, body: c.body, createdAt: c.created_at })),
    events: s.events.map((e) => taskEventOf({ kind: e.kind, payload: e.payload, createdAt: e.created_at, runId: e.run_id })),
    runs: s.runs.map((r) => ({
      id: r.id,
      profile: r.profile,
      status: r.status,
      outcome: r.outcome,
      summary: r.summary,
      error: r.error,
      metadata: r.metadata,
      startedAt: r.started_at,
      endedAt: r.ended_at,
      ...(r.step_key !== undefined ? { stepKey: r.step_key } : {}),
      ...(r.closed_by !== undefined ? { closedBy: r.closed_by } : {}),
    })),
  };
}

/** `diagnostics --json`: the rows per task, and what the home believes it may claim (0.21.4+). */
export interface Diagnostics {
  tasks: { taskId: string; status: string | null; assignee: string | null; kinds: string[] }[];
  /**
   * `kanban.dispatch_profiles` as the home the CLI runs in resolves it (`any`, the names, or `none
   * (fail-closed: …)`): the trailing `{"task_id": null, …}` row of 0.21.4+; null where the CLI has none.
   */
  dispatchProfiles: string | null;
}

const DiagnosticsSchema = z.array(
  z.looseObject({
    task_id: z.string().nullable(),
    status: nullableStr,
    assignee: nullableStr,
    dispatch_profiles: z.string().nullable().optional(),
    diagnostics: z
      .array(z.looseObject({ kind: z.string().optional() }))
      .optional()
      .default([]),
  }),
);

export function parseDiagnostics(text: string): Diagnostics {
  const rows = zparse(DiagnosticsSchema, parseJsonDocument(text, "diagnostics --json"), "diagnostics --json", text);
  const home = rows.find((r) => r.task_id === null);
  return {
    tasks: rows.flatMap((r) =>
      r.task_id === null ? [] : [{ taskId: r.task_id, status: r.status, assignee: r.assignee, kinds: r.diagnostics.flatMap((d) => (d.kind ? [d.kind] : [])) }],
    ),
    dispatchProfiles: home?.dispatch_profiles ?? null,
  };
}

/** `Claimed <id>\nWorkspace: <path>` — the only text output we parse (hazard 16). */
export function parseClaim(text: string, taskId: string): { workspace: string } {
  const lines = text.split("\n").map((l) => l.trim());
  if (!lines.includes(`Claimed ${taskId}`)) throw new OutputParseError("claim output", new Error(`no "Claimed ${taskId}" line`), text);
  const ws = lines.find((l) => l.startsWith("Workspace:"));
  if (!ws) throw new OutputParseError("claim output", new Error("no Workspace: line"), text);
  return { workspace: ws.slice("Workspace:".length).trim() };
}

/** `Attached <name> to <id> (attachment <n>, <bytes> bytes)`. */
export function parseAttach(text: string, taskId: string): Attachment {
  const m = /^Attached (.+) to (\S+) \(attachment (\d+), (\d+) bytes\)\s*$/m.exec(text);
  if (!m || m[2] !== taskId) throw new OutputParseError("attach output", new Error(`no "Attached … to ${taskId} (attachment N, B bytes)" line`), text);
  return { filename: m[1] ?? "", id: Number(m[3]), size: Number(m[4]) };
}

/** `Max runtime: <n>s` of `context` (0.20.0 shows the task's max runtime nowhere else). */
export function maxRuntimeFromContext(text: string): number | null {
  const m = /^Max runtime:\s*(\d+)s\s*$/m.exec(text);
  return m ? Number(m[1]) : null;
}
