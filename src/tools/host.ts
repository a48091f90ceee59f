// The task tools' one implementation, scoped to one run (no task id anywhere): show, heartbeat and
// comment act at once through the run's fenced view (ownership checked, fenced on the run id);
// complete and block are validated and recorded as the agent's request, applied by the daemon after
// the agent exits and after the gate. The run's budget for the tools (budget.ts) answers an error naming
// it past its comments, their bytes, heartbeats a minute or the files a complete may attach.
import { shownToAgent } from "./shown.js";
import { z } from "zod";
import { type RunInbox, renderNote } from "./notes.js";
import { LeaseLost } from "../errors/board.js";
import { describeError } from "../errors/index.js";
import type { FencedBoard } from "../lease/fenced.js";
import { AgentResultSchema } from "../result/common.js";
import type { OutcomeRequest } from "../result/decision.js";
import type { Redactor } from "../result/redact.js";
import { BlockTemplateSchema } from "../result/template.js";
import type { ToolBudget } from "./budget.js";

export const TOOL_NAMES = ["kanban_show", "kanban_heartbeat", "kanban_comment", "kanban_complete", "kanban_request_review", "kanban_block"] as const;
export type ToolName = (typeof TOOL_NAMES)[number];

export const TOOL_SCHEMAS = {
  kanban_show: z.object({}),
  kanban_heartbeat: z.object({ note: z.string().max(2000).describe("short progress note") }),
  kanban_comment: z.object({ body: z.string().trim().min(1).max(20_000).describe("a fact worth keeping on the task (not thoughts)") }),
  kanban_complete: z.object({
    summary: z.string().min(1).describe("for humans: what was done"),
    result: AgentResultSchema.describe("for machines: {ok, status, items, metrics, note, artifacts, error}"),
  }),
  kanban_request_review: z.object({
    summary: z.string().min(1).describe("for the reviewer: what was implemented and how it was verified"),
    result: AgentResultSchema.describe("for machines: {ok, status, items, metrics, note, artifacts, error}"),
    reviewer: z
      .string()
      .regex(/^[a-z0-9][a-z0-9_-]{0,63}$/, "a profile name")
      .optional()
      .describe("the profile to review it (optional: the seat's configured reviewer)"),
  }),
  kanban_block: BlockTemplateSchema,
} as const;

export const TOOL_DESCRIPTIONS: Record<ToolName, string> = {
  kanban_show: "Read this task: title, body, comments, prior runs.",
  kanban_heartbeat: "Report progress at a milestone (keeps the claim visibly alive).",
  kanban_comment: "Add a comment with a fact others need. Never secrets.",
  kanban_complete: "Finish: ask to complete the task. Applied after you exit, once the bridge's checks pass.",
  kanban_request_review: "Finish: hand the task over for review (ready for review, not done). Applied after you exit, once the bridge's checks pass.",
  kanban_block: "Finish: ask to block the task with the five-field template (cause, what_happened, options, recommendation, next_action).",
};

export type ToolAnswer = { ok: true; text: string } | { ok: false; error: string };

export interface ToolHostDeps {
  /** Operator notes to append to the answer of the next tool call (agents with no live channel: Codex). */
  inbox?: RunInbox | undefined;
  fenced: Pick<FencedBoard, "show" | "heartbeat" | "comment" | "lease">;
  /** For error texts handed back to the agent (what reaches the board is redacted at the board). */
  redactor: Redactor;
  onNote?: (note: string) => void;
  /** The run's budget for the tools (agent.budget.tools); unset: none. */
  budget?: ToolBudget | undefined;
}

export class ToolHost {
  private ended = false;
  request: OutcomeRequest | null = null;

  constructor(private readonly d: ToolHostDeps) {}

  end(): void {
    this.ended = true;
  }

  async call(name: string, args: unknown): Promise<ToolAnswer> {
    if (this.ended) return { ok: false, error: "this run has ended: the tool cannot act any more" };
    if (!(TOOL_NAMES as readonly string[]).includes(name)) return { ok: false, error: `unknown tool '${name}'` };
    const tool = name as ToolName;
    const parsed = TOOL_SCHEMAS[tool].safeParse(args ?? {});
    if (!parsed.success)
      return { ok: false, error: `invalid ${tool} arguments: ${parsed.error.issues.map((i) => `${i.path.join(".") || "(input)"}: ${i.message}`).join("; ")}` };
    try {
      return this.withNotes(await this.act(tool, parsed.data as never));
    } catch (err) {
      if (err instanceof LeaseLost) {
        this.ended = true;
        return { ok: false, error: "this run lost its claim on the task: stop working; nothing more will be applied" };
      }
      return { ok: false, error: this.d.redactor.redact(describeError(err)) };
    }
  }

  /** Pending operator notes ride on the answer (a note is handed over once; then it is delivered). */
  private withNotes(a: ToolAnswer): ToolAnswer {
    const notes = this.d.inbox?.pending() ?? [];
    if (!a.ok || notes.length === 0 || this.ended) return a;
    this.d.inbox?.delivered(notes.map((n) => n.id));
    return { ok: true, text: `${a.text}\n\n${notes.map(renderNote).join("\n\n")}` };
  }

  private async act(tool: ToolName, a: Record<string, unknown>): Promise<ToolAnswer> {
    const { fenced } = this.d;
    switch (tool) {
      case "kanban_show": {
        const d = shownToAgent(await fenced.show(), "").detail;
        const doc = { task: d.task, comments: d.comments, parents: d.parents, prior_runs: d.runs.filter((r) => r.id !== fenced.lease.runId) };
        return { ok: true, text: JSON.stringify(doc, null, 2) };
      }
      case "kanban_heartbeat": {
        const note = String(a.note);
        const over = this.d.budget?.heartbeat();
        if (!over) await fenced.heartbeat(note);
        this.d.onNote?.(note);
        return over ? { ok: false, error: `kanban_heartbeat: ${over}` } : { ok: true, text: "recorded" };
      }
      case "kanban_comment": {
        const body = String(a.body);
        const over = this.d.budget?.comment(Buffer.byteLength(body));
        if (over) return { ok: false, error: `kanban_comment: ${over}` };
        await fenced.comment(body);
        return { ok: true, text: "comment added" };
      }
      case "kanban_complete":
      case "kanban_request_review": {
        const files = (a.result as { artifacts: { path?: string | undefined; attachment?: unknown }[] }).artifacts.filter(
          (x) => x.path && !x.attachment,
        ).length;
        const over = this.d.budget?.wouldAttach(files);
        if (over) return { ok: false, error: `${tool}: ${over} — name fewer files; the rest can stay in the workspace, named in the summary` };
        return this.finish(tool, a);
      }
      case "kanban_block":
        this.request = { kind: "block", block: a as never };
        return { ok: true, text: "block recorded: it is applied after you exit. Stop working now." };
    }
  }

  private finish(tool: "kanban_complete" | "kanban_request_review", a: Record<string, unknown>): ToolAnswer {
    switch (tool) {
      case "kanban_complete":
        this.request = { kind: "complete", summary: String(a.summary), result: a.result };
        return { ok: true, text: "completion recorded: it is applied after you exit, once the bridge's checks pass. Stop working now." };
      case "kanban_request_review":
        this.request = {
          kind: "complete",
          summary: String(a.summary),
          result: a.result,
          review: { reviewer: typeof a.reviewer === "string" ? a.reviewer : null },
        };
        return { ok: true, text: "review hand-off recorded: it is applied after you exit, once the bridge's checks pass. Stop working now." };
    }
  }
}
