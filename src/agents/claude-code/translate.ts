// Claude Code `--output-format stream-json --verbose` lines → AgentEvents. Pure: state in, events out.
// (agent-cli-contracts.md §1.3, §1.6: result line decides; assistant.error / rate_limit_event /
// api_retry name the failure; init must show the task MCP server connected.)
import type { AgentEvent } from "../port.js";
import { parseLimitText } from "./limits.js";

export interface ClaudeState {
  sessionId: string | null;
  resetsAt: number | null;
  authRetries: number;
  resultSeen: boolean;
  success: boolean | null;
  requireServer: string | null;
  /** A limit / auth failure was already reported (each is reported once). */
  limited: boolean;
  authReported: boolean;
}

export function initialClaudeState(requireServer: string | null = "task"): ClaudeState {
  return { sessionId: null, resetsAt: null, authRetries: 0, resultSeen: false, success: null, requireServer, limited: false, authReported: false };
}

type Json = Record<string, unknown>;
const obj = (v: unknown): Json => (v && typeof v === "object" && !Array.isArray(v) ? (v as Json) : {});
const str = (v: unknown): string | null => (typeof v === "string" ? v : null);
const num = (v: unknown): number | null => (typeof v === "number" && Number.isFinite(v) ? v : null);

export function translateClaudeLine(state: ClaudeState, raw: string, now: number): { state: ClaudeState; events: AgentEvent[] } {
  let line: Json;
  try {
    line = obj(JSON.parse(raw));
  } catch {
    return { state, events: [] }; // not JSON (warnings): ignore
  }
  const s = { ...state };
  const events: AgentEvent[] = [];
  const type = str(line.type);
  const subtype = str(line.subtype);
  if (type === "system" && subtype === "init") {
    s.sessionId = str(line.session_id);
    events.push({ type: "started", ...(s.sessionId ? { sessionId: s.sessionId } : {}) });
    if (s.requireServer) {
      const servers = Array.isArray(line.mcp_servers) ? line.mcp_servers.map(obj) : [];
      const mine = servers.find((x) => x.name === s.requireServer);
      if (str(mine?.status) !== "connected")
        events.push({ type: "failed", cause: "environment", message: `the task tools MCP server '${s.requireServer}' is ${mine ? `'${str(mine.status)}'` : "missing (config dropped)"} in Claude's init line` });
    }
  } else if (type === "system" && subtype === "api_retry") {
    if (str(line.error) === "authentication_failed") {
      s.authRetries += 1;
      if (s.authRetries >= 2) events.push({ type: "auth_failed", message: `HTTP ${num(line.error_status) ?? "?"} authentication_failed, retried ${s.authRetries} times` });
    } else events.push({ type: "progress", note: `API retry ${num(line.attempt) ?? "?"}/${num(line.max_retries) ?? "?"} (${str(line.error) ?? "error"})` });
  } else if (type === "rate_limit_event") {
    const info = obj(line.rate_limit_info);
    const at = num(info.resetsAt);
    if (at !== null) s.resetsAt = at * 1000;
    if (str(info.status) === "rejected")
      events.push({ type: "limit", kind: str(info.rateLimitType) ?? "rate_limit", resetsAt: s.resetsAt, message: "subscription limit reached (rate_limit_event rejected)" });
  } else if (type === "assistant") {
    const msg = obj(line.message);
    const content = Array.isArray(msg.content) ? msg.content.map(obj) : [];
    const text = content.filter((c) => c.type === "text").map((c) => str(c.text) ?? "").join(" ").trim();
    const error = str(line.error);
    if (error === "authentication_failed") events.push({ type: "auth_failed", message: text || "authentication failed" });
    else if (error === "rate_limit") {
      const parsed = parseLimitText(text, now);
      events.push({ type: "limit", kind: parsed?.kind ?? "rate_limit", resetsAt: s.resetsAt ?? parsed?.resetsAt ?? null, message: text || "rate limited" });
    } else if (error === "billing_error") events.push({ type: "failed", cause: "environment", message: `billing: ${text || "billing error"}` });
    else {
      if (line.parent_tool_use_id === null || line.parent_tool_use_id === undefined) if (text) events.push({ type: "progress", note: text.split("\n")[0]?.slice(0, 300) ?? "" });
      for (const c of content) if (c.type === "tool_use" && str(c.name)) events.push({ type: "tool", name: str(c.name) ?? "" });
    }
  } else if (type === "result") {
    s.resultSeen = true;
    const isError = line.is_error === true;
    s.success = !isError;
    const usage = obj(line.usage);
    const input = num(usage.input_tokens);
    const output = num(usage.output_tokens);
    const cost = num(line.total_cost_usd);
    events.push({ type: "usage", ...(input !== null && output !== null ? { tokens: { input, output } } : {}), ...(cost !== null ? { costUsd: cost } : {}) });
    if (isError) {
      const text = str(line.result) ?? (Array.isArray(line.errors) ? line.errors.map(String).join("; ") : "");
      const legacy = parseLimitText(text, now);
      if (subtype === "error_max_turns") events.push({ type: "failed", cause: "human decision needed", message: `ran out of turns (${text || "max turns"}): the task may need splitting or a higher agent.maxTurns` });
      else if (subtype === "error_max_budget_usd") events.push({ type: "failed", cause: "human decision needed", message: "ran out of budget (max budget USD)" });
      else if (legacy && num(line.api_error_status) !== null) events.push({ type: "limit", kind: legacy.kind, resetsAt: s.resetsAt ?? legacy.resetsAt, message: text });
      else if (legacy && /usage limit reached\|/i.test(text)) events.push({ type: "limit", kind: legacy.kind, resetsAt: legacy.resetsAt, message: text });
      else events.push({ type: "failed", cause: "environment", message: `Claude ended with an error (${subtype ?? "error"}${num(line.api_error_status) ? `, HTTP ${num(line.api_error_status)}` : ""}): ${text}` });
    }
  }
  // Report a limit and an auth failure once each, however many lines repeat them.
  const deduped = events.filter((e) => {
    if (e.type === "limit") {
      if (s.limited) return false;
      s.limited = true;
    }
    if (e.type === "auth_failed") {
      if (s.authReported) return false;
      s.authReported = true;
    }
    return true;
  });
  return { state: s, events: deduped };
}
