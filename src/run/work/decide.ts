// Decide (pure): from what the agent did and how the run ended → Complete or a templated Block, by cause
// (run/blocks/ holds every block's text). Exit code 0 is not success; "the agent said done" is not
// success (seed 000). The gate then looks at a complete once (`applyGate`: gate/gate.ts finds, the block
// table words it); a stop that happened meanwhile wins (work.ts decides again).
import { type GateConfig, type GateFacts, gateExtras, gateFinding } from "../../gate/gate.js";
import { AgentResultSchema, describeResultIssues, isSuccess } from "../../result/common.js";
import type { Decision } from "../../result/decision.js";
import { validateBlock } from "../../result/template.js";
import { type AgentEndKey, blockFor } from "../blocks/table.js";
import type { RunFacts } from "../record.js";

/** The run's own causes, in the order they win: its login, its limit, its API out of reach, a stall, what stopped it, a failure. */
const CAUSES: [AgentEndKey, (f: RunFacts) => boolean][] = [
  ["auth", (f) => Boolean(f.authFailed)],
  ["limit", (f) => Boolean(f.limit)],
  // Its API out of reach (the watchdog stopped it, or it gave up by itself): no deadline, no agent fault.
  [
    "unreachable",
    (f) => f.stop === "unreachable" || (f.stop === null && Boolean(f.unreachable) && f.outcome?.kind !== "complete" && f.outcome?.kind !== "block"),
  ],
  ["stalled", (f) => f.finished?.reason === "stalled"],
  ...(["deadline", "shutdown", "budget", "cap", "exposed", "unresolved"] as const).map((s): [AgentEndKey, (f: RunFacts) => boolean] => [
    s,
    (f) => f.stop === s,
  ]),
  ["failed", (f) => Boolean(f.failure) && f.outcome?.kind !== "block"],
  ["unreadable", (f) => f.outcome?.kind === "unreadable"],
  ["invalid", (f) => f.outcome?.kind === "invalid"],
];

export function decide(f: RunFacts): Decision {
  if (f.stop === "lease_lost") return { type: "lost" };
  const o = f.outcome;
  const cause = CAUSES.find(([, holds]) => holds(f))?.[0];
  if (cause) return blockFor(cause, f, { error: o && "error" in o ? o.error : undefined });
  if (o?.kind === "block") {
    const v = validateBlock(o.block);
    return v.ok ? { type: "block", template: v.template, limit: false } : blockFor("bad_block", f, { error: v.error });
  }
  const fin = f.finished;
  const exitedOk = fin !== null && fin.reason === "exited" && fin.signal === null && (fin.exitCode === 0 || fin.exitUnknown === true);
  if (!exitedOk && fin) return blockFor("exited", f);
  if (o?.kind !== "complete") return blockFor("silent", f);
  const r = AgentResultSchema.safeParse(o.result);
  if (!r.success) return blockFor("invalid_result", f, { error: describeResultIssues(r.error) });
  if (isSuccess(r.data)) return { type: "complete", summary: o.summary, result: r.data, ...(o.review ? { review: o.review } : {}) };
  return blockFor("not_success", f, { result: r.data });
}

/** The gate on a complete: its evidence on the close, or the block of what it found wanting (a block or a lost lease passes as it is). */
export function applyGate(d: Decision, facts: GateFacts, cfg: GateConfig): Decision {
  if (d.type !== "complete") return d;
  const found = gateFinding(d.result.items, facts, cfg);
  return found ? blockFor("gate", found) : { ...d, extras: gateExtras(facts) };
}
