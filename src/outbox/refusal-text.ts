// The block text of a close the board refused for a reason the bridge can name the fix of (Hermes
// 0.21.4+, NousResearch/hermes-agent hermes_cli/kanban.py at commit 00030df13ffeaadcadf9d79935bac522e5552c88):
// the goal judge of a `--goal` task (`_goal_gate_error`, on `complete` and `request-review`) and parents
// that are not done (`_cmd_complete`: `unsatisfied parent dependencies: <id> (<status>)`). Any other
// refusal keeps the generic text of outbox/refused.ts.
import { GoalJudgeRejected, UnmetParents } from "../errors/board.js";
import type { BlockTemplate } from "../result/template.js";

export interface RefusedClose {
  taskId: string;
  board: string;
  /** `request-review` (true) or `complete`. */
  review: boolean;
  /** The agent's summary as the block quotes it (already cut to length). */
  summary: string;
}

const cli = (board: string, rest: string) => `hermes kanban --board ${board} ${rest}`;

/** The template for a typed refusal, or null for one the generic text covers. */
export function refusalTemplate(err: unknown, c: RefusedClose): BlockTemplate | null {
  const asked = c.review ? "hand the task over for review" : "complete the task";
  const said = `The agent's summary was: ${JSON.stringify(c.summary)}`;
  if (err instanceof GoalJudgeRejected) {
    const words = JSON.stringify(err.judgeReason);
    if (err.verdict === "unachievable")
      return {
        cause: "spec undecided",
        what_happened: `The agent finished and the bridge asked the board to ${asked}, but the board's goal judge (the task was created with --goal) ruled its goal unachievable: ${words}. ${said}`,
        options: [
          `re-scope the goal so it can be met (${cli(c.board, `edit ${c.taskId} --body …`)}), then unblock`,
          "split the task into goals that can be met",
          `archive the task if its goal is no longer wanted (${cli(c.board, `archive ${c.taskId}`)})`,
        ],
        recommendation: `Re-scope the task: the judge ruled its goal unachievable as written (${words}).`,
        next_action: `Re-scope ${c.taskId} with \`${cli(c.board, `edit ${c.taskId} --body …`)}\`, then unblock it.`,
      };
    return {
      cause: "human decision needed",
      what_happened: `The agent finished and the bridge asked the board to ${asked}, but the board's goal judge (the task was created with --goal) refused it: ${words}. ${said}`,
      options: [
        `unblock with a comment that says what the judge found missing (${cli(c.board, `unblock --reason "…" ${c.taskId}`)}): the next run resumes with it`,
        `re-scope the goal if the judge asks for more than the task should (${cli(c.board, `edit ${c.taskId} --body …`)}), then unblock`,
        `archive the task if it is no longer wanted (${cli(c.board, `archive ${c.taskId}`)})`,
      ],
      recommendation: `The judge's own words say what the goal still lacks: ${words}.`,
      next_action: `Read the judge's words, then unblock ${c.taskId} with a comment naming what is missing (or re-scope it).`,
    };
  }
  if (err instanceof UnmetParents) {
    const list = err.parents.map((p) => `${p.id} (${p.status})`).join(", ");
    const ids = err.parents.map((p) => p.id).join(", ");
    const first = err.parents[0]?.id ?? "the parents";
    return {
      cause: "human decision needed",
      what_happened: `The agent finished and the bridge asked the board to ${asked}, but the board refused it: the task depends on parents that are not done — ${list}. ${said}`,
      options: [
        `complete the parents first (${ids}), then unblock ${c.taskId}: it waits in todo until they are done`,
        `drop a dependency that no longer holds (${cli(c.board, `unlink <parent> ${c.taskId}`)}), then unblock`,
        `complete ${c.taskId} by hand once its parents are done`,
      ],
      recommendation: `Finish ${first} first: a task completes only after its parents are done or archived.`,
      next_action: `Complete (or unlink) ${ids}, then unblock ${c.taskId}.`,
    };
  }
  return null;
}
