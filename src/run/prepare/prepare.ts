// The preparing phase: the workspace on this host (allowed roots, mode, checkout), the session plan
// (resume, fresh, or the resume budget used up), workspace hygiene, the context file and the prompts.
// Anything that keeps the agent from starting ends here in a templated block, never a running task.
import { join } from "node:path";
import type { AgentAdapter } from "../../agents/port.js";
import type { TaskDetail } from "../../board/port.js";
import { activePrHold } from "../../board/pr-guard.js";
import type { LastRunInfo, SessionJournal } from "../../continuity/journal.js";
import { continuationVars, planRun } from "../../continuity/plan.js";
import { TaskSession } from "../../continuity/session.js";
import { dropSnapshot, snapshot } from "../../gate/changes.js";
import type { GateConfig } from "../../gate/gate.js";
import type { GitRunner } from "../../git/runner.js";
import { contractBrief } from "../../result/contract.js";
import type { Decision } from "../../result/decision.js";
import type { PreparedWorkspace, WorkspaceProvider } from "../../workspace/port.js";
import { blockFor } from "../blocks/table.js";
import { checkPins, stagePins } from "./pins.js";
import { changesBrief, reviewRoundsBlock } from "./review.js";
import { reopenBrief, reopenRecord } from "./reopen.js";
import { shownToAgent } from "../../tools/shown.js";
import { renderPrompt, writeContextFile } from "./prompt.js";
import type { Prepared, ReviewPolicy } from "../context.js";
import type { RunRecord } from "../record.js";

export interface PrepareInput {
  record: RunRecord;
  detail: TaskDetail;
  context: string;
  dir: string;
  privateDir: string;
  agent: AgentAdapter;
  workspaces: WorkspaceProvider;
  continuity: { journal: SessionJournal; enabled: boolean; budget: number };
  gate: { config: GateConfig; env: Record<string, string>; git: GitRunner };
  prompts: { task: string; resume: string };
  skillRoots: readonly string[];
  author: string;
  adopted?: { workspace: string; tools: { path: string; token: string } | null } | undefined;
  /** Honour Hermes's `active_pr` guard (its CLI names the way past it: `authorize-existing-pr`, 0.21.4+). */
  activePrGuard?: boolean | undefined;
  /** close.maxReviewRounds (the review policy), and whose words the seat takes as steering (steering.authors). */
  review?: ReviewPolicy | undefined;
  steering?: { authors: readonly string[] } | undefined;
  signal: AbortSignal;
}

export type PrepareResult = Prepared | { decision: Decision };

export async function prepareRun(i: PrepareInput): Promise<PrepareResult> {
  const { record, detail } = i;
  const lease = record.lease;
  // A PR an earlier run opened holds the task (board/pr-guard.ts): no workspace, no agent.
  const held = i.activePrGuard ? activePrHold(detail, record.story.startedAt / 1000, lease.runId) : null;
  if (held) return { decision: blockFor("active_pr", held, detail.task, lease.board) };
  // A task that went round review close.maxReviewRounds times needs a person, not another run.
  const rounds = i.adopted ? null : reviewRoundsBlock(detail, i.review?.maxRounds);
  if (rounds) return { decision: rounds };
  let ws: PreparedWorkspace;
  try {
    ws = await i.workspaces.prepare(lease, detail.task, i.signal);
  } catch (err) {
    return { decision: blockFor("workspace_refused", err) };
  }
  const pinned = await checkPins(detail.task, i.agent, i.skillRoots);
  if ("decision" in pinned) return { decision: pinned.decision };
  const session = await TaskSession.open(i.continuity.journal, lease.board, lease.taskId, i.agent.name);
  record.session = session;
  record.title = detail.task.title;
  const input: Prepared["input"] = {
    taskId: lease.taskId,
    runId: lease.runId,
    workspace: ws.local,
    prompt: "",
    contextFile: join(i.dir, "context.json"),
    resultFile: join(i.dir, "outcome.json"),
    runDir: i.dir,
    outputDir: i.privateDir,
    sessionDir: session.dir(),
  };
  if (i.adopted) return { ws, before: null, plan: { mode: "fresh", note: null }, input, resumePrompt: null };
  const before = await snapshot(ws.local, i.gate.git, join(i.privateDir, "git-view"), i.signal);
  if (before.kind === "git" && before.dirty.length > 0 && !i.gate.config.allowDirty) {
    dropSnapshot(before);
    return { decision: blockFor("dirty", ws.local, before.dirty) };
  }
  const plan = planRun(session.record, {
    agent: i.agent.name,
    resumable: i.agent.resumable === true,
    enabled: i.continuity.enabled,
    budget: i.continuity.budget,
    workspace: ws.local,
  });
  if (plan.mode === "exhausted") {
    session.exhausted();
    dropSnapshot(before);
    return { decision: blockFor("exhausted", plan.resumes, plan.session) };
  }
  const staged = await stagePins(pinned.pins, i.dir, { plugin: i.agent.skillsAsPlugin === true });
  if ("decision" in staged) {
    dropSnapshot(before);
    return { decision: staged.decision };
  }
  input.pins = staged.pins;
  session.preparing(i.agent.name, ws.local);
  const last = plan.mode === "resume" ? plan.last : null;
  // What the agent reads of the task has nothing hidden in it (an HTML comment, invisible characters).
  const shown = shownToAgent(detail, i.context);
  await writeContextFile(
    input.contextFile,
    shown.detail,
    shown.contextText,
    lease.runId,
    plan.mode === "resume" ? { session: plan.session, cut_reason: last?.cut ?? "unknown", previous_run_id: last?.runId ?? null } : undefined,
  );
  const p = { detail: shown.detail, contextText: shown.contextText, workspace: ws.local, contextFile: input.contextFile, resultFile: input.resultFile };
  // Changes a review asked for (Hermes's record of it), or why a done task was reopened, lead the prompt; what the task's contract needs closes it.
  const lead = changesBrief(detail, { authors: i.steering?.authors }) + reopenBrief(shown.detail);
  record.story.reopen = reopenRecord(shown.detail);
  const contract = contractBrief(detail.task.completionContract);
  input.prompt = lead + renderPrompt(i.prompts.task, p) + contract;
  const resumePrompt = plan.mode === "resume" ? lead + renderPrompt(i.prompts.resume, p, continuationVars(shown.detail, last, i.author)) + contract : null;
  const continuePrompt = (r: { attempt: number; detail: string; at: number }) => {
    const cut: LastRunInfo = {
      runId: lease.runId,
      traceId: record.traceId,
      cut: "crash",
      at: new Date(r.at).toISOString(),
      note: `attempt ${r.attempt} of this run ended: ${r.detail}${record.story.lastNote ? `; its last progress note: ${record.story.lastNote}` : ""}`,
      changedFiles: [],
      commentsSeen: last?.commentsSeen ?? detail.comments.length,
      summary: null,
    };
    return lead + renderPrompt(i.prompts.resume, p, continuationVars(shown.detail, cut, i.author)) + contract;
  };
  return { ws, before, plan, input, resumePrompt, continuePrompt };
}
