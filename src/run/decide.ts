// Decide (pure): from what the agent did and how the run ended → Complete or a templated Block.
// Exit code 0 is not success; "the agent said done" is not success (seed 000). The gate then looks
// at a complete once (gate/gate.ts); a stop that happened meanwhile wins (stopDecision).
import { isoOrNull } from "../time/clock.js";
import type { AgentEvent, OutcomeRequest } from "../agents/port.js";
import type { Claim, ClaimCheck } from "../agents/probe.js";
import { AgentResultSchema, describeResultIssues, isSuccess } from "../result/common.js";
import { type Decision, blockDecision as block } from "../result/decision.js";
import { validateBlock } from "../result/template.js";

export type { Decision } from "../result/decision.js";

export type Stop = "deadline" | "shutdown" | "lease_lost" | "unresolved" | "budget" | "cap" | "exposed" | "unreachable" | null;

export interface RunFacts {
  outcome: OutcomeRequest | null;
  finished: Extract<AgentEvent, { type: "finished" }> | null;
  stop: Stop;
  stopDetail?: string;
  limit?: Extract<AgentEvent, { type: "limit" }>;
  authFailed?: string;
  /** The agent's last word that it cannot reach its API, while no answer came since (run/agent-run.ts). */
  unreachable?: string;
  failure?: Extract<AgentEvent, { type: "failed" }>;
  /** The seat's own check of a limit or login failure the agent reported (run/claims.ts). */
  claimCheck?: ClaimCheck & { claim: Claim };
  deadlineAt: string;
  seat: string;
  /** Comments on the task when the agent started (later ones are new for the next run). */
  commentsSeen?: number;
  /** The run left its repository set to run code (git/guard.ts): nothing of it is committed or pushed. */
  repositoryFound?: boolean;
  /** What the agent last said (its last message's first line, or its last line: a progress note), as it said it. */
  lastSaid?: string;
}

