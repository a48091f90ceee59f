// The JSON Hermes 0.21.4/0.21.5 prints, exactly as its CLI shapes it (NousResearch/hermes-agent
// hermes_cli/kanban.py `_cmd_diagnostics` and `_cmd_show`, commit 00030df13ffeaadcadf9d79935bac522e5552c88):
// a diagnostics array whose last row is the home's (`task_id` null), runs that name their step and who
// closed them, a task with its last heartbeat, the grant and hand-off events the active_pr guard reads.
import { describe, expect, it } from "vitest";
import { parseDiagnostics, parseShow } from "../../src/board/parse.js";

const DIAGNOSTICS = `[
  {
    "task_id": "t_3f2a91c0",
    "title": "Ship the parser",
    "status": "ready",
    "assignee": "researcher",
    "diagnostics": [
      {
        "kind": "stuck_ready",
        "severity": "warning",
        "title": "Ready for 3h with no dispatch",
        "data": {"age_seconds": 10800},
        "actions": [{"label": "hermes gateway start", "suggested": true}]
      }
    ]
  },
  {
    "task_id": null,
    "dispatch_profiles": "researcher, writer",
    "diagnostics": []
  }
]
`;

const SHOW = `{
  "task": {
    "id": "t_9c1d2e3f",
    "title": "Remediate the review",
    "body": null,
    "assignee": "claude-1",
    "status": "running",
    "priority": 0,
    "tenant": null,
    "workspace_kind": "scratch",
    "workspace_path": "/h/kanban/workspaces/t_9c1d2e3f",
    "branch_name": null,
    "project_id": null,
    "created_by": "user",
    "created_at": 1790000000,
    "started_at": 1790000600,
    "completed_at": null,
    "result": null,
    "skills": [],
    "max_runtime_seconds": null,
    "max_retries": null,
    "model_override": null,
    "provider_override": null,
    "session_id": null,
    "workflow_template_id": null,
    "current_step_key": null,
    "workflow_role": null,
    "completion_contract": null,
    "last_failure_error": null,
    "last_heartbeat_at": 1790000600
  },
  "latest_summary": null,
  "parents": [],
  "children": [],
  "comments": [{"author": "claude-1", "body": "Opened https://github.com/acme/widgets/pull/7 for review.", "created_at": 1790000100}],
  "events": [
    {"kind": "assigned", "payload": {"assignee": "claude-1", "from": "claude-1"}, "created_at": 1790000200, "run_id": null},
    {"kind": "assigned", "payload": {"assignee": "claude-1", "source": "kanban.default_assignee", "from": null}, "created_at": 1790000210, "run_id": null},
    {"kind": "review_reopened", "payload": null, "created_at": 1790000220, "run_id": null},
    {"kind": "existing_pr_authorized", "payload": {"operator": "ana (profile default)", "task_id": "t_9c1d2e3f", "pr_url": "https://github.com/acme/widgets/pull/7", "repo": "acme/widgets", "branch": "wt/fix", "reason": "amend the same PR", "authorized_at": 1790000500, "run_id_floor": 1, "pr_state": "open"}, "created_at": 1790000500, "run_id": null},
    {"kind": "claimed", "payload": {"lock": "host:4242", "expires": 1790001500, "run_id": 2}, "created_at": 1790000600, "run_id": 2}
  ],
  "runs": [
    {"id": 1, "profile": "claude-1", "step_key": null, "status": "blocked", "outcome": "blocked", "summary": "held", "error": null, "metadata": null, "worker_pid": null, "started_at": 1790000100, "ended_at": 1790000150, "closed_by": "hermes-bridge:claude-1:0a1b2c3d4e5f"},
    {"id": 2, "profile": "claude-1", "step_key": "implement", "status": "running", "outcome": null, "summary": null, "error": null, "metadata": null, "worker_pid": null, "started_at": 1790000600, "ended_at": null, "closed_by": null}
  ]
}
`;

describe("Hermes 0.21.4+ JSON", () => {
  it("diagnostics --json: the task rows, and the home's trailing row with task_id null", () => {
    expect(parseDiagnostics(DIAGNOSTICS)).toEqual({
      tasks: [{ taskId: "t_3f2a91c0", status: "ready", assignee: "researcher", kinds: ["stuck_ready"] }],
      dispatchProfiles: "researcher, writer",
    });
    // 0.21.3 has no home row; a board with no diagnostic is the home row alone.
    expect(parseDiagnostics(DIAGNOSTICS.replace(/,\s*\{\s*"task_id": null[\s\S]*\}\s*\]\s*$/, "]"))).toMatchObject({ dispatchProfiles: null });
    expect(parseDiagnostics('[{"task_id": null, "dispatch_profiles": "any", "diagnostics": []}]')).toEqual({ tasks: [], dispatchProfiles: "any" });
  });

  it("show --json: runs with step_key and closed_by, the task's last heartbeat", () => {
    const d = parseShow(SHOW);
    expect(d.runs.map((r) => [r.id, r.stepKey, r.closedBy])).toEqual([
      [1, null, "hermes-bridge:claude-1:0a1b2c3d4e5f"],
      [2, "implement", null],
    ]);
    expect(d.task.lastHeartbeatAt).toBe(1790000600);
    // 0.21.3's runs have no closed_by: the key stays absent, nothing is invented.
    expect(parseShow(SHOW.replaceAll(/, "closed_by": (null|"[^"]*")/g, "")).runs[0]).not.toHaveProperty("closedBy");
  });

  it("events: the operator's grant, and which assignments are hand-offs (a no-op re-assign and the default-assignee write are not)", () => {
    const e = parseShow(SHOW).events;
    expect(e.map((x) => x.handoff)).toEqual([false, false, true, undefined, undefined]);
    expect(e[3]?.prGrant).toEqual({ taskId: "t_9c1d2e3f", prUrl: "https://github.com/acme/widgets/pull/7", runIdFloor: 1 });
    expect(e[4]?.claim).toEqual({ lock: "host:4242", runId: 2, expires: 1790001500 });
  });
});
