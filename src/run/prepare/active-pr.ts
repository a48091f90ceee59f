// The block of a run Hermes's `active_pr` guard holds (board/pr-guard.ts): an earlier run opened a PR,
// and the agent is not started — a fresh run would open a duplicate. It names the way past the guard
// that Hermes 0.21.4+ gives an operator (hermes_cli/kanban.py `_cmd_authorize_existing_pr`, commit
// 00030df13ffeaadcadf9d79935bac522e5552c88: the task id, then --pr, --repo, --branch, --reason): a
// single-use grant the next run of the task spends, after which the guard holds again.
import type { ActivePr } from "../../board/pr-guard.js";
import type { Task } from "../../board/port.js";
import { type Decision, blockDecision } from "../../result/decision.js";

export function activePrBlock(held: ActivePr, task: Task, board: string): Decision {
  const branch = task.branchName ?? "<the PR's head branch>";
  const grant = `hermes kanban --board ${board} authorize-existing-pr ${task.id} --pr ${held.prUrl} --repo ${held.repo || "<OWNER/REPO>"} --branch ${branch} --reason "<why this card may amend it>"`;
  const others = held.urls.filter((u) => u !== held.prUrl);
  return blockDecision(
    "human decision needed",
    `The agent was not started: a comment of the last 24 hours links the pull request ${held.prUrl}${others.length ? ` (and ${others.join(", ")})` : ""}, so an earlier run already opened a PR for this task, and a fresh run would open a duplicate (Hermes's active_pr respawn guard, which the bridge honours for its own runs).`,
    [
      `let this card amend that PR: \`${grant}\`, then \`hermes kanban --board ${board} unblock ${task.id}\` (the grant covers one run)`,
      `hand the task on instead (\`hermes kanban --board ${board} assign ${task.id} <profile>\`, or request changes on its review): a hand-off lifts the guard`,
      "complete or archive the task if the PR already does what it asks",
    ],
    held.urls.length > 1
      ? `Several PRs are linked (${held.urls.join(", ")}): a grant names one, so settle which PR this card owns first.`
      : `Authorize the same-PR remediation if this card should amend ${held.prUrl}: \`${grant}\`.`,
    `Decide whether ${task.id} may amend ${held.prUrl}; if so, authorize it and unblock the task.`,
  );
}
