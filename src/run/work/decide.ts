// Decide (pure): from what the agent did and how the run ended → Complete or a templated Block, by cause
// (block-texts.ts holds every block's text). Exit code 0 is not success; "the agent said done" is not
// success (seed 000). The gate then looks at a complete once (gate/gate.ts); a stop that happened
// meanwhile wins (stopDecision).
import { AgentResultSchema, describeResultIssues, isSuccess } from "../../result/common.js";
import type { Decision } from "../../result/decision.js";
import { validateBlock } from "../../result/template.js";
import { type BlockKey, blockFor } from "../block-texts.js";
import type { RunFacts } from "../record.js";

/** The run's own causes, in the order they win: its login, its limit, its API out of reach, a stall, what stopped it, a failure. */
const CAUSES: [BlockKey, (f: RunFacts) => boolean][] = [
  ["auth", (f) => Boolean(f.authFailed)],
  ["limit", (f) => Boolean(f.limit)],
  // Its API out of reach (the watchdog stopped it, or it gave up by itself): no deadline, no agent fault.
  [
    "unreachable",
    (f) => f.stop === "unreachable" || (f.stop === null && Boolean(f.unreachable) && f.outcome?.kind !== "complete" && f.outcome?.kind !== "block"),
  ],
  ["stalled", (f) => f.finished?.reason === "stalled"],
  ...(["deadline", "shutdown", "budget", "cap", "exposed", "unresolved"] as const).map((s): [BlockKey, (f: RunFacts) => boolean] => [s, (f) => f.stop === s]),
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
