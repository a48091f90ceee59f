// The blocks of how the agent's run ended (work/decide.ts picks the key from the run's facts): its login,
// its limit, its API out of reach, a stall, what stopped it, a failure, an outcome that was no outcome.
// Every key's text takes the facts, and what the key may name besides them (the error found, the result
// that was no success). One part of the run's one table (table.ts).
import type { AgentResult } from "../../result/common.js";
import { isoOrNull } from "../../time/clock.js";
import type { RunFacts } from "../record.js";
import { type BlockTexts, tail } from "./text.js";

/** What a key's text may name besides the facts: the error found, or the result that was no success. */
export type BlockDetail = { error?: string; result?: AgentResult };

type Ended = [f: RunFacts, x?: BlockDetail];

/** The keys of how the agent's run ended, each with the facts (and a detail). */
export interface AgentEndArgs {
  auth: Ended;
  limit: Ended;
  unreachable: Ended;
  stalled: Ended;
  deadline: Ended;
  shutdown: Ended;
  budget: Ended;
  cap: Ended;
  exposed: Ended;
  unresolved: Ended;
  failed: Ended;
  unreadable: Ended;
  invalid: Ended;
  bad_block: Ended;
  exited: Ended;
  invalid_result: Ended;
  not_success: Ended;
  silent: Ended;
}

function exitText(f: RunFacts["finished"]): string {
  if (!f) return "the agent never reported how it ended";
  if (f.reason === "spawn_failed") return `the agent command could not be started (${tail(f.stderrTail, 300)})`;
  if (f.signal) return `the agent was killed by ${f.signal}`;
  if (f.exitCode === null) return `the agent was stopped (${f.reason})`;
  return `the agent exited with code ${f.exitCode}`;
}

function outputText(f: RunFacts["finished"]): string {
  if (!f) return "";
  const parts: string[] = [];
  if (f.stderrTail.trim()) parts.push(`stderr tail: ${tail(f.stderrTail, 800)}`);
  if (f.stdoutTail.trim()) parts.push(`stdout tail: ${tail(f.stdoutTail, 600)}`);
  return parts.length ? ` ${parts.join(" | ")}` : "";
}

const ended = (f: RunFacts) => `${exitText(f.finished)}.${outputText(f.finished)}`;
const summary = (f: RunFacts) => (f.outcome?.kind === "complete" ? f.outcome.summary : "");

