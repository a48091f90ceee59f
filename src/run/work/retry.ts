// Retries before a block (pure): which ends of an agent's attempt are the environment's and not the task's
// — its process crashed or was killed by the host, its API failed or was overloaded mid-turn, its connection
// broke mid-turn — how long to wait before the next attempt (base × 2^(n−1), capped), what the heartbeat of
// each attempt says, and the run's usage over its attempts. The task's own ends (the gate, the agent's block,
// a refusal, a limit, a login, a stop of the bridge's) are never retried; an API that never answers is the
// unreachable watch's (reach.ts: the task goes back to the lane). The loop itself is agent-run.ts's.
import type { RetryCause } from "../../board/card.js";
import type { Usage } from "../../agents/port.js";
import type { RetryPolicy } from "../context.js";
import type { RetryRecord } from "../events.js";
import type { RunFacts } from "../record.js";

export type { RetryCause } from "../../board/card.js";

/** The first signal number a shell reports as 128 + n: an exit code above 128 is a process a signal ended. */
const SIGNAL_EXIT = 128;

/** Why this attempt's end is the environment's (and worth another attempt), or null when it is the task's. */
export function retryCause(f: RunFacts, stopped: boolean): { cause: RetryCause; detail: string } | null {
  // A stop of the bridge's (deadline, lease, shutdown, budget, cap…), a limit, a login, an unreachable API: each has its own way.
  if (stopped || f.stop !== null || f.limit || f.authFailed || f.unreachable) return null;
  // The agent's own word: a block is the task's; a complete after a crash is started again (it is not trusted).
  if (f.outcome && f.outcome.kind !== "complete") return null;
  if (f.failure?.transient) return { cause: f.failure.transient, detail: f.failure.message.slice(0, 300) };
  const fin = f.finished;
  if (!fin || fin.reason !== "exited" || fin.exitUnknown) return null;
  if (fin.signal) return { cause: "crash", detail: `the agent was killed by ${fin.signal}` };
  if (fin.exitCode !== null && fin.exitCode > SIGNAL_EXIT && fin.exitCode <= SIGNAL_EXIT + 64)
    return { cause: "crash", detail: `the agent exited with code ${fin.exitCode} (signal ${fin.exitCode - SIGNAL_EXIT})` };
  return null;
}

/** The wait before retry `n` (1-based): base × 2^(n−1), at most `maxMs`. */
export function retryDelay(n: number, p: Pick<RetryPolicy, "baseMs" | "maxMs">): number {
  return Math.min(p.maxMs, p.baseMs * 2 ** Math.max(0, n - 1));
}

/** The heartbeat note of a retry: on the card, the attempt, its cause and when the next one starts. */
export function retryNote(r: RetryRecord, of: number, waitMs: number, resume: string | null): string {
  const next = `attempt ${r.attempt + 1} of ${of + 1} in ${Math.round(waitMs / 1000)} s${resume ? `, resuming session ${resume}` : ", fresh"}`;
  return `hermes-kanban-bridge: retry ${r.attempt} of ${of} (${r.cause}): ${r.detail.slice(0, 300)}; ${next} (agent.retries)`;
}

/** A run's usage over its attempts: each attempt reports its own totals, the run's are their sum. */
export function addUsage(a: Usage | null, b: Usage | null): Usage | null {
  if (!a) return b;
  if (!b) return a;
  const u: Usage = {};
  if (a.tokens || b.tokens) {
    const x = a.tokens ?? { input: 0, output: 0 };
    const y = b.tokens ?? { input: 0, output: 0 };
    u.tokens = { input: x.input + y.input, output: x.output + y.output };
    if (x.cacheRead !== undefined || y.cacheRead !== undefined) u.tokens.cacheRead = (x.cacheRead ?? 0) + (y.cacheRead ?? 0);
    if (x.cacheWrite !== undefined || y.cacheWrite !== undefined) u.tokens.cacheWrite = (x.cacheWrite ?? 0) + (y.cacheWrite ?? 0);
  }
  if (a.costUsd !== undefined || b.costUsd !== undefined) u.costUsd = (a.costUsd ?? 0) + (b.costUsd ?? 0);
  if (a.turns !== undefined || b.turns !== undefined) u.turns = (a.turns ?? 0) + (b.turns ?? 0);
  const model = b.model ?? a.model;
  if (model) u.model = model;
  return u;
}
