// The run's one table of blocks (src/run/blocks/): every cause gives a whole template the board accepts, and
// the texts of the blocks made before and after the agent say what they said where they were worded by hand
// (prepare, pins, the gate, the cell, the delivery, the claim's check).
import { describe, expect, it } from "vitest";
import { renderBlock, validateBlock } from "../../src/result/template.js";
import { BLOCK_TEXTS, type BlockArgs, type BlockKey, blockFor } from "../../src/run/blocks/table.js";
import type { RunFacts } from "../../src/run/record.js";
import { WorkspaceRefused } from "../../src/workspace/port.js";
import { SharedCopyRefused } from "../../src/agent-files/unshare.js";

const facts: RunFacts = {
  outcome: { kind: "complete", summary: "did it", result: { ok: true, status: "error" } },
  finished: { type: "finished", exitCode: 1, signal: null, reason: "exited", stdoutTail: "out", stderrTail: "err", outputBytes: 6 },
  stop: null,
  deadlineAt: "2026-11-30T00:00:00.000Z",
  seat: "s1",
  limit: { type: "limit", kind: "usage", resetsAt: null, message: "at the limit" },
  authFailed: "401",
};
const ended: [RunFacts, { error: string }] = [facts, { error: "bad json" }];
const held = { prUrl: "https://example.com/o/r/pull/7", urls: ["https://example.com/o/r/pull/7"], repo: "o/r" } as BlockArgs["active_pr"][0];
const task = { id: "t1", branchName: "feat" } as BlockArgs["active_pr"][1];
const verification = { command: "npm test", exit_code: 1, duration_ms: 5, output_tail: "2 failing" };

/** One sample per cause: the compiler asks for a new cause's sample. */
const SAMPLES: { [K in BlockKey]: BlockArgs[K] } = {
  auth: ended,
  limit: ended,
  unreachable: ended,
  stalled: ended,
  deadline: ended,
  shutdown: ended,
  budget: ended,
  cap: ended,
  exposed: ended,
  unresolved: ended,
  failed: ended,
  unreadable: ended,
  invalid: ended,
  bad_block: ended,
  exited: ended,
  invalid_result: ended,
  not_success: [facts, { result: { ok: true, status: "error", items: 0, metrics: {}, note: "", artifacts: [], error: null } }],
  silent: ended,
  read_failed: ["the board did not answer"],
  claim_failed: [new Error("worktree: no such branch")],
  active_pr: [held, task, "main"],
  review_rounds: [[{ via: "request-changes", by: "rev", reason: "fix the test" }], 1],
  pinned_provider: [
    { model: "gpt-5", provider: "openai" },
    { name: "claude-code", providers: ["anthropic"] },
  ],
  missing_skills: [["deploy"], true],
  skills_unstaged: [new Error("too large")],
  workspace_refused: [new WorkspaceRefused("/srv is outside the allowed roots", "workspace.allowedRoots")],
  dirty: ["/w", ["README"]],
  exhausted: [3, "sess-1"],
  workspace_nested: ["/w/a lies inside /w, the workspace of task t2's live run"],
  host_lock: ["the host's lock at /var/lib/x was held by another process for more than 300 s (pid 42, since 2026-12-06T00:00:00.000Z, a workspace's claim)"],
  workspace_shared: [new SharedCopyRefused("/w", 4, 3 * 1024 ** 3, "too_large", "1024 MiB")],
  gate: [{ kind: "verification_failed", failed: verification, timeoutSeconds: 60 }],
  repository: [[{ what: "core.fsmonitor", detail: "core.fsmonitor set to ./x" }]],
  two_seats: ["limit", { verdict: "refuted", detail: "the API answered" }, "s2", "s1"],
  deliverable: ["out.txt", "it is a link"],
  workspace_finish: ["push refused", "workspace.push"],
  internal: [new Error("boom")],
};

const sample = <K extends BlockKey>(key: K) => blockFor(key, ...SAMPLES[key]);
const what = (key: BlockKey) => {
  const d = sample(key);
  return d.type === "block" ? d.template.what_happened : "";
};

