// The card's formats, both ways, in one place (the board's wire, like its events): the `usage:` line every
// close writes where the CLI has no metadata (a block reason, a schedule or hand-back reason) and the one
// that reads it back, and what one run of a task cost as the board records it — `metadata.bridge` of a
// complete, else that line — and whether that record is the run's own. A run whose agent reported
// nothing is "unmeasured", never free. Where the run's proxy counted the agent CLI's API (`api`: requests
// and the tokens the answers reported), a run cost at least that: the larger of the two is what it cost.

/** Usage of a run as absolute totals so far (each agent event replaces the last). */
export interface Usage {
  tokens?: { input: number; output: number; cacheRead?: number; cacheWrite?: number };
  costUsd?: number;
  turns?: number;
  model?: string;
  /** How the agent priced its cost (Claude Code 2.1.33x `costBasis`: "list" — list prices; a subscription's use is not billed per token). */
  costBasis?: string;
}

/** The agent CLI's API as the run's proxy counted it (egress/api-usage.ts), for the card. */
export interface ApiCount {
  requests: number;
  input: number;
  output: number;
}

/** Why a run's agent was started again within its claim (run/work/retry.ts): its process crashed, its API failed, its connection broke. */
export const RETRY_CAUSES = ["crash", "api", "connection"] as const;
export type RetryCause = (typeof RETRY_CAUSES)[number];

export interface RunCost {
  seat: string | null;
  agent: string | null;
  model: string | null;
  tokensIn: number;
  tokensOut: number;
  costUsd: number;
  /** False when the agent reported no usage (the numbers are then 0 but mean "unknown"). */
  measured: boolean;
  /** The agent's turns, where it reported them. */
  turns?: number | null;
  /** The agent reported a cost (Codex reports tokens only): a measured run without one is "cost unknown", never free. */
  costKnown?: boolean;
  /** How long the run took as the bridge measured it (`metadata.bridge.duration_ms`), where the record has it. */
  durationMs?: number | null;
  /** The retries within the run before its close, by cause (the close's record: `metadata.bridge.retries`, the usage line's `retried`). */
  retries?: RetryCause[];
}

/** What the usage line says of the run besides its usage: the proxy's count of its API, the agent kind, the retries before the close. */
export interface UsageLineExtra {
  api?: ApiCount | undefined;
  agent?: string | undefined;
  retries?: readonly RetryCause[] | undefined;
}

const word = (s: string) => s.replace(/\s+/g, "_").slice(0, 100);

/**
 * The one-line usage of a run (`usage: 1200 input / 300 output tokens, $0.0123, 4 turns (model m) · api 5
 * requests, 1300 input / 310 output tokens · seat s · agent claude-code · retried 2 (crash, api)`): the
 * agent's report, then the proxy's count of its API, who ran it and the retries before the close.
 */
export function usageLine(u: Usage | null, model?: string, seat?: string, extra: UsageLineExtra = {}): string {
  const api = extra.api;
  const counted = api?.requests ? ` · api ${api.requests} request${api.requests === 1 ? "" : "s"}, ${api.input} input / ${api.output} output tokens` : "";
  const retried = extra.retries?.length ? ` · retried ${extra.retries.length} (${extra.retries.join(", ")})` : "";
  const who = `${counted}${seat ? ` · seat ${word(seat)}` : ""}${extra.agent ? ` · agent ${word(extra.agent)}` : ""}${retried}`;
  if (!u || (!u.tokens && u.costUsd === undefined && u.turns === undefined)) return `usage: unmeasured (the agent reported none)${who}`;
  const parts: string[] = [];
  if (u.tokens) {
    const cache = u.tokens.cacheRead || u.tokens.cacheWrite ? ` (cache read ${u.tokens.cacheRead ?? 0}, write ${u.tokens.cacheWrite ?? 0})` : "";
    parts.push(`${u.tokens.input} input / ${u.tokens.output} output tokens${cache}`);
  }
  if (u.costUsd !== undefined) parts.push(`$${u.costUsd.toFixed(4)}`);
  if (u.turns !== undefined) parts.push(`${u.turns} turn${u.turns === 1 ? "" : "s"}`);
  const m = u.model ?? model;
  return `usage: ${parts.join(", ")}${m ? ` (model ${m})` : ""}${who}`;
}

/**
 * The shape of the bridge's own line, whole: the last line of a close's text is it, or there is none. What
 * an agent wrote earlier in the text (a forged `usage:` line in its block template, anywhere but last) is
 * never read as the run's usage.
 */
