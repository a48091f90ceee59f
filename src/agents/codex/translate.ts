// Codex `exec --json` JSONL → AgentEvents. Pure. (agent-cli-contracts.md §2.3–2.5: turn.completed
// = success, turn.failed carries the reason, "Reconnecting… n/5" errors are progress; thread_id is
// the resumable handle; turn.completed usage is the thread's running total, reported as such.)
import { num, obj, parseLine, str, uuid } from "../json.js";
import { noAnswerFromApi, transientApiFailure } from "../network.js";
import type { AgentEvent, Usage } from "../port.js";

export interface CodexState {
  threadId: string | null;
  terminal: "completed" | "failed" | null;
  lastMessage: string | null;
  turns: number;
}

export function initialCodexState(): CodexState {
  return { threadId: null, terminal: null, lastMessage: null, turns: 0 };
}

const MONTHS = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"];

/**
 * "You’ve hit your usage limit … try again at 3:26 AM." (curly or straight apostrophe); a reset on
 * another day reads "try again at Dec 1st, 2026 12:17 AM." The bridge runs Codex with TZ=UTC.
 */
export function parseCodexLimit(text: string, now: number): { resetsAt: number | null } | null {
  if (!/You(?:’|')ve hit your usage limit|usage_limit_reached/i.test(text)) return null;
  const at = /try again at (?:([A-Z][a-z]{2})[a-z]* (\d{1,2})(?:st|nd|rd|th)?,? (\d{4}),? )?(\d{1,2}):(\d{2})\s*(AM|PM)/i.exec(text);
  if (!at) return { resetsAt: null };
  let hour = Number(at[4]) % 12;
  if ((at[6] ?? "").toUpperCase() === "PM") hour += 12;
  const month = at[1] ? MONTHS.indexOf(at[1].toLowerCase()) : -1;
  if (at[1] && month >= 0) return { resetsAt: Date.UTC(Number(at[3]), month, Number(at[2]), hour, Number(at[5])) };
  const d = new Date(now);
  let t = Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate(), hour, Number(at[5]));
  if (t <= now) t += 86_400_000;
  return { resetsAt: t };
}

/** A resume of a thread this CODEX_HOME does not hold (stderr only, exit 1, no JSONL). */
export const CODEX_RESUME_FAILED = /no rollout found for thread id|thread\/resume failed/i;

function failure(message: string, now: number): AgentEvent {
  const limit = parseCodexLimit(message, now);
  if (limit) return { type: "limit", kind: "usage", resetsAt: limit.resetsAt, message };
  if (/401 Unauthorized|Please log out and sign in again|Not logged in/i.test(message)) return { type: "auth_failed", message };
  if (/\b429\b|Too Many Requests|rate limit/i.test(message)) return { type: "limit", kind: "rate_limit", resetsAt: null, message };
  const transient = transientApiFailure(message);
  return { type: "failed", cause: "environment", message: `Codex turn failed: ${message}`, ...(transient ? { transient } : {}) };
}

function usageOf(u: Record<string, unknown>, turns: number): Usage {
  const usage: Usage = { tokens: { input: num(u.input_tokens) ?? 0, output: num(u.output_tokens) ?? 0 }, turns };
  const cacheRead = num(u.cached_input_tokens);
  const cacheWrite = num(u.cache_write_input_tokens);
  if (usage.tokens && cacheRead !== null) usage.tokens.cacheRead = cacheRead;
  if (usage.tokens && cacheWrite !== null) usage.tokens.cacheWrite = cacheWrite;
  return usage;
}

export function translateCodexLine(state: CodexState, raw: string, now: number): { state: CodexState; events: AgentEvent[] } {
  const line = parseLine(raw);
  if (!line) return { state, events: [] };
  const s: CodexState = { ...state };
  const events: AgentEvent[] = [];
  const type = str(line.type);
  if (type === "thread.started") {
    s.threadId = uuid(line.thread_id);
    if (s.threadId) events.push({ type: "session", id: s.threadId });
  } else if (type === "error") {
    const message = str(line.message) ?? "";
    // A reconnect with no answer from the API is the unreachable watch's (run/work/agent-run.ts); any other is progress.
    if (/^Reconnecting\.\.\./.test(message))
      events.push(noAnswerFromApi(message) ? { type: "unreachable", message: message.slice(0, 300) } : { type: "progress", note: message.slice(0, 300) });
  } else if (type === "item.started" || type === "item.completed") {
    const item = obj(line.item);
    const itype = str(item.type);
    if (itype === "mcp_tool_call" && type === "item.started") events.push({ type: "tool", name: `mcp__${str(item.server) ?? "?"}__${str(item.tool) ?? "?"}` });
    else if (itype === "command_execution" && type === "item.started") events.push({ type: "tool", name: "command_execution" });
    else if (itype === "agent_message" && type === "item.completed") {
      s.lastMessage = str(item.text);
      if (s.lastMessage) events.push({ type: "progress", note: s.lastMessage.split("\n")[0]?.slice(0, 300) ?? "" });
    } else if (itype === "file_change" && type === "item.completed") events.push({ type: "tool", name: "file_change" });
  } else if (type === "turn.completed") {
    s.terminal = "completed";
    s.turns += 1;
    events.push({ type: "usage", usage: usageOf(obj(line.usage), s.turns) });
  } else if (type === "turn.failed") {
    s.terminal = "failed";
    const message = str(obj(line.error).message) ?? "turn failed";
    if (noAnswerFromApi(message)) events.push({ type: "unreachable", message: message.slice(0, 300) });
    events.push(failure(message, now));
  }
  return { state: s, events };
}
