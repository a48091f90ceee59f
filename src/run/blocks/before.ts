// The blocks of a run whose agent was never started: the task could not be read, or the claim failed on the
// board; a PR an earlier run opened holds the task (Hermes's `active_pr` guard); review went round too often;
// the task's pins (a provider, skills) are not this seat's; its workspace cannot be used here, is dirty, or
// nests with a live run's, or shares files a plain bridge could not copy; its session's resume budget is spent. One part of the run's one table (table.ts).
import type { ActivePr } from "../../board/pr-guard.js";
import type { Task } from "../../board/port.js";
import type { SharedCopyRefused } from "../../agent-files/unshare.js";
import { describeError } from "../../errors/index.js";
import { authorName } from "../../tools/notes.js";
import { WorkspaceRefused } from "../../workspace/port.js";
import type { BlockTexts } from "./text.js";

/** One review round trip as the block lists it (prepare/review.ts `reviewRounds`). */
export interface RoundText {
  via: string;
  by: string | null;
  reason: string | null;
}

/** The keys of a run whose agent was not started, each with what its text names. */
export interface BeforeAgentArgs {
  read_failed: [error: string];
  claim_failed: [err: Error];
  active_pr: [held: ActivePr, task: Task, board: string];
  review_rounds: [rounds: readonly RoundText[], max: number];
  pinned_provider: [pin: { model: string; provider: string }, agent: { name: string; providers: readonly string[] }];
  missing_skills: [missing: readonly string[], looked: boolean];
  skills_unstaged: [err: unknown];
  workspace_refused: [err: unknown];
  dirty: [workspace: string, dirty: readonly string[]];
  exhausted: [resumes: number, session: string];
  workspace_nested: [why: string];
  workspace_shared: [err: SharedCopyRefused];
  host_lock: [why: string];
}

/** A seat reads its config at start: a block whose way out is a setting says so (unblocked first, the task blocks the same way again). */
const RESTART = "(it reads its config at start; an unblock before that blocks the task again)";

/** A task's workspace cannot change on the board (no Hermes verb edits it): the way out of a wrong one. */
const recreate = (folder: string) => `create the task again with ${folder} (hermes kanban create … --workspace dir:<folder>) and archive this one`;

