// Claude Code `--output-format stream-json --verbose` lines → AgentEvents. Pure: state in, events out.
// The result line decides (agent-cli-contracts.md §1.3, §1.6); assistant.error / rate_limit_event /
// api_retry name a failure; init must show the task MCP server connected; session_id is the resumable
// handle; usage comes from the result line as the run's totals ("No conversation found" = a resume
// that cannot be continued).
import { noAnswerFromApi, transientApiFailure } from "../network.js";
import { arr, modelName, num, obj, parseLine, str, uuid } from "../json.js";
import type { AgentEvent, Usage } from "../port.js";
import { parseLimitText } from "./limits.js";

export interface ClaudeState {
  sessionId: string | null;
  model: string | null;
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
  return { sessionId: null, model: null, resetsAt: null, authRetries: 0, resultSeen: false, success: null, requireServer, limited: false, authReported: false };
}

const NO_CONVERSATION = /No conversation found with session ID/i;

function usageOf(line: Record<string, unknown>, model: string | null): Usage {
  const u = obj(line.usage);
  const input = num(u.input_tokens);
  const output = num(u.output_tokens);
  const usage: Usage = {};
  if (input !== null && output !== null) {
    usage.tokens = { input, output };
    const cacheRead = num(u.cache_read_input_tokens);
    const cacheWrite = num(u.cache_creation_input_tokens);
    if (cacheRead !== null) usage.tokens.cacheRead = cacheRead;
    if (cacheWrite !== null) usage.tokens.cacheWrite = cacheWrite;
  }
  const cost = num(line.total_cost_usd);
  if (cost !== null) usage.costUsd = cost;
  const turns = num(line.num_turns);
  if (turns !== null) usage.turns = turns;
  const m = model ?? Object.keys(obj(line.modelUsage))[0] ?? null;
  if (m) usage.model = m;
  return usage;
}

