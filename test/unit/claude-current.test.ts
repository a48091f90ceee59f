// What Claude Code 2.1.33x prints that 2.1.197 did not (recorded from the pinned CLI: test/fixtures/agent-transcripts):
// background tasks on the stream (a result while one runs is not the run's end), a subagent's usage limit reported to
// the parent (the seat's limit), two result lines of one process (usage is the session's, not the last turn's),
// the canonical model and cost basis; and the headless argv and environment the adapter gives the CLI.
import { describe, expect, it } from "vitest";
import { claudeArgv } from "../../src/agents/claude-code/adapter.js";
import { HEADLESS_ENV, LASTING_TOOLS, disallowedTools } from "../../src/agents/claude-code/headless.js";
import { type ClaudeState, atRest, initialClaudeState, translateClaudeLine } from "../../src/agents/claude-code/translate.js";
import type { AgentEvent } from "../../src/agents/port.js";
import { jsonLines, recordedAt } from "../helpers/agent-transcripts.js";

function replay(file: string): { events: AgentEvent[]; states: { line: string; state: ClaudeState }[] } {
  let s = initialClaudeState("task");
  const events: AgentEvent[] = [];
  const states: { line: string; state: ClaudeState }[] = [];
  for (const l of jsonLines(file)) {
    const r = translateClaudeLine(s, l, recordedAt(file));
    s = r.state;
    events.push(...r.events);
    states.push({ line: l, state: s });
  }
  return { events, states };
}

describe("Claude Code 2.1.332 on its own stream", () => {
  it("a result while a background subagent runs is not the run's end; the last result, with nothing left running, is", () => {
    const { states } = replay("mockrun-claude-background-subagent.txt");
    const running = states.filter((x) => x.state.background.length > 0);
    expect(running.length).toBeGreaterThan(0);
    expect(running[0]?.state.background).toEqual(["count files"]);
    // never at rest while the subagent is listed; at rest on the final result
    expect(running.every((x) => !atRest(x.state))).toBe(true);
    expect(atRest(states.at(-1)?.state ?? initialClaudeState())).toBe(true);
    // at rest only on a result line
    for (const x of states) if (atRest(x.state)) expect(x.line).toContain('"type":"result"');
  });

  it("two results of one process: the usage is the session's totals (modelUsage), with the canonical model and cost basis", () => {
    const usages = replay("mockrun-claude-background-subagent.txt").events.filter((e) => e.type === "usage");
    expect(usages).toHaveLength(2);
    const last = usages.at(-1);
    expect(last).toMatchObject({ usage: { model: "claude-opus-5-5", costBasis: "list", tokens: { input: 400, output: 80 } } });
  });

  it("a subagent's usage limit, reported to the parent as the task's failure, is the seat's limit (with its reset)", () => {
    const file = "mockrun-claude-subagent-limit.txt";
    const limits = replay(file).events.filter((e) => e.type === "limit");
    expect(limits).toHaveLength(1);
    const at = recordedAt(file);
    // the recording's scripted reset was 2 h after the answer
    const near = (e: AgentEvent | undefined) => Math.abs(((e as { resetsAt: number | null } | undefined)?.resetsAt ?? 0) - (at + 2 * 3600_000)) < 60_000;
    expect(near(limits[0])).toBe(true);
    // without the subagent's rate_limit_event line (a CLI that does not pass it up), its failure alone says so
    let s = initialClaudeState("task");
    const alone: AgentEvent[] = [];
    for (const l of jsonLines(file).filter((x) => !x.includes('"rate_limit_event"'))) {
      const r = translateClaudeLine(s, l, at);
      s = r.state;
      alone.push(...r.events.filter((e) => e.type === "limit"));
    }
    expect(alone).toHaveLength(1);
    expect(alone[0]).toMatchObject({ message: expect.stringMatching(/^a subagent: .*5-hour limit/) });
    expect(near(alone[0])).toBe(true);
  });

  it("a subagent that failed for another reason is no limit", () => {
    const line = JSON.stringify({
      type: "system",
      subtype: "task_updated",
      task_id: "a1",
      patch: { status: "failed", error: "Agent terminated early: tool crashed" },
    });
    expect(translateClaudeLine(initialClaudeState(null), line, 0).events).toEqual([]);
  });
});

describe("a bridge run of Claude Code (the headless argv and environment)", () => {
  const o = {
    command: ["claude"],
    permissionMode: "acceptEdits",
    maxTurns: 10,
    allowedTools: [] as string[],
  } as unknown as Parameters<typeof claudeArgv>[0];

  it("loads the task tools into the first request and keeps subagents in the foreground", () => {
    expect(HEADLESS_ENV).toEqual({ ENABLE_TOOL_SEARCH: "false", CLAUDE_CODE_DISABLE_BACKGROUND_TASKS: "1" });
  });

  it("offers none of the tools that outlive the run, unless the seat names one", () => {
    const argv = claudeArgv(o, "/run/mcp.json", { id: "5b0e4d2a-1111-4222-8333-944455556666" });
    const off = argv[argv.indexOf("--disallowedTools") + 1]?.split(",") ?? [];
    expect(off).toEqual([...LASTING_TOOLS]);
    for (const t of ["ScheduleWakeup", "CronCreate", "SendMessage", "ListAgents", "RemoteTrigger"]) expect(off).toContain(t);
    expect(disallowedTools(["Monitor", "Bash(git *)"])).not.toContain("Monitor");
    expect(disallowedTools(["Monitor", "Bash(git *)"])).toContain("ScheduleWakeup");
  });

  it("a fresh run starts the session id the bridge chose; a resumed one resumes", () => {
    const fresh = claudeArgv(o, "/run/mcp.json", { id: "5b0e4d2a-1111-4222-8333-944455556666" });
    expect(fresh.slice(fresh.indexOf("--session-id"), fresh.indexOf("--session-id") + 2)).toEqual(["--session-id", "5b0e4d2a-1111-4222-8333-944455556666"]);
    expect(fresh).not.toContain("--resume");
    const resumed = claudeArgv(o, "/run/mcp.json", { resume: "5b0e4d2a-1111-4222-8333-944455556666" });
    expect(resumed).toContain("--resume");
    expect(resumed).not.toContain("--session-id");
  });
});
