// Translators on recorded real CLI output (test/fixtures/agent-transcripts, copied from shared/reference).
import { readFileSync } from "node:fs";
import { RECORDED_DAY, jsonLines, recordedAt } from "../helpers/agent-transcripts.js";
import { describe, expect, it } from "vitest";
import { parseLimitText } from "../../src/agents/claude-code/limits.js";
import { initialClaudeState, translateClaudeLine } from "../../src/agents/claude-code/translate.js";
import { CODEX_RESUME_FAILED, initialCodexState, parseCodexLimit, translateCodexLine } from "../../src/agents/codex/translate.js";
import type { AgentEvent } from "../../src/agents/port.js";

const NOW = RECORDED_DAY; // the day of the unversioned transcripts, 01:25 UTC

function claude(file: string, requireServer: string | null = null): AgentEvent[] {
  let s = initialClaudeState(requireServer);
  const out: AgentEvent[] = [];
  const at = recordedAt(file);
  for (const l of jsonLines(file)) {
    const r = translateClaudeLine(s, l, at);
    s = r.state;
    out.push(...r.events);
  }
  return out;
}

function codex(file: string): AgentEvent[] {
  let s = initialCodexState();
  const out: AgentEvent[] = [];
  for (const l of jsonLines(file)) {
    const r = translateCodexLine(s, l, NOW);
    s = r.state;
    out.push(...r.events);
  }
  return out;
}