export const AGENT_ENDS: BlockTexts<AgentEndArgs> = {
  auth: (f) => [
    "auth missing",
    `The agent could not authenticate: ${tail(f.authFailed ?? "", 500)}. Seat ${f.seat} is paused until an operator fixes it.`,
    ["log the agent CLI in on the bridge host and unblock", "move the task to another seat"],
    "Log in again (see `hermes-bridge doctor`), then unblock so the task is retried.",
    "Fix the agent's credentials on the bridge host, then unblock this task.",
  ],
  limit: (f) => [
    "environment",
    `Seat ${f.seat} hit a usage/rate limit (${f.limit?.kind}): ${tail(f.limit?.message ?? "", 400)}. Resets at ${isoOrNull(f.limit?.resetsAt ?? null) ?? "an unknown time"}${f.limit?.note ? ` (${f.limit.note})` : ""}.`,
    ["unblock after the reset time to retry on this seat", "reassign to a seat with capacity"],
    "Unblock after the reset time; the seat does not claim new work until then.",
    "Unblock this task once the limit has reset.",
    true,
  ],
  unreachable: (f) => [
    "environment",
    `The agent could not reach its API: ${tail(f.unreachable ?? f.stopDetail ?? "connection errors", 400)}. Seat ${f.seat} pauses until its own check gets through.`,
    ["nothing: the task goes back to the lane for a seat that can reach its API", "fix the seat's network or base URL (hermes-bridge doctor)"],
    "Check the seat's network, proxy allow-list and API base URL.",
    "None for the task; fix the seat's network if it stays paused.",
  ],
  stalled: (f) => [
    "environment",
    `The agent went silent and was stopped as stalled (no output for agent.stallSeconds). ${ended(f)}`,
    [
      "unblock to continue (the next run resumes the session)",
      "raise agent.stallSeconds and restart the seat if the agent's tools are silent for long, then unblock",
      "check the agent's environment",
    ],
    "Unblock to continue; if it stalls again, look at what the agent was doing (last progress note) first.",
    "Check why the agent stalled, then unblock this task.",
  ],
  deadline: (f) => [
    "environment",
    `The run did not finish before its deadline (${f.deadlineAt}, claim TTL minus the safety margin) and was stopped (politely first, so the agent could save its session). ${ended(f)}`,
    [
      "unblock to continue: the next run of this seat resumes where this one stopped",
      "give the task a --max-runtime (or raise claim.ttlSeconds and restart the seat: it reads its config at start) and unblock",
      "split the task into smaller ones",
    ],
    "Unblock to continue; if the task keeps running out of time, give it a --max-runtime or split it.",
    "Unblock this task to let the next run continue (or resize it first).",
  ],
  shutdown: (f) => [
    "environment",
    `The bridge was shutting down and stopped the run before it finished. ${ended(f)}`,
    ["unblock to continue once the bridge is back (the next run resumes the session)", "leave blocked until the bridge is back"],
    "Unblock once the bridge is running again: the next run continues where this one stopped.",
    "Unblock this task when the bridge for this seat is back up.",
  ],
  budget: (f) => [
    "human decision needed",
    `${f.stopDetail ?? "The run crossed its budget (agent.budget) and was stopped."} ${exitText(f.finished)}.`,
    [
      "raise agent.budget (task or seatDaily), restart the seat (it reads its config at start) and unblock: the next run resumes the session",
      "split the task into smaller ones",
      "complete by hand if the work so far is enough",
    ],
    "Look at the spend above and decide whether the task is worth more; raise the budget and unblock, or split it.",
    "Decide on the budget, then unblock (or split) this task.",
  ],
  cap: (f) => [
    "environment",
    `The run met ${f.stopDetail ?? "one of its caps (agent.limits)"}, and the bridge stopped it. ${ended(f)}`,
    [
      "raise the cap in agent.limits (memoryMiB, pids, tmpMiB), restart the seat (it reads its config at start) and unblock: the next run resumes the session",
      "split the task, or tell the agent in a comment to use less (a smaller build, fewer parallel jobs)",
    ],
    "Decide whether the task needs more than the cap; raise it or change the task, then unblock.",
    "Raise the cap named above or change the task, then unblock.",
  ],
  exposed: (f) => [
    "environment",
    `The agent's CLI stream was held by ${f.stopDetail ?? "a process the jail could not protect"}, which the jail did not show execute-only: any process of the jail could have written lines "of the CLI" (its usage, a limit) into its memory, so the bridge stopped the run. A version manager's shim in front of the CLI (asdf, mise, nodenv: a script that runs the real program) does this.`,
    [
      "set agent.command to the CLI's own program (its real binary, or the real node and its script), restart the seat and unblock",
      "run the CLI's native binary (Codex: the platform package's bin/codex) instead of a launcher script",
    ],
    "Point agent.command at the real program instead of the shim, then unblock: the next run resumes the session.",
    "Fix agent.command (no shim), then unblock this task.",
  ],
  unresolved: (f) => [
    "environment",
    `The bridge could not keep the lease confirmed with the board (${f.stopDetail ?? "heartbeat failures"}) and stopped the agent.`,
    ["unblock to retry", "check the board host and the hermes CLI first"],
    "Check that the board answers (`hermes-bridge doctor`), then unblock.",
    "Verify the board is reachable, then unblock this task.",
  ],
  failed: (f) => [
    f.failure?.cause ?? "environment",
    `The agent's run failed: ${tail(f.failure?.message ?? "", 600)}. ${ended(f)}`,
    ["unblock to retry", "adjust the agent's limits or environment, then unblock"],
    "Read the failure above; fix its cause before retrying.",
    "Fix the cause named above, then unblock this task.",
  ],
  unreadable: (f, x = {}) => [
    "environment",
    `The agent's outcome file could not be read: ${x.error}. ${ended(f)}`,
    ["fix the agent so it writes valid JSON to $HERMES_BRIDGE_RESULT, then unblock", "complete the task by hand if the work is done"],
    "Fix the agent's outcome writing, then unblock.",
    "Look at the agent output above, then unblock or complete by hand.",
  ],
  invalid: (f, x = {}) => [
    "human decision needed",
    `protocol violation: the agent's outcome was rejected: ${x.error}. ${exitText(f.finished)}.`,
    ["fix the agent's outcome and unblock", "complete the task by hand if the work is done"],
    "Check the workspace and decide by hand; then fix the agent's protocol use.",
    "Inspect the workspace and either complete or unblock this task.",
  ],
  bad_block: (f, x = {}) => [
    "human decision needed",
    `protocol violation: the agent asked to block with an invalid template (${x.error}). Its text: ${tail(JSON.stringify(f.outcome?.kind === "block" ? f.outcome.block : null), 800)}`,
    ["read the agent's text and decide", "unblock to retry"],
    "Read the agent's text above and decide the next step.",
    "Decide from the agent's text, then unblock or complete.",
  ],
  exited: (f) => [
    "environment",
    `${exitText(f.finished)} ${f.outcome?.kind === "complete" ? "after asking to complete, so the completion was not trusted" : "without an outcome"}.${outputText(f.finished)}`,
    ["unblock to retry", "check the agent command and its environment first"],
    "Look at the output tail; fix the environment if it is at fault, then unblock.",
    "Check why the agent failed, then unblock this task.",
  ],
  invalid_result: (f, x = {}) => [
    "human decision needed",
    `protocol violation: the agent asked to complete with an invalid result (${x.error}). Its summary: ${tail(summary(f), 600)}`,
    ["check the work and complete by hand", "fix the agent's result and unblock"],
    "Check the workspace: if the work is done, complete by hand.",
    "Inspect the result, then complete by hand or unblock.",
  ],
  not_success: (f, { result: r } = {}) => [
    "test failure",
    `The agent reported a result that is not success (ok=${r?.ok}, status=${r?.status}${r?.error ? `, error ${r.error.code}: ${r.error.message}` : ""}). Summary: ${tail(summary(f), 600)}`,
    ["fix the failure and unblock to retry", "accept the partial result and complete by hand"],
    "Fix what failed (see the error above), then unblock.",
    "Look at the failure, then unblock or complete by hand.",
  ],
  silent: (f) => {
    // Its last words, not the raw stream (a CLI's JSON lines say nothing to a person); the stderr tail where it has one.
    const fin = f.finished;
    const said = f.lastSaid?.trim() ? ` The agent's last message: ${JSON.stringify(tail(f.lastSaid, 600))}.` : outputText(fin);
    const err = f.lastSaid?.trim() && fin?.stderrTail.trim() ? ` stderr tail: ${tail(fin.stderrTail, 400)}` : "";
    return [
      "human decision needed",
      `protocol violation: the agent exited 0 without asking to complete or block (silent return).${said}${err}`,
      ["check the workspace and complete by hand", "unblock to retry"],
      "Check whether the work was done; complete by hand if so, else unblock.",
      "Inspect the workspace and decide: complete or unblock.",
    ];
  },
};