export function translateClaudeLine(state: ClaudeState, raw: string, now: number): { state: ClaudeState; events: AgentEvent[] } {
  const line = parseLine(raw);
  if (!line) return { state, events: [] }; // not JSON (warnings): ignore
  const s = { ...state };
  const events: AgentEvent[] = [];
  const type = str(line.type);
  const subtype = str(line.subtype);
  if (type === "system" && subtype === "init") {
    s.sessionId = uuid(line.session_id);
    s.model = modelName(line.model);
    if (s.sessionId) events.push({ type: "session", id: s.sessionId });
    if (s.requireServer) {
      const mine = arr(line.mcp_servers)
        .map(obj)
        .find((x) => x.name === s.requireServer);
      if (str(mine?.status) !== "connected")
        events.push({
          type: "failed",
          cause: "environment",
          message: `the task tools MCP server '${s.requireServer}' is ${mine ? `'${str(mine.status)}'` : "missing (config dropped)"} in Claude's init line`,
        });
    }
  } else if (type === "system" && subtype === "api_retry") {
    if (str(line.error) === "authentication_failed") {
      s.authRetries += 1;
      if (s.authRetries >= 2)
        events.push({ type: "auth_failed", message: `HTTP ${num(line.error_status) ?? "?"} authentication_failed, retried ${s.authRetries} times` });
    } else if (num(line.error_status) === null)
      // No HTTP status: the request got no answer at all (no network, a dead port, a name that does not resolve).
      events.push({
        type: "unreachable",
        message: `API retry ${num(line.attempt) ?? "?"}/${num(line.max_retries) ?? "?"}: no answer from the API (${str(line.error) ?? "connection error"})`,
      });
    else events.push({ type: "progress", note: `API retry ${num(line.attempt) ?? "?"}/${num(line.max_retries) ?? "?"} (${str(line.error) ?? "error"})` });
  } else if (type === "rate_limit_event") {
    const info = obj(line.rate_limit_info);
    const at = num(info.resetsAt);
    if (at !== null) s.resetsAt = at * 1000;
    if (str(info.status) === "rejected")
      events.push({
        type: "limit",
        kind: str(info.rateLimitType) ?? "rate_limit",
        resetsAt: s.resetsAt,
        message: "subscription limit reached (rate_limit_event rejected)",
      });
  } else if (type === "assistant") {
    const content = arr(obj(line.message).content).map(obj);
    const text = content
      .filter((c) => c.type === "text")
      .map((c) => str(c.text) ?? "")
      .join(" ")
      .trim();
    const error = str(line.error);
    if (error === "authentication_failed") events.push({ type: "auth_failed", message: text || "authentication failed" });
    else if (error === "rate_limit") {
      const parsed = parseLimitText(text, now);
      events.push({ type: "limit", kind: parsed?.kind ?? "rate_limit", resetsAt: s.resetsAt ?? parsed?.resetsAt ?? null, message: text || "rate limited" });
    } else if (error === "billing_error") events.push({ type: "failed", cause: "environment", message: `billing: ${text || "billing error"}` });
    else {
      if ((line.parent_tool_use_id ?? null) === null && text) events.push({ type: "progress", note: text.split("\n")[0]?.slice(0, 300) ?? "" });
      for (const c of content) if (c.type === "tool_use" && str(c.name)) events.push({ type: "tool", name: str(c.name) ?? "" });
    }
  } else if (type === "result") {
    s.resultSeen = true;
    const isError = line.is_error === true;
    s.success = !isError;
    if (!s.sessionId && uuid(line.session_id)) s.sessionId = uuid(line.session_id);
    events.push({ type: "usage", usage: usageOf(line, s.model) });
    if (isError) events.push(...resultError(line, s, now));
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

/** The text of a user message Claude echoes back (`--replay-user-messages`): the message was taken. */
export function replayedUserText(raw: string): string | null {
  if (!raw.includes('"isReplay"')) return null;
  const line = parseLine(raw);
  if (!line || str(line.type) !== "user" || line.isReplay !== true) return null;
  const content = obj(line.message).content;
  if (typeof content === "string") return content;
  return arr(content)
    .map(obj)
    .map((c) => str(c.text) ?? "")
    .join("\n");
}

function resultError(line: Record<string, unknown>, s: ClaudeState, now: number): AgentEvent[] {
  const subtype = str(line.subtype);
  const errors = arr(line.errors).map(String);
  const text = str(line.result) ?? errors.join("; ");
  const status = num(line.api_error_status);
  const legacy = parseLimitText(text, now);
  if (subtype === "error_during_execution" && errors.some((e) => NO_CONVERSATION.test(e)))
    return [{ type: "resume_failed", message: errors.find((e) => NO_CONVERSATION.test(e)) ?? text }];
  if (subtype === "error_max_turns")
    return [
      {
        type: "failed",
        cause: "human decision needed",
        message: `ran out of turns (${text || "max turns"}): the task may need splitting or a higher agent.maxTurns`,
      },
    ];
  if (subtype === "error_max_budget_usd") return [{ type: "failed", cause: "human decision needed", message: "ran out of budget (max budget USD)" }];
  if (legacy && status !== null) return [{ type: "limit", kind: legacy.kind, resetsAt: s.resetsAt ?? legacy.resetsAt, message: text }];
  if (legacy && /usage limit reached\|/i.test(text)) return [{ type: "limit", kind: legacy.kind, resetsAt: legacy.resetsAt, message: text }];
  if (status === null && noAnswerFromApi(text)) return [{ type: "unreachable", message: text.slice(0, 300) }];
  const transient = transientApiFailure(text, status);
  return [
    {
      type: "failed",
      cause: "environment",
      message: `Claude ended with an error (${subtype ?? "error"}${status ? `, HTTP ${status}` : ""}): ${text}`,
      ...(transient ? { transient } : {}),
    },
  ];
}
