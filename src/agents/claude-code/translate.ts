// Claude Code `--output-format stream-json --verbose` lines → AgentEvents. Pure: state in, events out.
// The result line decides (agent-cli-contracts.md §1.3, §1.6); assistant.error / rate_limit_event /
// api_retry name a failure; init must show the task MCP server connected; session_id is the resumable
// handle; usage comes from the result line as the run's totals ("No conversation found" = a resume
// that cannot be continued). Background tasks (2.1.198+: subagents, workflows) are followed from the
// stream's own list: a result while one still runs is not the run's end, and a subagent's usage limit
// (2.1.199+: reported to the parent as the task's failure) is the seat's limit.
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
  /** The background tasks the CLI says still run (`background_tasks_changed`), by description. */
  background: string[];
  /** The last line was a result: the agent is at rest unless something runs in the background. */
  atResult: boolean;
  /** Turns the CLI has queued behind the last result (2.1.33x `queued_turn_count`: a note taken while it worked). */
  queued: number;
}

/** The run reached its end: a result, and nothing of it left running in the background. */
export const atRest = (s: ClaudeState): boolean => s.atResult && s.background.length === 0;

export function initialClaudeState(requireServer: string | null = "task"): ClaudeState {
  return {
    sessionId: null,
    model: null,
    resetsAt: null,
    authRetries: 0,
    resultSeen: false,
    success: null,
    requireServer,
    limited: false,
    authReported: false,
    background: [],
    atResult: false,
    queued: 0,
  };
}

const NO_CONVERSATION = /No conversation found with session ID/i;

/**
 * The session's totals so far. `modelUsage` (every model of the session: subagents, the CLI's own small calls) is
 * what the process billed since it started, whatever number of results it printed; the line's `usage` is its
 * last turn's only (2.1.332: a second result after a note or a background task reports its own turn). A CLI
 * without `modelUsage` is read from `usage`. The canonical model and the cost basis (2.1.33x) where it says them.
 */
function usageOf(line: Record<string, unknown>, model: string | null): Usage {
  const usage: Usage = {};
  const perModel: Record<string, unknown>[] = Object.entries(obj(line.modelUsage)).map(([name, v]) => ({ ...obj(v), name }));
  const sum = (k: string) => perModel.reduce((n, m) => n + (num(m[k]) ?? 0), 0);
  const u = obj(line.usage);
  const input = perModel.length ? sum("inputTokens") : num(u.input_tokens);
  const output = perModel.length ? sum("outputTokens") : num(u.output_tokens);
  if (input !== null && output !== null) {
    usage.tokens = { input, output };
    const cacheRead = perModel.length ? sum("cacheReadInputTokens") : num(u.cache_read_input_tokens);
    const cacheWrite = perModel.length ? sum("cacheCreationInputTokens") : num(u.cache_creation_input_tokens);
    if (cacheRead !== null) usage.tokens.cacheRead = cacheRead;
    if (cacheWrite !== null) usage.tokens.cacheWrite = cacheWrite;
  }
  const cost = num(line.total_cost_usd);
  if (cost !== null) usage.costUsd = cost;
  const turns = num(line.num_turns);
  if (turns !== null) usage.turns = turns;
  const main = perModel.find((m) => m.name === model || str(m.canonicalModel) === model) ?? perModel[0];
  const m = modelName(main?.canonicalModel) ?? model ?? str(main?.name) ?? null;
  if (m) usage.model = m;
  const bases = [...new Set(perModel.map((x) => str(x.costBasis)).filter((b): b is string => b !== null))];
  if (bases.length) usage.costBasis = bases.length === 1 ? (bases[0] ?? "") : "mixed";
  return usage;
}

export function translateClaudeLine(state: ClaudeState, raw: string, now: number): { state: ClaudeState; events: AgentEvent[] } {
  const line = parseLine(raw);
  if (!line) return { state, events: [] }; // not JSON (warnings): ignore
  const s = { ...state };
  const events: AgentEvent[] = [];
  const type = str(line.type);
  const subtype = str(line.subtype);
  s.atResult = type === "result";
  if (s.atResult) s.queued = num(line.queued_turn_count) ?? 0;
  if (type === "system" && subtype === "background_tasks_changed")
    s.background = arr(line.tasks).map((t) => str(obj(t).description) ?? str(obj(t).task_id) ?? "a background task");
  else if (type === "system" && (subtype === "task_updated" || subtype === "task_notification")) {
    const failed = subtype === "task_updated" ? obj(line.patch) : line;
    if (str(failed.status) === "failed") events.push(...subagentFailed(str(failed.error) ?? str(failed.summary) ?? "", s, now));
  } else if (type === "system" && subtype === "init") {
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

/** A subagent ended on an API error (2.1.199+ reports it to the parent): a usage limit there is the seat's. */
function subagentFailed(error: string, s: ClaudeState, now: number): AgentEvent[] {
  if (!/error type rate_limit|usage limit|\(429\)/i.test(error)) return [];
  const parsed = parseLimitText(error, now);
  return [
    { type: "limit", kind: parsed?.kind ?? "rate_limit", resetsAt: s.resetsAt ?? parsed?.resetsAt ?? null, message: `a subagent: ${error.slice(0, 300)}` },
  ];
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
  // 2.1.33x ends a refused key with a result of its own (HTTP 401) after the retries that already said so.
  if (status === 401) return [{ type: "auth_failed", message: text || "HTTP 401" }];
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
