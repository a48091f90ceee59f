// The task prompt and the context file handed to the agent.
import { readFileSync } from "node:fs";
import { writeFile } from "node:fs/promises";
import type { TaskDetail } from "../board/port.js";
import { bundledFile } from "../config/paths.js";

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

export function renderPrompt(template: string, p: PromptInput): string {
  const t = p.detail.task;
  const vars: Record<string, string> = {
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
  return template.replace(/\{\{\s*([a-z_]+)\s*\}\}/g, (m, k: string) => vars[k] ?? m);
}

export async function writeContextFile(path: string, detail: TaskDetail, contextText: string, runId: number | null): Promise<void> {
  const doc = {
    task: detail.task,
    run_id: runId,
    parents: detail.parents,
    comments: detail.comments,
    prior_runs: detail.runs.filter((r) => r.id !== runId),
    context: contextText,
  };
  await writeFile(path, `${JSON.stringify(doc, null, 2)}\n`, { mode: 0o600 });
}