export const BEFORE_AGENT: BlockTexts<BeforeAgentArgs> = {
  read_failed: (error) => [
    "environment",
    `After the claim the bridge could not read the task from the board: ${error}`,
    ["unblock to retry", "check the board and the hermes CLI first"],
    "Check the board answers (`hermes-bridge doctor`), then unblock.",
    "Verify the board is reachable, then unblock this task.",
  ],
  // The claim took effect but the CLI reported a failure (e.g. a `worktree:` checkout that failed): closed at once.
  claim_failed: (err) => [
    "environment",
    `The board took this seat's claim, but \`hermes kanban claim\` then failed: ${describeError(err)}. The agent was not started; the claim is closed here instead of waiting for its TTL.`,
    ["fix what the CLI reports (the task's workspace, its repository or branch) and unblock", "change the task's --workspace and unblock"],
    "Fix the cause the CLI names above, then unblock.",
    "Fix the task's workspace (or the board host) as the error says, then unblock this task.",
  ],
  // It names the way past the guard that Hermes 0.21.4+ gives an operator (hermes_cli/kanban.py
  // `_cmd_authorize_existing_pr`, commit 00030df13ffeaadcadf9d79935bac522e5552c88: the task id, then --pr,
  // --repo, --branch, --reason): a single-use grant the next run of the task spends.
  active_pr: (held, task, board) => {
    const branch = task.branchName ?? "<the PR's head branch>";
    const grant = `hermes kanban --board ${board} authorize-existing-pr ${task.id} --pr ${held.prUrl} --repo ${held.repo || "<OWNER/REPO>"} --branch ${branch} --reason "<why this card may amend it>"`;
    const others = held.urls.filter((u) => u !== held.prUrl);
    return [
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
    ];
  },
  review_rounds: (rounds, max) => {
    const list = rounds
      .map(
        (r, i) => `${i + 1}: ${r.via} by ${r.by ? `@${authorName(r.by)}` : "?"}${r.reason ? ` — ${JSON.stringify(r.reason.slice(0, 160))}` : " (no reason)"}`,
      )
      .join("; ");
    return [
      "human decision needed",
      `This task went to review and was sent back ${rounds.length} times (close.maxReviewRounds: ${max}) — ${list}. Another round is unlikely to settle it: the agent was not started.`,
      [
        "decide what the task needs and say so in a comment, then unblock",
        "split the task or rewrite its acceptance criteria",
        "raise close.maxReviewRounds on the seat",
      ],
      "Read the rounds above: a reviewer and an implementer that disagree need a person's call, not another round.",
      "Decide between the reviewer's and the implementer's view, comment the decision, then unblock (the count starts again).",
    ];
  },
  pinned_provider: ({ model, provider }, agent) => [
    "environment",
    `The agent was not started: the task is pinned to the model ${model} of the provider ${provider}, and this seat's agent (${agent.name}) runs only ${agent.providers.join(" / ")} models.`,
    [`move the task to a seat whose agent runs ${provider} models`, "clear or change the pin (`hermes kanban set-model`) and unblock"],
    `Assign the task to a seat that runs ${provider}, or change its model pin.`,
    "Reassign the task or change its model pin, then unblock.",
  ],
  missing_skills: (missing, looked) => [
    "environment",
    // Where it looked is the host's business (the Hermes home, the install): the card names the kinds of places, never their paths.
    `The agent was not started: the task needs the skill(s) ${missing.join(", ")}, which this seat does not have (it looked for <name>/SKILL.md in ${looked ? "its agent.skillDirs, the board's Hermes home and the Hermes install's skills" : "no skill folder"}; the seat's host knows which folders those are).`,
    ["install the skill on this seat (agent.skillDirs or the Hermes home's skills) and unblock", "remove the skill from the task and unblock"],
    "Install the missing skill where this seat looks, then unblock.",
    `Install ${missing.join(", ")} for this seat, or drop it from the task; then unblock.`,
  ],
  skills_unstaged: (err) => [
    "environment",
    `The agent was not started: the task's skills could not be given to the run: ${describeError(err)}`,
    ["make the skill smaller (its folder is copied into each run)", "remove the skill from the task and unblock"],
    "Trim the skill's folder to what the agent needs, then unblock.",
    "Fix the skill named above, then unblock.",
  ],
  workspace_refused: (err) => {
    // A folder no setting may allow (an allowed root itself, the board's or the bridge's own files): the task's
    // workspace cannot be changed on the board (no Hermes verb edits it), so the way out is a new task.
    if (err instanceof WorkspaceRefused && err.byTask)
      return [
        "human decision needed",
        `The agent was not started: ${describeError(err)}. No setting allows this folder, and a task's workspace cannot be changed on the board.`,
        [recreate("a folder of its own inside an allowed root (workspace.allowedRoots)")],
        "Create the task again with a folder of its own inside an allowed root; unblocking this one meets the same refusal.",
        "Create the task again with another --workspace, then archive this one.",
      ];
    const setting = err instanceof WorkspaceRefused ? err.setting : "workspace";
    return [
      "environment",
      `The agent was not started: the task's workspace cannot be used on this seat (${setting}): ${describeError(err)}`,
      [
        `fix ${setting} in the bridge's config and restart the seat (it reads its config at start), or fix the task's workspace; then unblock`,
        "move the task to a seat that can reach the workspace",
      ],
      `Correct ${setting} or the task's --workspace, then unblock.`,
      "Fix the workspace setting named above, then unblock this task.",
    ];
  },
  // The workspace was dirty before the agent started: refused, left as it is.
  dirty: (ws, dirty) => [
    "environment",
    `The workspace is a git work tree with uncommitted changes that this run did not make (${dirty.slice(0, 10).join(", ")}${dirty.length > 10 ? `, +${dirty.length - 10} more` : ""}); the agent was not started. It is left as it is.`,
    ["commit or stash the changes, then unblock", "set gate.allowDirty and restart the seat if such changes are expected, then unblock"],
    "Commit or stash the unrelated changes so the run's own changes can be told apart, then unblock.",
    `Clean the work tree at ${ws}, then unblock this task.`,
  ],
  exhausted: (resumes, session) => [
    "human decision needed",
    `This task's session (${session}) was already resumed ${resumes} times (agent.resumeBudget) without finishing: another run is unlikely to finish it. The agent was not started; the session is dropped, so after an unblock the next run starts fresh with the earlier runs' summaries.`,
    [
      "split the task into smaller ones",
      "raise agent.resumeBudget, restart the seat (it reads its config at start) and unblock",
      "unblock to start over in a fresh session",
    ],
    "Split the task: a task that needs more than the resume budget is too big for one claim at a time.",
    "Decide: split the task, or unblock to start over.",
  ],
  // The task's workspace nests with a live run's (jail/live.ts).
  workspace_nested: (why) => [
    "human decision needed",
    `The agent was not started: ${why}. A run's jail shows its whole workspace to its agent, so no run may work in a folder that holds, or lies inside, another live run's.`,
    ["wait for the other run to end, then unblock", recreate("a folder of its own, beside the other run's (not above or below it)")],
    "Two tasks share a workspace only when it is the very same folder: wait for the other run, or give this work a folder of its own.",
    "Unblock this task once the other run has ended, or create it again with a folder of its own.",
  ],
  // A bridge that is not root: the workspace's files with names outside it could not get private copies (agent-files/unshare.ts).
  workspace_shared: (err) => [
    "environment",
    `The agent was not started: ${err.message}. This bridge runs its agent as its own user, who owns those files: rewritten in place, one changes at every name it has (the source repository's objects, every project's copy of a package), so each run gets private copies of them first${err.why === "failed" ? "" : "; nothing was copied"}.`,
    [
      "give the workspace files of its own (an existing clone: git repack -a -d in it; a new one: git clone --no-hardlinks; pnpm: package-import-method=copy, then rm -rf node_modules and install again) and unblock",
      err.why === "too_large"
        ? `raise agent.isolation.sharedCopyMaxMiB in the seat's config, restart the seat ${RESTART}, then unblock`
        : err.why === "unwalkable"
          ? "make the workspace smaller or shallower (what is named above), and unblock"
          : err.why === "mounted"
            ? "unmount what is named above, or mount it outside the workspace, and unblock"
            : "fix the cause named above (free space, permissions) and unblock",
      "run the bridge as root (it keeps such files read-only to the agent), or set agent.isolation.sharedFiles: keep (the agent could rewrite them) and restart the seat; then unblock",
    ],
    "Give the workspace files of its own (in a clone: git repack -a -d), then unblock.",
    "Make the workspace's shared files its own, or change agent.isolation.sharedFiles / sharedCopyMaxMiB and restart the seat; then unblock.",
  ],
  // The host's registry of workspaces stayed locked past a claim's wait (jail/live.ts).
  host_lock: (why) => [
    "environment",
    `The agent was not started: ${why}. Every seat of this host takes that lock for a moment to claim or give back a workspace; it was held far longer — a workspace of very many files being walked or copied, or a process stuck while holding it.`,
    ["unblock to try again once the holder is done", "if the holder named above is stuck, restart that process (its lock goes with it), then unblock"],
    "Unblock to try again; if it happens again, look at the process named above.",
    "Check the process holding the host's workspace lock, then unblock this task.",
  ],
};