describe("Claude Code translator", () => {
  it("success with the task server connected", () => {
    const ev = claude("mockrun-claude-stream-json-success.txt", "task");
    expect(ev[0]).toEqual({ type: "session", id: expect.stringMatching(/^[0-9a-f-]{36}$/) });
    expect(ev.filter((e) => e.type === "failed")).toEqual([]);
    expect(ev.filter((e) => e.type === "tool").map((e) => (e as { name: string }).name)).toContain("mcp__task__kanban_heartbeat");
    expect(ev.find((e) => e.type === "progress")).toEqual({ type: "progress", note: "Reporting progress, then checking the repo." });
    expect(ev.at(-1)).toMatchObject({
      type: "usage",
      usage: { costUsd: expect.any(Number), turns: expect.any(Number), tokens: { input: expect.any(Number) } },
    });
  });
  it("the result line's usage is the run's totals: tokens with cache, cost, turns, model", () => {
    const usage = claude("mockrun-claude-stream-json-success.txt", "task").filter((e) => e.type === "usage");
    expect(usage).toHaveLength(1);
    expect(usage[0]).toMatchObject({
      usage: { model: expect.stringMatching(/^claude-/), tokens: { cacheRead: expect.any(Number), cacheWrite: expect.any(Number) } },
    });
  });
  it("an unknown session is a resume failure, not a run failure", () => {
    const line = jsonLines("mockrun-claude-session-resume.txt").find((l) => l.includes("No conversation found"));
    expect(line).toBeDefined();
    const r = translateClaudeLine(initialClaudeState(null), line ?? "", NOW);
    expect(r.events.filter((e) => e.type !== "usage")).toEqual([
      { type: "resume_failed", message: "No conversation found with session ID: 00000000-0000-4000-8000-000000000000" },
    ]);
  });
  it("a dropped or pending MCP server fails the run as environment", () => {
    const ev = claude("norun-claude-mcp-config.txt", "task");
    expect(ev.find((e) => e.type === "failed")).toEqual({
      type: "failed",
      cause: "environment",
      message: "the task tools MCP server 'task' is 'pending' in Claude's init line",
    });
  });
  it("not logged in → auth_failed", () => {
    expect(claude("norun-claude-stream-json.txt").filter((e) => e.type === "auth_failed")).toEqual([
      { type: "auth_failed", message: "Not logged in · Please run /login" },
    ]);
  });
  it("no network: api_retry with no HTTP status is the API out of reach; a final connection error too; a 529 retry is progress", () => {
    const ev = claude("norun-claude-fakekey-nonetwork.txt");
    // recorded with CLAUDE_CODE_MAX_RETRIES=3: each retry with no answer, then the run's own end
    expect(ev.filter((e) => e.type === "unreachable")).toHaveLength(4);
    expect(ev.find((e) => e.type === "unreachable")).toEqual({ type: "unreachable", message: "API retry 1/3: no answer from the API (unknown)" });
    const end = translateClaudeLine(
      initialClaudeState(null),
      JSON.stringify({ type: "result", subtype: "success", is_error: true, result: "API Error: Connection error." }),
      NOW,
    );
    expect(end.events).toContainEqual({ type: "unreachable", message: "API Error: Connection error." });
    expect(claude("mockrun-claude-529-overloaded.txt").some((e) => e.type === "unreachable")).toBe(false);
  });
  it("repeated 401 api_retry lines → auth_failed without waiting for all retries", () => {
    const ev = claude("mockrun-claude-401.txt");
    expect(ev.findIndex((e) => e.type === "auth_failed")).toBeGreaterThan(0);
    expect(ev.filter((e) => e.type === "auth_failed")[0]).toEqual({ type: "auth_failed", message: "HTTP 401 authentication_failed, retried 2 times" });
  });
  it("subscription limits carry the reset time", () => {
    const file = "mockrun-claude-429-oauth-subscription.txt";
    const session = claude(file).filter((e) => e.type === "limit");
    // the scripted API said: a five-hour limit, reset 3 h after the answer (scripts/record-claude-transcripts.ts)
    expect(session[0]).toEqual({
      type: "limit",
      kind: "five_hour",
      resetsAt: Math.floor(recordedAt(file) / 1000) * 1000 + 3 * 3600_000,
      message: "subscription limit reached (rate_limit_event rejected)",
    });
    const weekly = claude("mockrun-claude-429-oauth-weekly.txt").filter((e) => e.type === "limit");
    expect(weekly.length).toBeGreaterThan(0);
    expect(weekly.every((e) => (e as { resetsAt: number | null }).resetsAt !== null)).toBe(true);
  });
  it("max turns, billing and overload end as failures with a cause", () => {
    expect(claude("mockrun-claude-max-turns.txt").find((e) => e.type === "failed")).toMatchObject({
      cause: "human decision needed",
      message: expect.stringMatching(/ran out of turns/),
    });
    expect(claude("mockrun-claude-400-credit.txt").find((e) => e.type === "failed")).toMatchObject({
      cause: "environment",
      message: expect.stringMatching(/billing/),
    });
    expect(claude("mockrun-claude-529-overloaded.txt").find((e) => e.type === "failed")).toMatchObject({
      cause: "environment",
      message: expect.stringMatching(/529/),
    });
    expect(claude("mockrun-claude-429-ratelimit.txt").find((e) => e.type === "limit")).toMatchObject({ kind: "rate_limit" });
  });
  it("parses every limit text form", () => {
    expect(parseLimitText("Claude AI usage limit reached|1796012726", NOW)).toEqual({ kind: "usage", resetsAt: 1796012726000 });
    expect(parseLimitText("You've hit your session limit · resets 4:25am (UTC)", NOW)).toEqual({
      kind: "session_limit",
      resetsAt: Date.UTC(2026, 10, 30, 4, 25),
    });
    expect(parseLimitText("You've hit your weekly limit · resets Dec 2, 3:25am (UTC)", NOW)).toEqual({
      kind: "weekly_limit",
      resetsAt: Date.UTC(2026, 11, 2, 3, 25),
    });
    expect(parseLimitText("all good", NOW)).toBeNull();
  });
});

