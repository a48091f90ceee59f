// Hermes's active_pr respawn guard as the bridge reads it off a task it has just claimed (board/pr-guard.ts,
// after hermes_cli/kanban_db_dispatch.py check_respawn_guard and kanban_pr_authorization.py, commit
// 00030df13ffeaadcadf9d79935bac522e5552c88): a PR URL in a comment of the last 24 h holds the run, unless a
// hand-off came after it or an operator's grant names every PR URL of the window and no other run spent it.
import { describe, expect, it } from "vitest";
import { taskEventOf } from "../../src/board/events.js";
import type { TaskDetail } from "../../src/board/port.js";
import { activePrHold } from "../../src/board/pr-guard.js";
import { detailOf } from "../helpers/fakes.js";

const PR = "https://github.com/acme/widgets/pull/7";
const NOW = 1_790_100_000;

function task(o: { comments?: [string, number][]; events?: [string, Record<string, unknown> | null, number][]; runs?: number[] } = {}): TaskDetail {
  const d = detailOf("t_1", { runId: 2 });
  return {
    ...d,
    comments: (o.comments ?? []).map(([body, at]) => ({ author: "someone", body, createdAt: at })),
    events: (o.events ?? []).map(([kind, payload, createdAt]) => taskEventOf({ kind, payload, createdAt, runId: null })),
    runs: (o.runs ?? [2]).map((id) => ({ ...(d.runs[0] as TaskDetail["runs"][number]), id })),
  };
}
const grant = (floor: number, url = PR, taskId = "t_1"): [string, Record<string, unknown>, number] => [
  "existing_pr_authorized",
  { task_id: taskId, pr_url: url, run_id_floor: floor, repo: "acme/widgets", branch: "wt/fix" },
  NOW - 50,
];

describe("active_pr guard", () => {
  it("holds a run whose task links a PR in a recent comment, naming the PR and its repository", () => {
    expect(activePrHold(task({ comments: [[`Opened ${PR} for review.`, NOW - 100]] }), NOW, 2)).toEqual({ prUrl: PR, urls: [PR], repo: "acme/widgets" });
  });

  it("does not hold without a PR link, or for one older than 24 hours", () => {
    expect(activePrHold(task({ comments: [["no link here", NOW - 100]] }), NOW, 2)).toBeNull();
    expect(activePrHold(task({ comments: [[PR, NOW - 86_401]] }), NOW, 2)).toBeNull();
  });

  it("a hand-off after the newest PR comment lifts it; one before it, a same-second one, or a no-op re-assign does not", () => {
    const c: [string, number][] = [[PR, NOW - 100]];
    expect(activePrHold(task({ comments: c, events: [["review_reopened", null, NOW - 99]] }), NOW, 2)).toBeNull();
    expect(activePrHold(task({ comments: c, events: [["assigned", { assignee: "other", from: "claude-1" }, NOW - 99]] }), NOW, 2)).toBeNull();
    expect(activePrHold(task({ comments: c, events: [["changes_requested", null, NOW - 101]] }), NOW, 2)).not.toBeNull();
    expect(activePrHold(task({ comments: c, events: [["changes_requested", null, NOW - 100]] }), NOW, 2)).not.toBeNull();
    expect(activePrHold(task({ comments: c, events: [["assigned", { assignee: "claude-1", from: "claude-1" }, NOW - 99]] }), NOW, 2)).not.toBeNull();
  });

  it("an operator's grant covers this run only: the first run above its floor, the one PR it names", () => {
    const c: [string, number][] = [[PR, NOW - 100]];
    expect(activePrHold(task({ comments: c, events: [grant(1)], runs: [1, 2] }), NOW, 2)).toBeNull();
    // spent by another run above the floor (a crash, a reclaim): held again
    expect(activePrHold(task({ comments: c, events: [grant(1)], runs: [1, 2, 3] }), NOW, 3)).not.toBeNull();
    // another task's grant, another PR, or a second PR in the window: held
    expect(activePrHold(task({ comments: c, events: [grant(1, PR, "t_other")], runs: [1, 2] }), NOW, 2)).not.toBeNull();
    expect(activePrHold(task({ comments: c, events: [grant(1, "https://github.com/acme/widgets/pull/8")], runs: [1, 2] }), NOW, 2)).not.toBeNull();
    const two = activePrHold(task({ comments: [...c, ["also https://github.com/acme/widgets/pull/8", NOW - 10]], events: [grant(1)], runs: [1, 2] }), NOW, 2);
    expect(two).toEqual({ prUrl: "https://github.com/acme/widgets/pull/8", urls: [PR, "https://github.com/acme/widgets/pull/8"], repo: "acme/widgets" });
  });
});
