// The preparing phase: the workspace on this host (allowed roots, mode, checkout), the session plan
// (resume, fresh, or the resume budget used up), workspace hygiene, the context file and the prompts.
// Anything that keeps the agent from starting ends here in a templated block, never a running task.
import { join } from "node:path";
import type { AgentAdapter, AgentRunInput } from "../agents/port.js";
import type { Lease, TaskDetail } from "../board/port.js";
import { SessionJournal, type SessionRecord } from "../continuity/journal.js";
import { type RunPlan, continuationVars, planRun } from "../continuity/plan.js";
import { describeError } from "../errors/index.js";
import { type Snapshot, snapshot } from "../gate/changes.js";
import { type GateConfig, dirtyBlock } from "../gate/gate.js";
import { type Decision, blockDecision } from "../result/decision.js";
import { type PreparedWorkspace, type WorkspaceProvider, WorkspaceRefused } from "../workspace/port.js";
import { renderPrompt, writeContextFile } from "./prompt.js";

export interface PrepareInput {
  lease: Lease;
  detail: TaskDetail;
  context: string;
  dir: string;
  agent: AgentAdapter;
  workspaces: WorkspaceProvider;
  continuity: { journal: SessionJournal; enabled: boolean; budget: number };
  gate: { config: GateConfig; env: Record<string, string> };
  prompts: { task: string; resume: string };
  author: string;
  adopted?: { workspace: string; tools: { path: string; token: string } | null } | undefined;
  signal: AbortSignal;
}

export interface Prepared {
  record: SessionRecord;
  ws: PreparedWorkspace;
  before: Snapshot | null;
  plan: RunPlan;
  /** The agent's input without the run-scoped parts (signals, tools) and with the fresh prompt. */
  input: Omit<AgentRunInput, "signal" | "wrapUp" | "tools" | "resume">;
  /** The continuation prompt, when the plan resumes. */
  resumePrompt: string | null;
}

export type PrepareResult = Prepared | { decision: Decision; record: SessionRecord | null };

export async function prepareRun(i: PrepareInput): Promise<PrepareResult> {
  const { lease, detail } = i;
  let ws: PreparedWorkspace;
  try {
    ws = await i.workspaces.prepare(lease, detail.task, i.signal);
  } catch (err) {
    return { decision: workspaceBlock(err), record: null };
  }
  const j = i.continuity.journal;
  const record = (await j.get(lease.board, lease.taskId)) ?? SessionJournal.fresh(lease.board, lease.taskId, i.agent.name);
  const contextFile = join(i.dir, "context.json");
  const resultFile = join(i.dir, "outcome.json");
  const input = {
    taskId: lease.taskId,
    runId: lease.runId,
    workspace: ws.local,
    prompt: "",
    contextFile,
    resultFile,
    runDir: i.dir,
    sessionDir: j.taskDir(lease.board, lease.taskId),
  };
  if (i.adopted) return { record, ws, before: null, plan: { mode: "fresh", note: null }, input, resumePrompt: null };
  const before = await snapshot(ws.local, i.gate.env);
  if (before.kind === "git" && before.dirty.length > 0 && !i.gate.config.allowDirty) return { decision: dirtyBlock(ws.local, before.dirty), record };
  const plan = planRun(record, {
    agent: i.agent.name,
    resumable: i.agent.resumable === true,
    enabled: i.continuity.enabled,
    budget: i.continuity.budget,
    workspace: ws.local,
  });
  if (plan.mode === "exhausted") return { decision: exhaustedBlock(plan.resumes, plan.session), record: { ...record, session: null, resumes: 0 } };
  const last = plan.mode === "resume" ? plan.last : null;
  await writeContextFile(
    contextFile,
    detail,
    i.context,
    lease.runId,
    plan.mode === "resume" ? { session: plan.session, cut_reason: last?.cut ?? "unknown", previous_run_id: last?.runId ?? null } : undefined,
  );
  const p = { detail, contextText: i.context, workspace: ws.local, contextFile, resultFile };
  input.prompt = renderPrompt(i.prompts.task, p);
  const resumePrompt = plan.mode === "resume" ? renderPrompt(i.prompts.resume, p, continuationVars(detail, last, i.author)) : null;
  return { record: { ...record, agent: i.agent.name, workspace: ws.local }, ws, before, plan, input, resumePrompt };
}

function workspaceBlock(err: unknown): Decision {
  const setting = err instanceof WorkspaceRefused ? err.setting : "workspace";
  return blockDecision(
    "environment",
    `The agent was not started: the task's workspace cannot be used on this seat (${setting}): ${describeError(err)}`,
    [`fix ${setting} in the bridge's config (or the task's workspace) and unblock`, "move the task to a seat that can reach the workspace"],
    `Correct ${setting} or the task's --workspace, then unblock.`,
    "Fix the workspace setting named above, then unblock this task.",
  );
}

function exhaustedBlock(resumes: number, session: string): Decision {
  return blockDecision(
    "human decision needed",
    `This task's session (${session}) was already resumed ${resumes} times (agent.resumeBudget) without finishing: another run is unlikely to finish it. The agent was not started; the session is dropped, so after an unblock the next run starts fresh with the earlier runs' summaries.`,
    ["split the task into smaller ones", "raise agent.resumeBudget and unblock", "unblock to start over in a fresh session"],
    "Split the task: a task that needs more than the resume budget is too big for one claim at a time.",
    "Decide: split the task, or unblock to start over.",
  );
}