describe("Codex translator", () => {
  it("a reconnect loop with no answer (a name that does not resolve, waiting for network) is the API out of reach; a 401 or 429 reconnect is not", () => {
    const ev = codex("norun-codex-exec-json.txt");
    expect(ev.filter((e) => e.type === "unreachable").length).toBeGreaterThan(2);
    expect(ev.filter((e) => e.type === "progress" && /Reconnecting/.test(e.note))).toEqual([]);
    expect(codex("mockrun-codex-401.txt").some((e) => e.type === "unreachable")).toBe(false);
    expect(codex("mockrun-codex-429usage.txt").some((e) => e.type === "unreachable")).toBe(false);
  });
  it("success: started, tools, message, usage", () => {
    const ev = codex("mockrun-codex-exec-json-success-approved.txt");
    expect(ev[0]).toEqual({ type: "session", id: "01a22a0f-450d-71a1-977b-478c35e65705" });
    expect(ev.filter((e) => e.type === "tool").map((e) => (e as { name: string }).name)).toEqual(["mcp__task__heartbeat", "command_execution"]);
    expect(ev.at(-1)).toEqual({ type: "usage", usage: { tokens: { input: 2400, output: 80, cacheRead: 400, cacheWrite: 0 }, turns: 1 } });
  });
  it("reconnecting errors are progress; the 401 turn.failed is auth_failed", () => {
    const ev = codex("mockrun-codex-401.txt");
    expect(ev.filter((e) => e.type === "progress")).toHaveLength(5);
    expect(ev.at(-1)).toMatchObject({ type: "auth_failed" });
  });
  it("the usage-limit text (curly apostrophe) is a limit with its reset time", () => {
    expect(codex("mockrun-codex-429usage.txt").at(-1)).toMatchObject({ type: "limit", kind: "usage", resetsAt: Date.UTC(2026, 10, 30, 3, 26) });
  });
  it("a reset on another day is read with its date (the form Codex prints past midnight)", () => {
    const text =
      "You’ve hit your usage limit. Upgrade to Pro (https://chatgpt.com/explore/pro), visit https://chatgpt.com/settings/usage to purchase more credits or try again at Dec 1st, 2026 12:17 AM.";
    expect(parseCodexLimit(text, NOW)).toEqual({ resetsAt: Date.UTC(2026, 11, 1, 0, 17) });
    expect(parseCodexLimit("You've hit your usage limit … try again at Apr 28th, 2026 10:03 PM.", NOW)).toEqual({ resetsAt: Date.UTC(2026, 3, 28, 22, 3) });
    // a time alone that has passed today is tomorrow's
    expect(parseCodexLimit("You've hit your usage limit; try again at 1:05 AM.", NOW)).toEqual({ resetsAt: Date.UTC(2026, 11, 1, 1, 5) });
  });
  it("a 500 after retries is an environment failure", () => {
    expect(codex("mockrun-codex-500.txt").at(-1)).toMatchObject({ type: "failed", cause: "environment" });
  });
  it("usage is the thread's totals of turn.completed (not summed deltas), the thread id the session", () => {
    const ev = codex("mockrun-codex-resume.txt");
    expect(ev.filter((e) => e.type === "session").map((e) => (e as { id: string }).id)).toEqual([
      "01a22a13-11a3-7e12-b23a-7da15ec9217f",
      "01a22a13-11a3-7e12-b23a-7da15ec9217f",
    ]);
    const usage = ev.filter((e) => e.type === "usage").map((e) => (e as { usage: { tokens: unknown } }).usage.tokens);
    expect(usage.slice(0, 2)).toEqual([
      { input: 2400, output: 80, cacheRead: 400, cacheWrite: 0 },
      { input: 3600, output: 120, cacheRead: 600, cacheWrite: 0 },
    ]);
  });
  it("a resume of a thread this seat does not hold is recognised from its stderr", () => {
    const text = readFileSync("test/fixtures/agent-transcripts/norun-codex-resume-unknown.txt", "utf8");
    expect(CODEX_RESUME_FAILED.test(text)).toBe(true);
  });
});
