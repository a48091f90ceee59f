// A usage limit or a lost login the agent reported on its own stream is a claim, not a fact: the agent —
// steered by task text — can print either, and each would pause the seat and hand the task on to the next
// seat of the pool, which the same text steers the same way. Before anything acts on it, the seat checks
// it from outside with its own credentials (agents/probe.ts):
//   confirmed — as reported: the seat pauses until the reset (a login: until it is fixed);
//   not confirmed — the seat pauses only briefly (seat.unconfirmedPauseMinutes) and checks again then;
//     the task is handed back like a limit, and the card says the claim was not confirmed;
//   not confirmed, and the task's previous run was handed back by another seat at its limit — the task
//     is blocked for a person: two seats in a row is what a task steering its agents looks like.
// A kind whose limit and auth events are the bridge's own observations (the local loop) is not checked.
// A reported limit's reset is bounded the moment it is seen (`boundedLimit`, result/limits.ts).
import type { AgentEvent } from "../../agents/port.js";
import type { Claim, ClaimCheck } from "../../agents/probe.js";
import type { TaskDetail } from "../../board/port.js";
import type { Decision } from "../../result/decision.js";
import { DEFAULT_MAX_PAUSE_MS, boundReset } from "../../result/limits.js";
import { blockFor } from "../blocks/table.js";
import type { RunFacts } from "../record.js";
import { decide } from "./decide.js";

type Limit = Extract<AgentEvent, { type: "limit" }>;

/** The limit as the seat may act on it: its reset time bounded (result/limits.ts), the reason noted. */
export function boundedLimit(l: Limit, now: number, maxPauseMs: number): Limit {
  const b = boundReset(l.resetsAt, now, maxPauseMs);
  return b.note ? { ...l, resetsAt: b.resetsAt, note: b.note } : l;
}

export interface ClaimPolicy {
  /** The seat's check of a claim (its kind's probe); absent: the kind cannot tell. */
  check?: ((claim: Claim) => Promise<ClaimCheck>) | undefined;
  /** How long an unconfirmed claim pauses the seat before it checks again. */
  unconfirmedPauseMs: number;
  /** The longest pause a reset time may make (seat.maxLimitPauseHours). */
  maxPauseMs?: number | undefined;
}

/** The claim the run made, if any. */
export const claimOf = (f: RunFacts): Claim | null => (f.authFailed ? "auth" : f.limit ? "limit" : null);

const HANDED_BACK = /^usage limit of seat (\S+) /;

/** The seat that handed the task back at its usage limit in the run before this one, if another did. */
export function handedBackBy(detail: TaskDetail, runId: number | null, seat: string): string | null {
  const before = detail.events.filter(
    (e) => e.runId !== runId && (e.kind === "reclaimed" || e.kind === "scheduled" || e.kind === "blocked" || e.kind === "completed"),
  );
  const last = before.at(-1);
  const who = last?.reason ? HANDED_BACK.exec(last.reason)?.[1] : undefined;
  return who && who !== seat ? who : null;
}

/** Settles the run's claim (if it made one) before the close: the decision that stands, and the facts updated. */
export async function settleClaim(
  f: RunFacts,
  decision: Decision,
  o: { policy: ClaimPolicy; detail: TaskDetail; runId: number | null; now: number; observes: boolean },
): Promise<Decision> {
  const claim = claimOf(f);
  if (!claim || decision.type !== "block" || o.observes) return decision;
  const check = o.policy.check ? await o.policy.check(claim) : { verdict: "unknown" as const, detail: "this agent kind has no way to check it from outside" };
  f.claimCheck = { claim, ...check };
  if (check.verdict === "confirmed") {
    // The check's reset is bounded as the agent's is (result/limits.ts): one already past is 15 minutes, not none.
    if (claim === "limit" && f.limit && f.limit.resetsAt === null && check.resetsAt != null)
      f.limit = boundedLimit({ ...f.limit, resetsAt: check.resetsAt }, o.now, o.policy.maxPauseMs ?? DEFAULT_MAX_PAUSE_MS);
    return decision;
  }
  const other = handedBackBy(o.detail, o.runId, f.seat);
  if (other) {
    f.limit = undefined;
    f.authFailed = undefined;
    return blockFor("two_seats", claim, check, other, f.seat);
  }
  const minutes = Math.max(1, Math.round(o.policy.unconfirmedPauseMs / 60_000));
  const reported = claim === "limit" ? (f.limit?.message ?? "a usage limit") : (f.authFailed ?? "a failed login");
  // Never longer than the brief pause; sooner when the agent itself named an earlier reset.
  const brief = o.now + o.policy.unconfirmedPauseMs;
  const said = claim === "limit" ? f.limit?.resetsAt : null;
  f.limit = {
    type: "limit",
    kind: claim === "limit" ? `${f.limit?.kind ?? "usage"}, unconfirmed` : "login failure, unconfirmed",
    resetsAt: typeof said === "number" && said > o.now && said < brief ? said : brief,
    message: reported,
    note: `the agent reported it, but the seat's own check did not confirm it (${check.detail}): the seat pauses ${minutes} minute${minutes === 1 ? "" : "s"} at most and checks again`,
  };
  f.authFailed = undefined;
  return decide(f);
}