const USAGE_LINE =
  /^usage: (unmeasured \(the agent reported none\)|(\d+ input \/ \d+ output tokens( \(cache read \d+, write \d+\))?)?(, )?(\$\d+\.\d{4})?(, )?(\d+ turns?)?( \(model [^()]+\))?)( · api \d+ requests?, \d+ input \/ \d+ output tokens)?( · seat \S+)?( · agent \S+)?( · retried \d+ \((?:crash|api|connection)(?:, (?:crash|api|connection))*\))?$/;
const API_PART = / · api \d+ requests?, (\d+) input \/ (\d+) output tokens/;

/** A cost raised to the proxy's count of the API where that is larger (a run cost at least what its proxy saw). */
function atLeast(c: RunCost, apiIn: number, apiOut: number): RunCost {
  if (apiIn + apiOut === 0) return c;
  return { ...c, tokensIn: Math.max(c.tokensIn, apiIn), tokensOut: Math.max(c.tokensOut, apiOut), measured: true };
}

/** The longest start of `s` within `max` UTF-8 bytes (never half a character). */
function fitBytes(s: string, max: number): string {
  let out = "";
  let n = 0;
  for (const ch of s) {
    n += Buffer.byteLength(ch);
    if (n > max) break;
    out += ch;
  }
  return out;
}

/**
 * A text the CLI keeps on one line (a reclaim's reason): flattened and cut to `maxBytes`, its usage line kept
 * whole at its end, where `parseUsageLine` reads it back (a hand-back's record of what its run used).
 */
export function oneLineWithUsage(text: string, maxBytes: number): string {
  const flat = (s: string) => s.replace(/\s+/g, " ").trim();
  const lines = text.replace(/\s+$/, "").split("\n");
  const last = lines.at(-1) ?? "";
  if (lines.length < 2 || !USAGE_LINE.test(last)) return fitBytes(flat(text), maxBytes);
  const head = flat(lines.slice(0, -1).join(" "));
  const room = maxBytes - Buffer.byteLength(last) - 1;
  const cut = Buffer.byteLength(head) > room ? `${fitBytes(head, room - Buffer.byteLength("…"))}…` : head;
  return `${cut} ${last}`;
}

/**
 * Reads the bridge's `usage:` line back: the text's last line, when it is one — or the end of a text kept on
 * one line (a reclaim's reason: `oneLineWithUsage`), from its last ` usage: ` on; null otherwise.
 */
export function parseUsageLine(text: string): RunCost | null {
  let last = text.replace(/\s+$/, "").split("\n").at(-1) ?? "";
  if (!USAGE_LINE.test(last)) {
    const at = last.lastIndexOf(" usage: ");
    if (at < 0 || !USAGE_LINE.test(last.slice(at + 1))) return null;
    last = last.slice(at + 1);
  }
  const whole = last.slice("usage: ".length);
  const api = API_PART.exec(whole);
  const line = whole.replace(API_PART, "");
  const seat = / · seat (\S+)/.exec(line)?.[1] ?? null;
  const agent = / · agent (\S+)/.exec(line)?.[1] ?? null;
  const model = /\(model ([^)]+)\)/.exec(line)?.[1] ?? null;
  const apiIn = Number(api?.[1] ?? 0);
  const apiOut = Number(api?.[2] ?? 0);
  const retried = / · retried \d+ \(([a-z, ]+)\)$/.exec(line)?.[1];
  const retries = retried ? (retried.split(", ") as RetryCause[]) : [];
  if (line.startsWith("unmeasured"))
    return atLeast({ seat, agent, model, tokensIn: 0, tokensOut: 0, costUsd: 0, measured: false, turns: null, retries, costKnown: false }, apiIn, apiOut);
  const tokens = /(\d+) input \/ (\d+) output tokens/.exec(line);
  const cost = /\$(\d+(?:\.\d+)?)/.exec(line);
  const turns = /, (\d+) turns?/.exec(line) ?? /^(\d+) turns?/.exec(line);
  const c: RunCost = {
    seat,
    agent,
    model,
    tokensIn: Number(tokens?.[1] ?? 0),
    tokensOut: Number(tokens?.[2] ?? 0),
    costUsd: Number(cost?.[1] ?? 0),
    measured: tokens !== null || cost !== null,
    turns: turns ? Number(turns[1]) : null,
    retries,
    costKnown: cost !== null,
  };
  return atLeast(c, apiIn, apiOut);
}

const num = (v: unknown) => (typeof v === "number" && Number.isFinite(v) ? v : 0);

