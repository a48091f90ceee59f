// The common result (seed 000): the metadata of every close. `ok` + `status` decide; `items` is
// what the agent reported, never assumed.
import { z } from "zod";
import { PR_URL } from "./contract.js";
import { capText } from "./text.js";

const num = z.number().finite();

/** Caps of what an agent may put in a result: longer text is cut with a marker, longer lists end in one. */
export const RESULT_CAPS = { note: 2000, message: 4000, label: 500, link: 4096, code: 200, artifacts: 100, metrics: 100 } as const;

/** Free text, cut at `max` bytes with a visible marker (never refused: an agent's long message must not strand its task). */
const capped = (max: number) => z.string().overwrite((s) => capText(s, max));

/** A list cut at `max` items; the last kept item says how many were dropped. */
function cappedList<T>(max: number, marker: (dropped: number) => T) {
  return (items: T[]): T[] => (items.length <= max ? items : [...items.slice(0, max - 1), marker(items.length - max + 1)]);
}

export const AgentResultSchema = z.object({
  ok: z.boolean(),
  status: z.enum(["ok", "warn", "error"]),
  items: z.number().int().min(0).default(0),
  metrics: z
    .looseObject({ created: num.default(0), updated: num.default(0), skipped: num.default(0), failed: num.default(0) })
    .prefault({})
    .transform(
      (m) =>
        Object.fromEntries(
          Object.entries(m)
            .filter(([k, v]) => typeof v === "number" && Number.isFinite(v) && k.length <= RESULT_CAPS.code)
            .slice(0, RESULT_CAPS.metrics),
        ) as Record<string, number>,
    ),
  note: capped(RESULT_CAPS.note).default(""),
  artifacts: z
    .array(
      z.object({
        type: capped(RESULT_CAPS.code),
        label: capped(RESULT_CAPS.label),
        url: capped(RESULT_CAPS.link).optional(),
        path: capped(RESULT_CAPS.link).optional(),
        /** Set by the bridge: the git commit of a pushed branch. */
        commit: z.string().optional(),
        /** Set by the bridge: where a deliverable file was preserved on the board. */
        attachment: z.object({ id: z.number().int(), filename: z.string(), size: z.number().int() }).optional(),
      }),
    )
    .overwrite(cappedList(RESULT_CAPS.artifacts, (n) => ({ type: "note", label: `[… ${n} more artifacts not shown: truncated by hermes-kanban-bridge]` })))
    .default([]),
  error: z
    .object({ code: capped(RESULT_CAPS.code), message: capped(RESULT_CAPS.message) })
    .nullable()
    .default(null),
  /** The pull request that publishes the work (a completion contract's evidence, Hermes 0.21). */
  published_pr: z.string().regex(PR_URL, "a GitHub pull request URL (https://github.com/OWNER/REPO/pull/N)").optional(),
});

export type AgentResult = z.output<typeof AgentResultSchema>;

export interface BridgeInfo {
  trace_id: string;
  /** The seat that ran it (seat.name) and the host it runs on. */
  seat: string;
  host: string;
  /** Whether the agent reported its usage: an unmeasured run is never counted as free. */
  usage: "measured" | "unmeasured";
  agent: string;
  model?: string;
  /** The task's skills the run was given (its pins). */
  skills?: string[];
  run_id: number | null;
  started_at: string;
  duration_ms: number;
  turns?: number;
  cost_usd?: number;
  tokens?: { input: number; output: number; cache_read?: number; cache_write?: number };
  /** The agent's resumable session and whether this run continued it. */
  session?: { id: string; resumed: boolean };
  /** The run re-works a task reopened after it was done (0.21.6 `reopen`): the completed run it undid, why, when. */
  reopen?: { of_run: number | null; reason: string | null; kind: string | null; at: string };
  /** The workspace mode and where it ran (board, mapped, checkout); `note`: what became of the work (the branch it was pushed to). */
  workspace?: {
    mode: string;
    path: string;
    note?: string;
    /** What its hand-over to the agent's user left as it was (hard links out of it, other filesystems), with a few names. */
    kept?: {
      links: number;
      other_filesystems: number;
      devices: number;
      odd_names: number;
      sample: string[];
      writable?: boolean;
      copied?: number;
      copied_bytes?: number;
    };
  };
  /** What the run's proxy refused (host, port, how often) and let through (bytes per host) — network: proxy. */
  egress?: {
    /** `housekeeping`: the CLI's own call its work does not need (an update check, metrics), never advised. */
    blocked: { host: string; port: number; count: number; why: string; housekeeping?: boolean }[];
    blockedOther?: number;
    failed?: { host: string; port: number; count: number; why: string }[];
    allowed: { host: string; bytes: number }[];
  };
  /**
   * The agent CLI's API through the run's proxy (the seat's key): requests, bytes each way and the tokens the
   * answers reported; `beyond_report` when that is more than the agent reported (the card says so).
   */
  api?: {
    requests: number;
    bytes_out: number;
    bytes_in: number;
    tokens: { input: number; output: number; cache_read: number; cache_write: number };
    unread?: number;
    beyond_report?: true;
  };
  /** What the run did with the task tools (agent.budget.tools), and what was refused past its budget. */
  tools?: {
    comments: number;
    comment_bytes: number;
    heartbeats: number;
    attachments: number;
    refused: { comments: number; heartbeats: number; attachments: number };
  };
  /** Set only when the agent ran without a jail of its own (agent.isolation fell back, or the operator chose it). */
  isolation?: { mode: string; why: string };
  /** Set only when no cgroup capped the run (agent.limits rlimit: per process, weaker; or none). */
  limits?: { mode: string; why: string };
  /** The attempts started again before the close (agent.retries): why each ended, and when. */
  retries?: { attempt: number; cause: string; detail: string; at: string }[];
  exit: { code: number | null; signal: string | null; reason: string };
}

export interface CommonResult extends AgentResult {
  bridge: BridgeInfo;
  changed_files?: string[];
  verification?: { command: string; exit_code: number | null; duration_ms: number; output_tail: string }[];
}

export function isSuccess(r: AgentResult): boolean {
  return r.ok === true && (r.status === "ok" || r.status === "warn");
}

export function buildMetadata(result: AgentResult, bridge: BridgeInfo): CommonResult {
  return { ...result, bridge };
}

/** Validation error text naming the first offending key path, for protocol-violation blocks. */
export function describeResultIssues(err: z.ZodError): string {
  return err.issues
    .slice(0, 3)
    .map((i) => `result.${i.path.map(String).join(".") || "(root)"}: ${i.message}`)
    .join("; ");
}