function tail(s: string, n = 1200): string {
  const t = s.trim();
  return t.length > n ? `…${t.slice(t.length - n)}` : t;
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

export function decide(f: RunFacts): Decision {
  if (f.stop === "lease_lost") return { type: "lost" };
  if (f.authFailed)
    return block(
      "auth missing",
      `The agent could not authenticate: ${tail(f.authFailed, 500)}. Seat ${f.seat} is paused until an operator fixes it.`,
      ["log the agent CLI in on the bridge host and unblock", "move the task to another seat"],
      "Log in again (see `hermes-bridge doctor`), then unblock so the task is retried.",
      "Fix the agent's credentials on the bridge host, then unblock this task.",
    );
  if (f.limit)
    return block(
      "environment",
      `Seat ${f.seat} hit a usage/rate limit (${f.limit.kind}): ${tail(f.limit.message, 400)}. Resets at ${isoOrNull(f.limit.resetsAt) ?? "an unknown time"}${f.limit.note ? ` (${f.limit.note})` : ""}.`,
      ["unblock after the reset time to retry on this seat", "reassign to a seat with capacity"],
      "Unblock after the reset time; the seat does not claim new work until then.",
      "Unblock this task once the limit has reset.",
      true,
    );
  // Its API out of reach (the watchdog stopped it, or it gave up by itself): no deadline, no agent fault.
  if (f.stop === "unreachable" || (f.stop === null && f.unreachable && f.outcome?.kind !== "complete" && f.outcome?.kind !== "block"))
    return {
      ...block(
        "environment",
        `The agent could not reach its API: ${tail(f.unreachable ?? f.stopDetail ?? "connection errors", 400)}. Seat ${f.seat} pauses until its own check gets through.`,
        ["nothing: the task goes back to the lane for a seat that can reach its API", "fix the seat's network or base URL (hermes-bridge doctor)"],
        "Check the seat's network, proxy allow-list and API base URL.",
        "None for the task; fix the seat's network if it stays paused.",
      ),
      unreachable: true,
    } as Decision;
  if (f.finished?.reason === "stalled")
    return block(
      "environment",
      `The agent went silent and was stopped as stalled (no output for agent.stallSeconds). ${exitText(f.finished)}.${outputText(f.finished)}`,
      [
        "unblock to continue (the next run resumes the session)",
        "raise agent.stallSeconds if the agent's tools are silent for long",
        "check the agent's environment",
      ],
      "Unblock to continue; if it stalls again, look at what the agent was doing (last progress note) first.",
      "Check why the agent stalled, then unblock this task.",
    );
  if (f.stop === "deadline")
    return block(
      "environment",
      `The run did not finish before its deadline (${f.deadlineAt}, claim TTL minus the safety margin) and was stopped (politely first, so the agent could save its session). ${exitText(f.finished)}.${outputText(f.finished)}`,
      [
        "unblock to continue: the next run of this seat resumes where this one stopped",
        "give the task a --max-runtime (or raise claim.ttlSeconds) and unblock",
        "split the task into smaller ones",
      ],
      "Unblock to continue; if the task keeps running out of time, give it a --max-runtime or split it.",
      "Unblock this task to let the next run continue (or resize it first).",
    );
  if (f.stop === "shutdown")
    return block(
      "environment",
      `The bridge was shutting down and stopped the run before it finished. ${exitText(f.finished)}.${outputText(f.finished)}`,
      ["unblock to continue once the bridge is back (the next run resumes the session)", "leave blocked until the bridge is back"],
      "Unblock once the bridge is running again: the next run continues where this one stopped.",
      "Unblock this task when the bridge for this seat is back up.",
    );
  if (f.stop === "budget")
    return block(
      "human decision needed",
      `${f.stopDetail ?? "The run crossed its budget (agent.budget) and was stopped."} ${exitText(f.finished)}.`,
      [
        "raise agent.budget (task or seatDaily) and unblock: the next run resumes the session",
        "split the task into smaller ones",
        "complete by hand if the work so far is enough",
      ],
      "Look at the spend above and decide whether the task is worth more; raise the budget and unblock, or split it.",
      "Decide on the budget, then unblock (or split) this task.",
    );
  if (f.stop === "cap")
    return block(
      "environment",
      `The run met ${f.stopDetail ?? "one of its caps (agent.limits)"}, and the bridge stopped it. ${exitText(f.finished)}.${outputText(f.finished)}`,
      [
        "raise the cap in agent.limits (memoryMiB, pids, tmpMiB) and unblock: the next run resumes the session",
        "split the task, or tell the agent in a comment to use less (a smaller build, fewer parallel jobs)",
      ],
      "Decide whether the task needs more than the cap; raise it or change the task, then unblock.",
      "Raise the cap named above or change the task, then unblock.",
    );
  if (f.stop === "exposed")
    return block(
      "environment",
      `The agent's CLI stream was held by ${f.stopDetail ?? "a process the jail could not protect"}, which the jail did not show execute-only: any process of the jail could have written lines "of the CLI" (its usage, a limit) into its memory, so the bridge stopped the run. A version manager's shim in front of the CLI (asdf, mise, nodenv: a script that runs the real program) does this.`,
      [
        "set agent.command to the CLI's own program (its real binary, or the real node and its script) and unblock",
        "run the CLI's native binary (Codex: the platform package's bin/codex) instead of a launcher script",
      ],
      "Point agent.command at the real program instead of the shim, then unblock: the next run resumes the session.",
      "Fix agent.command (no shim), then unblock this task.",
    );
  if (f.stop === "unresolved")
    return block(
      "environment",
      `The bridge could not keep the lease confirmed with the board (${f.stopDetail ?? "heartbeat failures"}) and stopped the agent.`,
      ["unblock to retry", "check the board host and the hermes CLI first"],
      "Check that the board answers (`hermes-bridge doctor`), then unblock.",
      "Verify the board is reachable, then unblock this task.",
    );
  if (f.failure && f.outcome?.kind !== "block")
    return block(
      f.failure.cause,
      `The agent's run failed: ${tail(f.failure.message, 600)}. ${exitText(f.finished)}.${outputText(f.finished)}`,
      ["unblock to retry", "adjust the agent's limits or environment, then unblock"],
      "Read the failure above; fix its cause before retrying.",
      "Fix the cause named above, then unblock this task.",
    );
  const fin = f.finished;
  const exitedOk = fin !== null && fin.reason === "exited" && fin.signal === null && (fin.exitCode === 0 || fin.exitUnknown === true);
  const o = f.outcome;
  if (o?.kind === "unreadable")
    return block(
      "environment",
      `The agent's outcome file could not be read: ${o.error}. ${exitText(fin)}.${outputText(fin)}`,
      ["fix the agent so it writes valid JSON to $HERMES_BRIDGE_RESULT, then unblock", "complete the task by hand if the work is done"],
      "Fix the agent's outcome writing, then unblock.",
      "Look at the agent output above, then unblock or complete by hand.",
    );
  if (o?.kind === "invalid")
    return block(
      "human decision needed",
      `protocol violation: the agent's outcome was rejected: ${o.error}. ${exitText(fin)}.`,
      ["fix the agent's outcome and unblock", "complete the task by hand if the work is done"],
      "Check the workspace and decide by hand; then fix the agent's protocol use.",
      "Inspect the workspace and either complete or unblock this task.",
    );
  if (o?.kind === "block") {
    const v = validateBlock(o.block);
    if (v.ok) return { type: "block", template: v.template, limit: false };
    return block(
      "human decision needed",
      `protocol violation: the agent asked to block with an invalid template (${v.error}). Its text: ${tail(JSON.stringify(o.block), 800)}`,
      ["read the agent's text and decide", "unblock to retry"],
      "Read the agent's text above and decide the next step.",
      "Decide from the agent's text, then unblock or complete.",
    );
  }
  if (!exitedOk && fin)
    return block(
      "environment",
      `${exitText(fin)} ${o?.kind === "complete" ? "after asking to complete, so the completion was not trusted" : "without an outcome"}.${outputText(fin)}`,
      ["unblock to retry", "check the agent command and its environment first"],
      "Look at the output tail; fix the environment if it is at fault, then unblock.",
      "Check why the agent failed, then unblock this task.",
    );
  if (o?.kind === "complete") {
    const r = AgentResultSchema.safeParse(o.result);
    if (!r.success)
      return block(
        "human decision needed",
        `protocol violation: the agent asked to complete with an invalid result (${describeResultIssues(r.error)}). Its summary: ${tail(o.summary, 600)}`,
        ["check the work and complete by hand", "fix the agent's result and unblock"],
        "Check the workspace: if the work is done, complete by hand.",
        "Inspect the result, then complete by hand or unblock.",
      );
    if (isSuccess(r.data)) return { type: "complete", summary: o.summary, result: r.data, ...(o.review ? { review: o.review } : {}) };
    return block(
      "test failure",
      `The agent reported a result that is not success (ok=${r.data.ok}, status=${r.data.status}${r.data.error ? `, error ${r.data.error.code}: ${r.data.error.message}` : ""}). Summary: ${tail(o.summary, 600)}`,
      ["fix the failure and unblock to retry", "accept the partial result and complete by hand"],
      "Fix what failed (see the error above), then unblock.",
      "Look at the failure, then unblock or complete by hand.",
    );
  }
  // Its last words, not the raw stream (a CLI's JSON lines say nothing to a person); the stderr tail where it has one.
  const said = f.lastSaid?.trim() ? ` The agent's last message: ${JSON.stringify(tail(f.lastSaid, 600))}.` : outputText(fin);
  const err = f.lastSaid?.trim() && fin?.stderrTail.trim() ? ` stderr tail: ${tail(fin.stderrTail, 400)}` : "";
  return block(
    "human decision needed",
    `protocol violation: the agent exited 0 without asking to complete or block (silent return).${said}${err}`,
    ["check the workspace and complete by hand", "unblock to retry"],
    "Check whether the work was done; complete by hand if so, else unblock.",
    "Inspect the workspace and decide: complete or unblock.",
  );
}
