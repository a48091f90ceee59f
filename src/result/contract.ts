// Completion contracts (Hermes 0.21: `create --completion-contract`): what a task's contract asks of a
// run, said once — in the agent's prompt before it works, and in the block that replaces a `complete`
// the board refused for the contract. `local-only` (or none) asks nothing.

/** A GitHub pull request URL, as Hermes's PR acceptance reads `metadata.published_pr`. */
export const PR_URL = /^https:\/\/github\.com\/([A-Za-z0-9_.-]+\/[A-Za-z0-9_.-]+)\/pull\/([1-9][0-9]*)$/;
const REPO = /^[A-Za-z0-9_.-]+\/[A-Za-z0-9_.-]+$/;

/** What the contract needs, in one sentence (null: it needs nothing beyond a normal complete). */
export function contractNeeds(contract: string | null): string | null {
  if (!contract || contract === "local-only") return null;
  if (contract === "evidence-required")
    return "the board completes this task only with completion evidence: name what you verified and how (commands run, their results) in the summary and the result's note";
  const pr = PR_URL.exec(contract);
  if (pr)
    return `the board completes this task only when the pull request ${contract} is open or merged with its required checks green; put "published_pr": "${contract}" in your result`;
  if (REPO.test(contract))
    return `the board completes this task only with a pull request published to ${contract} whose required checks are green: open it, then put "published_pr": "<its https://github.com/${contract}/pull/N URL>" in your result`;
  return `the board applies the completion contract "${contract}" to this task`;
}

/** The prompt's paragraph about the contract (empty when it asks nothing). */
export function contractBrief(contract: string | null): string {
  const needs = contractNeeds(contract);
  return needs ? `\n\nCompletion contract (${contract}): ${needs}. Without it, your complete is refused and the task is blocked for a human.\n` : "";
}

/** Why the board refused a complete, when the task's contract explains it (the board's own words first). */
export function contractRefusal(task: { completionContract: string | null; lastFailure: string | null }): string | null {
  const needs = contractNeeds(task.completionContract);
  if (!needs) return null;
  const said = task.lastFailure ? ` The board says: ${task.lastFailure.slice(0, 800)}` : "";
  return `The task's completion contract is ${task.completionContract}: ${needs}.${said}`;
}