describe("the block table", () => {
  it("gives every cause a whole template, rendered with its five lines", () => {
    const keys = Object.keys(BLOCK_TEXTS) as BlockKey[];
    expect(keys.sort()).toEqual((Object.keys(SAMPLES) as BlockKey[]).sort());
    for (const key of keys) {
      const d = sample(key);
      expect(d.type, key).toBe("block");
      if (d.type !== "block") continue;
      expect(validateBlock(d.template), key).toMatchObject({ ok: true });
      expect(renderBlock(d.template).split("\n"), key).toHaveLength(5);
      expect(d.limit, key).toBe(key === "limit");
      expect(d.unreachable === true, key).toBe(key === "unreachable");
    }
  });

  it("every way out that changes the seat's config says to restart the seat (it reads its config at start)", () => {
    const setting = /\b(raise|set|fix|change)\b[^;]*\b(agent|claim|gate|workspace)\.[a-zA-Z]+/;
    const unsaid: string[] = [];
    for (const key of Object.keys(BLOCK_TEXTS) as BlockKey[]) {
      const d = sample(key);
      if (d.type !== "block") continue;
      const options = typeof d.template.options === "string" ? [d.template.options] : d.template.options;
      for (const o of options) if (setting.test(o) && !/restart the seat/.test(o)) unsaid.push(`${key}: ${o}`);
    }
    expect(unsaid).toEqual([]);
  });

  it("words the blocks before the agent as prepare, the pins and the claim did", () => {
    expect(what("read_failed")).toBe("After the claim the bridge could not read the task from the board: the board did not answer");
    expect(what("pinned_provider")).toBe(
      "The agent was not started: the task is pinned to the model gpt-5 of the provider openai, and this seat's agent (claude-code) runs only anthropic models.",
    );
    expect(what("missing_skills")).toContain("needs the skill(s) deploy, which this seat does not have (it looked for <name>/SKILL.md in its agent.skillDirs");
    expect(blockFor("missing_skills", ["deploy"], false)).toMatchObject({ template: { what_happened: expect.stringContaining("in no skill folder;") } });
    expect(what("workspace_refused")).toBe(
      "The agent was not started: the task's workspace cannot be used on this seat (workspace.allowedRoots): /srv is outside the allowed roots",
    );
    expect(blockFor("workspace_refused", new Error("gone"))).toMatchObject({
      template: { options: expect.arrayContaining([expect.stringMatching(/^fix workspace in/)]) },
    });
    expect(what("exhausted")).toMatch(/^This task's session \(sess-1\) was already resumed 3 times \(agent.resumeBudget\)/);
    expect(what("active_pr")).toMatch(/links the pull request https:\/\/example.com\/o\/r\/pull\/7, so an earlier run already opened a PR/);
    expect(blockFor("active_pr", held, task, "main")).toMatchObject({
      template: { recommendation: expect.stringContaining("authorize-existing-pr t1 --pr https://example.com/o/r/pull/7 --repo o/r --branch feat") },
    });
    expect(what("review_rounds")).toContain('sent back 1 times (close.maxReviewRounds: 1) — 1: request-changes by @rev — "fix the test"');
  });

  it("words the blocks after the agent as the gate, the cell, the delivery and the claim's check did", () => {
    expect(what("gate")).toBe("The agent asked to complete, but verification failed: `npm test` exited 1. Output tail: 2 failing");
    expect(blockFor("gate", { kind: "verification_failed", failed: { ...verification, exit_code: null, timed_out: true }, timeoutSeconds: 9 })).toMatchObject({
      template: { what_happened: expect.stringContaining("`npm test` timed out after 9 s (gate.timeoutSeconds)") },
    });
    expect(blockFor("gate", { kind: "no_change" })).toMatchObject({
      template: { cause: "test failure", what_happened: expect.stringContaining("(gate.requireChanges)") },
    });
    expect(blockFor("gate", { kind: "too_few_items", items: 0, min: 2 })).toMatchObject({
      template: { what_happened: "The agent reported 0 item(s), fewer than gate.minItems (2): 0 items is not success." },
    });
    expect(what("repository")).toMatch(/^The run left the workspace's repository set to run a program whenever git runs there: core.fsmonitor set to .\/x\. /);
    expect(what("workspace_nested")).toMatch(/^The agent was not started: \/w\/a lies inside \/w, the workspace of task t2's live run\. A run's jail/);
    expect(what("two_seats")).toMatch(
      /^The agent reported a usage limit on seat s1, which the seat's own check did not confirm \(the API answered\); .* by seat s2/,
    );
    expect(what("deliverable")).toMatch(/^The agent asked to complete, but its deliverable out.txt could not be preserved on the board: it is a link\./);
    expect(what("workspace_finish")).toBe("The agent asked to complete, but its work could not be committed and pushed (workspace.push): push refused");
    expect(what("internal")).toBe("The bridge could not run the task: boom");
  });

  // A new operator followed "raise agent.isolation.sharedCopyMaxMiB and unblock" literally: the seat had read its
  // config at start, blocked the task the same way again, and Hermes sent it to triage, which unblock does not leave.
  it("says a config change takes a restart of the seat, and how an existing clone gets objects of its own", () => {
    const shared = (why: "too_large" | "unwalkable" | "mounted" | "failed") => {
      const d = blockFor("workspace_shared", new SharedCopyRefused("/w", 4, 3 * 1024 ** 3, why, "1024 MiB"));
      return d.type === "block" ? d.template : null;
    };
    const big = shared("too_large");
    expect(big?.options).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^raise agent\.isolation\.sharedCopyMaxMiB in the seat's config, restart the seat .*then unblock/),
        expect.stringMatching(/sharedFiles: keep .*restart the seat/),
        expect.stringContaining("an existing clone: git repack -a -d in it"),
      ]),
    );
    expect(big?.next_action).toMatch(/restart the seat/);
    for (const why of ["unwalkable", "mounted", "failed"] as const) expect(String(shared(why)?.options), why).toMatch(/sharedFiles: keep .*restart the seat/);
  });
});
