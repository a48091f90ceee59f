// The prompts (task prompt, continuation prompt) and the context file handed to the agent.
import { readFileSync } from "node:fs";
import { writeFile } from "node:fs/promises";
import type { TaskDetail } from "../../board/port.js";
import { bundledFile } from "../../config/paths.js";

export interface PromptInput {
  detail: TaskDetail;
  contextText: string;
  workspace: string;
  contextFile: string;
  resultFile: string;
}

export function loadTemplate(file?: string): string {
  return readFileSync(file ?? bundledFile("prompts", "command.md"), "utf8");
}

/** The variables every template may use ({{task_id}}, {{body}}, {{prior_attempts}}, …). */
export function promptVars(p: PromptInput): Record<string, string> {
  const t = p.detail.task;
  return {
    task_id: t.id,
    title: t.title,
    body: t.body ?? "(no body)",
    workspace: p.workspace,
    context: p.contextText.trim(),
    context_file: p.contextFile,
    result_file: p.resultFile,
    comments: p.detail.comments.map((c) => `- ${c.author}: ${c.body}`).join("\n") || "(none)",
    prior_attempts:
      p.detail.runs
        .filter((r) => r.endedAt !== null)
        .map((r) => `- run ${r.id}: ${r.outcome ?? r.status}${r.summary ? ` — ${r.summary}` : ""}`)
        .join("\n") || "(none)",
  };
}

export function render(template: string, vars: Readonly<Record<string, string>>): string {
  return template.replace(/\{\{\s*([a-z_]+)\s*\}\}/g, (m, k: string) => vars[k] ?? m);
}

export function renderPrompt(template: string, p: PromptInput, extra: Readonly<Record<string, string>> = {}): string {
  return render(template, { ...promptVars(p), ...extra });
}

export interface ResumeInfo {
  session: string;
  cut_reason: string;
  previous_run_id: number | null;
}

export async function writeContextFile(path: string, detail: TaskDetail, contextText: string, runId: number | null, resume?: ResumeInfo): Promise<void> {
  const doc = {
    task: detail.task,
    run_id: runId,
    parents: detail.parents,
    comments: detail.comments,
    prior_runs: detail.runs.filter((r) => r.id !== runId),
    context: contextText,
    ...(resume ? { resume } : {}),
  };
  await writeFile(path, `${JSON.stringify(doc, null, 2)}\n`, { mode: 0o600 });
}