/** `metadata.bridge.retries` (a list of `{cause, …}`) as causes; anything else in it is no retry (at most 100). */
function retriesOf(v: unknown): RetryCause[] {
  if (!Array.isArray(v)) return [];
  return v
    .slice(0, 100)
    .map((r) => (r && typeof r === "object" ? (r as Record<string, unknown>).cause : null))
    .filter((c): c is RetryCause => typeof c === "string" && (RETRY_CAUSES as readonly string[]).includes(c));
}
const str = (v: unknown) => (typeof v === "string" ? v.slice(0, 200) : null);

/** Why a usage number of a card cannot be counted (negative, not finite, not a number), or null. */
export function badUsageValue(bridge: Record<string, unknown>): string | null {
  const tokens = bridge.tokens && typeof bridge.tokens === "object" ? (bridge.tokens as Record<string, unknown>) : {};
  const api = apiTokensOf(bridge);
  for (const [name, v] of [
    ["tokens.input", tokens.input],
    ["tokens.output", tokens.output],
    ["cost_usd", bridge.cost_usd],
    ["api.tokens.input", api.input],
    ["api.tokens.output", api.output],
  ] as const) {
    if (v === undefined) continue;
    // No run uses a trillion tokens or dollars: a bigger number is a forgery (and sums of them would overflow).
    if (typeof v !== "number" || !Number.isFinite(v) || v < 0 || v > 1e12) return `metadata.bridge.${name} is ${JSON.stringify(v)?.slice(0, 40)}, not a usage`;
  }
  return null;
}

/** `metadata.bridge.api.tokens` (the proxy's count), as they stand. */
function apiTokensOf(bridge: Record<string, unknown>): { input?: unknown; output?: unknown } {
  const api = bridge.api && typeof bridge.api === "object" ? (bridge.api as Record<string, unknown>) : {};
  return api.tokens && typeof api.tokens === "object" ? (api.tokens as Record<string, unknown>) : {};
}

/**
 * What one run cost, as its close recorded it: `metadata.bridge` (a complete), else the `usage:` line that
 * ends its summary, its error or a reason of the events that closed it (a block, a schedule, a hand-back).
 * Null for a run the bridge did not close.
 */
export function runCost(run: {
  metadata: Record<string, unknown> | null;
  summary: string | null;
  error: string | null;
  /** The reasons of the events that closed the run (a reclaim keeps its reason only there). */
  reasons?: readonly string[];
}): RunCost | null {
  const b = run.metadata?.bridge;
  if (b && typeof b === "object") {
    const bridge = b as Record<string, unknown>;
    // A negative or non-finite number is no usage: the run counts as unmeasured (never as a credit).
    if (badUsageValue(bridge))
      return { seat: str(bridge.seat), agent: str(bridge.agent), model: str(bridge.model), tokensIn: 0, tokensOut: 0, costUsd: 0, measured: false };
    const tokens = (bridge.tokens ?? {}) as Record<string, unknown>;
    const measured = bridge.usage === undefined ? bridge.tokens !== undefined || bridge.cost_usd !== undefined : bridge.usage === "measured";
    const api = apiTokensOf(bridge);
    const turns = typeof bridge.turns === "number" && Number.isInteger(bridge.turns) && bridge.turns >= 0 ? bridge.turns : null;
    const c: RunCost = {
      seat: str(bridge.seat),
      agent: str(bridge.agent),
      model: str(bridge.model),
      tokensIn: num(tokens.input),
      tokensOut: num(tokens.output),
      costUsd: num(bridge.cost_usd),
      measured,
      turns,
      retries: retriesOf(bridge.retries),
      costKnown: typeof bridge.cost_usd === "number",
      durationMs: typeof bridge.duration_ms === "number" && Number.isFinite(bridge.duration_ms) && bridge.duration_ms >= 0 ? bridge.duration_ms : null,
    };
    return atLeast(c, num(api.input), num(api.output));
  }
  for (const text of [run.summary, run.error, ...(run.reasons ?? [])]) {
    const c = text ? parseUsageLine(text) : null;
    if (c) return c;
  }
  return null;
}

/** Why a run's `metadata.bridge` is not that run's own usage record (it names another run, a number no usage has), or null. */
export function cardRecordProblem(run: { id: number; metadata: Record<string, unknown> | null }): string | null {
  const b = run.metadata?.bridge;
  if (!b || typeof b !== "object") return null;
  const bridge = b as Record<string, unknown>;
  if (bridge.run_id !== undefined && bridge.run_id !== run.id) return `its metadata names run ${JSON.stringify(bridge.run_id)?.slice(0, 20)}, not ${run.id}`;
  return badUsageValue(bridge);
}
