// The success gate (seed 000: "the agent said done" is not success): the bridge's own checks find a
// complete wanting when verification fails, nothing changed under requireChanges, or fewer items than
// gate.minItems were reported; the run turns that into its block (run/work/decide.ts `applyGate`, the
// text in run/blocks/after.ts). Pure.
import type { GateConfig } from "../config/schema.js";
import type { GateExtras } from "../result/decision.js";
import type { VerificationResult } from "./verification.js";

export type { GateConfig };

export interface GateFacts {
  verification: VerificationResult[];
  /** Body commands that were not run (body verification off, or not allowed). */
  skipped?: string[];
  changedFiles: string[] | null;
  diffStat: string | null;
}

/** What the gate found wrong with a complete (run/blocks/after.ts words the block), or null: it passes. */
export type GateFinding =
  | { kind: "verification_failed"; failed: VerificationResult; timeoutSeconds: number }
  | { kind: "no_change" }
  | { kind: "too_few_items"; items: number; min: number };

/** The gate's verdict on a complete whose result reported `items`: the first check that fails, or null. */
export function gateFinding(items: number, facts: GateFacts, cfg: GateConfig): GateFinding | null {
  const failed = facts.verification.find((v) => v.exit_code !== 0);
  if (failed) return { kind: "verification_failed", failed, timeoutSeconds: cfg.timeoutSeconds };
  if (cfg.requireChanges && facts.changedFiles !== null && facts.changedFiles.length === 0) return { kind: "no_change" };
  if (items < cfg.minItems) return { kind: "too_few_items", items, min: cfg.minItems };
  return null;
}

/** The evidence a passed complete carries to its close (metadata: verification, changed files, diff stat). */
export function gateExtras(facts: GateFacts): GateExtras {
  const extras: GateExtras = {};
  if (facts.verification.length) extras.verification = facts.verification;
  if (facts.changedFiles) extras.changed_files = facts.changedFiles;
  if (facts.diffStat) extras.diff_stat = facts.diffStat;
  if (facts.skipped?.length) extras.verification_skipped = facts.skipped;
  return extras;
}
