// The blocks the bridge's own checks make after the agent ran: the gate refused a complete; the run left
// its repository set to run code; the agent's limit or login claim was not confirmed and the run before was
// handed back by another seat at its limit; a deliverable could not be preserved; the work could not be
// committed and pushed; the run threw. One part of the run's one table (table.ts).
import type { Claim, ClaimCheck } from "../../agents/probe.js";
import { describeError } from "../../errors/index.js";
import type { GateFinding } from "../../gate/gate.js";
import type { BlockText, BlockTexts } from "./text.js";

/** The keys of the bridge's own checks after the agent, each with what its text names. */
export interface AfterAgentArgs {
  gate: [found: GateFinding];
  repository: [findings: readonly { what: string; detail: string }[]];
  two_seats: [claim: Claim, check: ClaimCheck, other: string, seat: string];
  deliverable: [file: string, why: string];
  workspace_finish: [why: string, setting: string];
  internal: [err: unknown];
}

/** The gate's verdict on a complete (gate/gate.ts found it): verification failed, nothing changed, too few items. */
function gateText(g: GateFinding): BlockText {
  if (g.kind === "verification_failed") {
    const { failed } = g;
    return [
      "test failure",
      `The agent asked to complete, but verification failed: \`${failed.command}\` ${failed.timed_out ? `timed out after ${g.timeoutSeconds} s (gate.timeoutSeconds)` : `exited ${failed.exit_code}`}. Output tail: ${failed.output_tail || "(none)"}`,
      ["fix the failure in the workspace and unblock to retry", "change the verification command if it is wrong"],
      "Fix what the failing command reports, then unblock.",
      `Make \`${failed.command}\` pass (or correct it), then unblock.`,
    ];
  }
  if (g.kind === "no_change")
    return [
      "test failure",
      "The agent claimed success but the workspace has no change (gate.requireChanges).",
      ["check whether the task really needed no change and complete by hand", "unblock to retry"],
      "Check the task: a change was expected, so retry unless nothing was needed.",
      "Decide whether no change is acceptable; complete by hand or unblock.",
    ];
  return [
    "test failure",
    `The agent reported ${g.items} item(s), fewer than gate.minItems (${g.min}): 0 items is not success.`,
    ["check the input the task worked on", "unblock to retry"],
    "Look at why nothing was processed before retrying.",
    "Check the input, then unblock or complete by hand.",
  ];
}

export const AFTER_AGENT: BlockTexts<AfterAgentArgs> = {
  gate: gateText,
  // The run left its repository set to run a program whenever git runs there (git/guard.ts): put back, and a person looks first.
  repository: (findings) => {
    const list = findings
      .slice(0, 5)
      .map((f) => f.detail)
      .join("; ");
    const more = findings.length > 5 ? ` (and ${findings.length - 5} more)` : "";
    return [
      "human decision needed",
      `The run left the workspace's repository set to run a program whenever git runs there: ${list}${more}. Anyone's next git command in that repository would have run it on this host, outside the agent's jail. The bridge put the repository's config and hooks back as they were before the run; the agent's other changes are still in the workspace, and the run's result was not applied.`,
      ["review the workspace's changes, then unblock to let the agent continue", "discard the run's changes and unblock to start over"],
      `Review what the agent changed before trusting the work: it tried to make git run ${findings[0]?.what ?? "a program"}.`,
      "A person reviews the workspace's changes (the repository's config is already restored), then unblocks or closes this task.",
    ];
  },
  // Two seats in a row reported a limit (or a failed login) their own checks did not confirm (work/claims.ts).
  two_seats: (claim, check, other, seat) => {
    const what = claim === "limit" ? "a usage limit" : "a failed login";
    return [
      "human decision needed",
      `The agent reported ${what} on seat ${seat}, which the seat's own check did not confirm (${check.detail}); the run before this one was handed back by seat ${other} at a usage limit. Two seats in a row is what a task that steers its agents into reporting limits looks like, so the task is not handed on to drain the next seat of the pool.`,
      [
        "read the task's text and comments for instructions aimed at the agent, fix them and unblock",
        "unblock as it is if the seats really were at their limits",
      ],
      "Check the task's text before it goes back to the pool.",
      "A person reads the task and its last runs, then unblocks or closes it.",
    ];
  },
  deliverable: (file, why) => [
    "environment",
    `The agent asked to complete, but its deliverable ${file} could not be preserved on the board: ${why}. A scratch workspace is deleted when the task completes, so the complete was not sent.`,
    ["fix the deliverable (or its artifacts entry) and unblock", "attach the file by hand and complete the task"],
    "Make the declared deliverable available (or correct the artifact path), then unblock.",
    `Check ${file} in the workspace, then unblock or complete by hand.`,
  ],
  workspace_finish: (why, setting) => [
    "environment",
    `The agent asked to complete, but its work could not be committed and pushed (${setting}): ${why}`,
    ["fix the repository access and unblock", "push the branch by hand and complete the task"],
    "Fix the push (credentials, remote, branch protection), then unblock: the work tree keeps the changes.",
    "Fix the repository access, then unblock this task.",
  ],
  internal: (err) => [
    "environment",
    `The bridge could not run the task: ${describeError(err)}`,
    ["unblock to retry", "check the bridge's log and its host first"],
    "Look at the error above; fix the bridge host if it is at fault, then unblock.",
    "Check the bridge (`hermes-bridge doctor`), then unblock this task.",
  ],
};
