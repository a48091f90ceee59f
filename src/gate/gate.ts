// The success gate (seed 000: "the agent said done" is not success): the bridge's own checks turn a
// complete into a block when verification fails, nothing changed under requireChanges, or fewer
// items than gate.minItems were reported. Pure.
import type { GateConfig } from "../config/schema.js";
import type { Decision, GateExtras } from "../result/decision.js";
import type { VerificationResult } from "./verification.js";

export type { GateConfig };

export interface GateFacts {
  verification: VerificationResult[];
  /** Body commands that were not run (body verification off, or not allowed). */
  skipped?: string[];
  changedFiles: string[] | null;
  diffStat: string | null;
}

export function applyGate(d: Decision, facts: GateFacts, cfg: GateConfig): Decision {
  if (d.type !== "complete") return d;
  const extras: GateExtras = {};
  if (facts.verification.length) extras.verification = facts.verification;
  if (facts.changedFiles) extras.changed_files = facts.changedFiles;
  if (facts.diffStat) extras.diff_stat = facts.diffStat;
  if (facts.skipped?.length) extras.verification_skipped = facts.skipped;
  const failed = facts.verification.find((v) => v.exit_code !== 0);
  if (failed)
    return testFailure(
      `The agent asked to complete, but verification failed: \`${failed.command}\` ${failed.timed_out ? `timed out after ${cfg.timeoutSeconds} s (gate.timeoutSeconds)` : `exited ${failed.exit_code}`}. Output tail: ${failed.output_tail || "(none)"}`,
      ["fix the failure in the workspace and unblock to retry", "change the verification command if it is wrong"],
      "Fix what the failing command reports, then unblock.",
      `Make \`${failed.command}\` pass (or correct it), then unblock.`,
    );
  if (cfg.requireChanges && facts.changedFiles !== null && facts.changedFiles.length === 0)
    return testFailure(
      "The agent claimed success but the workspace has no change (gate.requireChanges).",
      ["check whether the task really needed no change and complete by hand", "unblock to retry"],
      "Check the task: a change was expected, so retry unless nothing was needed.",
      "Decide whether no change is acceptable; complete by hand or unblock.",
    );
  if (d.result.items < cfg.minItems)
    return testFailure(
      `The agent reported ${d.result.items} item(s), fewer than gate.minItems (${cfg.minItems}): 0 items is not success.`,
      ["check the input the task worked on", "unblock to retry"],
      "Look at why nothing was processed before retrying.",
      "Check the input, then unblock or complete by hand.",
    );
  return { ...d, extras };
}

function testFailure(what: string, options: string[], recommendation: string, next: string): Decision {
  return { type: "block", limit: false, template: { cause: "test failure", what_happened: what, options, recommendation, next_action: next } };
}

/** The workspace was dirty before the agent started: refused, left as it is. */
export function dirtyBlock(ws: string, dirty: string[]): Decision {
  return {
    type: "block",
    limit: false,
    template: {
      cause: "environment",
      what_happened: `The workspace is a git work tree with uncommitted changes that this run did not make (${dirty.slice(0, 10).join(", ")}${dirty.length > 10 ? `, +${dirty.length - 10} more` : ""}); the agent was not started. It is left as it is.`,
      options: ["commit or stash the changes, then unblock", "set gate.allowDirty if such changes are expected"],
      recommendation: "Commit or stash the unrelated changes so the run's own changes can be told apart, then unblock.",
      next_action: `Clean the work tree at ${ws}, then unblock this task.`,
    },
  };
}
