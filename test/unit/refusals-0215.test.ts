// The closes Hermes 0.21.4/0.21.5 refuses for a reason the bridge names the fix of, on the exact stderr
// the source prints (NousResearch/hermes-agent hermes_cli/kanban.py, commit 00030df13ffeaadcadf9d79935bac522e5552c88:
// `_goal_gate_error` for complete and request-review, `_cmd_complete`'s unsatisfied parents): typed by
// classify, read against the task like any `cannot complete`, and turned into a templated block whose
// cause, words and commands come from the refusal itself.
import { describe, expect, it } from "vitest";
import { classify, isLeaseBoundRefusal } from "../../src/board/classify.js";
import { GoalJudgeRejected, Rejected, UnmetParents } from "../../src/errors/board.js";
import { isDefinitiveRefusal, refusedCloseBlock } from "../../src/outbox/refused.js";
import type { CloseIntent } from "../../src/outbox/outbox.js";
import type { RunResult } from "../../src/process/runner.js";
import { hasAllFields } from "../../src/result/template.js";

const failed = (stderr: string): RunResult => ({
  argv: ["hermes"],
  pid: 1,
  exitCode: 1,
  signal: null,
  stdout: "",
  stderr,
  stdoutTruncated: false,
  stdoutTotal: 0,
  reason: "exited",
  reaped: 0,
  durationMs: 1,
});
const of = (stderr: string, verb = "complete") => classify(failed(stderr), { verb, board: "bridge", taskId: "t_1" });

const REVIEW_CONTINUE =
  "kanban: goal review handoff of t_1 rejected by judge: the empty-input case is not covered. Provide acceptance evidence matching the task.\n";
const REVIEW_UNACHIEVABLE =
  "kanban: goal review handoff of t_1 rejected: judge ruled the goal unachievable — the API it needs was removed. Record the block with kanban block instead of requesting review.\n";
const COMPLETE_CONTINUE =
  "kanban: goal completion of t_1 rejected by judge: no test shows the fix. Provide evidence matching the task's acceptance criteria.\n";
const PARENTS =
  "cannot complete t_1: unsatisfied parent dependencies: t_aa11 (ready), t_bb22 (running); complete the parents first, or `hermes kanban unlink <parent> t_1`.\n";

const intent = (review: boolean): CloseIntent => ({
  type: "complete",
  summary: "Implemented the parser.",
  metadata: { bridge: { seat: "s1", tokens: { input: 10, output: 5 } } },
  ...(review ? { review: { reviewer: null } } : {}),
});
const blockOf = (err: unknown, review: boolean) => {
  const b = refusedCloseBlock(intent(review), "the refusal", () => null, { err, taskId: "t_1", board: "bridge" });
  if (b?.type !== "block") throw new Error("no block");
  return b;
};

describe("0.21.4+ close refusals: typed", () => {
  it("the goal judge's refusal of a review hand-off: its verdict and its own words, without the CLI's hint", () => {
    const e = of(REVIEW_CONTINUE, "request-review");
    expect(e).toBeInstanceOf(GoalJudgeRejected);
    expect(e).toMatchObject({
      code: "goal_judge_rejected",
      handoff: "review handoff",
      verdict: "continue",
      judgeReason: "the empty-input case is not covered",
    });
    expect(isDefinitiveRefusal(e)).toBe(true);
    expect(isLeaseBoundRefusal(e)).toBe(false);
    expect(of(REVIEW_UNACHIEVABLE, "request-review")).toMatchObject({ verdict: "unachievable", judgeReason: "the API it needs was removed" });
    expect(of(COMPLETE_CONTINUE)).toMatchObject({ handoff: "completion", verdict: "continue", judgeReason: "no test shows the fix" });
  });

  it("unmet parents: each by id and status; still a `cannot complete` the lease layer reads against the task", () => {
    const e = of(PARENTS);
    expect(e).toBeInstanceOf(UnmetParents);
    expect((e as UnmetParents).parents).toEqual([
      { id: "t_aa11", status: "ready" },
      { id: "t_bb22", status: "running" },
    ]);
    expect(e?.code).toBe("unmet_parents");
    expect(isLeaseBoundRefusal(e)).toBe(true);
    expect(isDefinitiveRefusal(e)).toBe(true);
  });

  it("the refusals of 0.21.3 and 0.20 stay plain (nothing is guessed from them)", () => {
    const plain = of("cannot complete t_1 (unknown id or terminal state)\n");
    expect(plain).toBeInstanceOf(Rejected);
    expect(plain).not.toBeInstanceOf(UnmetParents);
    expect(of("cannot request review for t_1: parent dependencies are not satisfied\n", "request-review")).not.toBeInstanceOf(UnmetParents);
  });
});

describe("0.21.4+ close refusals: the block names the fix", () => {
  it("a refused review hand-off: the judge's words, how to give them to the next run, the cause", () => {
    const b = blockOf(of(REVIEW_CONTINUE, "request-review"), true);
    expect(b.kind).toBe("needs_input");
    expect(hasAllFields(b.reason)).toBe(true);
    expect(b.reason).toMatch(/^cause: human decision needed$/m);
    expect(b.reason).toContain(
      'hand the task over for review, but the board\'s goal judge (the task was created with --goal) refused it: "the empty-input case is not covered"',
    );
    expect(b.reason).toContain('hermes kanban --board bridge unblock --reason "…" t_1');
    expect(b.reason).toContain('The agent\'s summary was: "Implemented the parser."');
    expect(b.reason.split("\n").at(-1)).toBe("usage: 10 input / 5 output tokens · seat s1");
  });

  it("a goal judged unachievable: re-scoping is the fix (spec undecided)", () => {
    const b = blockOf(of(REVIEW_UNACHIEVABLE, "request-review"), true);
    expect(b.reason).toMatch(/^cause: spec undecided$/m);
    expect(b.reason).toContain('ruled its goal unachievable: "the API it needs was removed"');
    expect(b.reason).toContain("hermes kanban --board bridge edit t_1 --body …");
  });

  it("unmet parents: named by id and status, with complete-them-first and unlink", () => {
    const b = blockOf(of(PARENTS), false);
    expect(hasAllFields(b.reason)).toBe(true);
    expect(b.reason).toMatch(/^cause: human decision needed$/m);
    expect(b.reason).toContain("the task depends on parents that are not done — t_aa11 (ready), t_bb22 (running)");
    expect(b.reason).toContain("complete the parents first (t_aa11, t_bb22), then unblock t_1");
    expect(b.reason).toContain("hermes kanban --board bridge unlink <parent> t_1");
    expect(b.reason).toMatch(/^recommendation: Finish t_aa11 first/m);
  });

  it("any other refusal keeps the generic text", () => {
    const b = blockOf(of("kanban: declared scratch artifact is unavailable or not a regular file: /w/x\n"), false);
    expect(b.reason).toContain("but the board refused it: the refusal.");
  });
});
