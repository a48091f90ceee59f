// The templated blocks a TaskRun writes when the bridge itself (not the agent) could not carry the
// run: the task could not be read, the run threw, a deliverable could not be preserved, the work could
// not be committed and pushed.
import { describeError } from "../errors/index.js";
import { type Decision, blockDecision } from "../result/decision.js";

export function readFailure(error: string): Decision {
  return blockDecision(
    "environment",
    `After the claim the bridge could not read the task from the board: ${error}`,
    ["unblock to retry", "check the board and the hermes CLI first"],
    "Check the board answers (`hermes-bridge doctor`), then unblock.",
    "Verify the board is reachable, then unblock this task.",
  );
}

export function internalFailure(err: unknown): Decision {
  return blockDecision(
    "environment",
    `The bridge could not run the task: ${describeError(err)}`,
    ["unblock to retry", "check the bridge's log and its host first"],
    "Look at the error above; fix the bridge host if it is at fault, then unblock.",
    "Check the bridge (`hermes-bridge doctor`), then unblock this task.",
  );
}

export function deliverableBlock(file: string, why: string): Decision {
  return blockDecision(
    "environment",
    `The agent asked to complete, but its deliverable ${file} could not be preserved on the board: ${why}. A scratch workspace is deleted when the task completes, so the complete was not sent.`,
    ["fix the deliverable (or its artifacts entry) and unblock", "attach the file by hand and complete the task"],
    "Make the declared deliverable available (or correct the artifact path), then unblock.",
    `Check ${file} in the workspace, then unblock or complete by hand.`,
  );
}

export function workspaceFinishBlock(why: string, setting: string): Decision {
  return blockDecision(
    "environment",
    `The agent asked to complete, but its work could not be committed and pushed (${setting}): ${why}`,
    ["fix the repository access and unblock", "push the branch by hand and complete the task"],
    "Fix the push (credentials, remote, branch protection), then unblock: the work tree keeps the changes.",
    "Fix the repository access, then unblock this task.",
  );
}

/** The claim took effect but the CLI reported a failure (e.g. a `worktree:` checkout that failed): closed at once. */
export function claimFailureBlock(err: Error): Decision {
  return blockDecision(
    "environment",
    `The board took this seat's claim, but \`hermes kanban claim\` then failed: ${describeError(err)}. The agent was not started; the claim is closed here instead of waiting for its TTL.`,
    ["fix what the CLI reports (the task's workspace, its repository or branch) and unblock", "change the task's --workspace and unblock"],
    "Fix the cause the CLI names above, then unblock.",
    "Fix the task's workspace (or the board host) as the error says, then unblock this task.",
  );
}

/** The run left its repository set to run a program whenever git runs there (git/guard.ts): put back, and a person looks first. */
export function repositoryBlock(findings: readonly { what: string; detail: string }[]): Decision {
  const list = findings
    .slice(0, 5)
    .map((f) => f.detail)
    .join("; ");
  const more = findings.length > 5 ? ` (and ${findings.length - 5} more)` : "";
  return blockDecision(
    "human decision needed",
    `The run left the workspace's repository set to run a program whenever git runs there: ${list}${more}. Anyone's next git command in that repository would have run it on this host, outside the agent's jail. The bridge put the repository's config and hooks back as they were before the run; the agent's other changes are still in the workspace, and the run's result was not applied.`,
    ["review the workspace's changes, then unblock to let the agent continue", "discard the run's changes and unblock to start over"],
    `Review what the agent changed before trusting the work: it tried to make git run ${findings[0]?.what ?? "a program"}.`,
    "A person reviews the workspace's changes (the repository's config is already restored), then unblocks or closes this task.",
  );
}

/** The task's workspace nests with a live run's (jail/live.ts): the agent was not started. */
export function workspaceNestedBlock(why: string): Decision {
  return blockDecision(
    "human decision needed",
    `The agent was not started: ${why}. A run's jail shows its whole workspace to its agent, so no run may work in a folder that holds, or lies inside, another live run's.`,
    ["wait for the other run to end, then unblock", recreate("a folder of its own, beside the other run's (not above or below it)")],
    "Two tasks share a workspace only when it is the very same folder: wait for the other run, or give this work a folder of its own.",
    "Unblock this task once the other run has ended, or create it again with a folder of its own.",
  );
}

/** A task's workspace cannot change on the board (no Hermes verb edits it): the way out of a wrong one. */
const recreate = (folder: string) => `create the task again with ${folder} (hermes kanban create … --workspace dir:<folder>) and archive this one`;

/** The task's workspace is one no setting may allow (an allowed root itself, the board's or the bridge's own files): the agent was not started. */
export function taskWorkspaceBlock(why: string): Decision {
  return blockDecision(
    "human decision needed",
    `The agent was not started: ${why}. No setting allows this folder, and a task's workspace cannot be changed on the board.`,
    [recreate("a folder of its own inside an allowed root (workspace.allowedRoots)")],
    "Create the task again with a folder of its own inside an allowed root; unblocking this one meets the same refusal.",
    "Create the task again with another --workspace, then archive this one.",
  );
}
