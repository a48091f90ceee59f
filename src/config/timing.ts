// Everything that depends on the TTL follows the TTL actually used for a claim: the configured
// claim.ttlSeconds, or a task's max runtime + safety (capped by claim.maxTtlSeconds). Only values the
// user set can conflict with it, and the error names how they were set.
import type { Config, Protocol } from "./schema.js";

/** Below this a run cannot claim, heartbeat at ttl/4 and close before its claim expires. */
export const MIN_TTL_SECONDS = 30;
/** The least run time (ttl − safety) a claim must leave. */
export const MIN_RUN_SECONDS = 5;

export interface Timing {
  ttlSeconds: number;
  safetySeconds: number;
  heartbeatSeconds: number;
  wrapUpSeconds: number;
  /** Seconds from the claim to the run's deadline (ttl − safety). */
  runSeconds: number;
}

type TimingConfig = Pick<Config, "claim" | "heartbeat" | "protocol"> & { agent?: { wrapUpSeconds?: number | undefined } | undefined };

/** The protocol's own timings where a test gives none (config/schema.ts Protocol). */
export const DEFAULT_PROTOCOL: Protocol = { minTtlSeconds: MIN_TTL_SECONDS, statusIntervalMs: 5000 };

/** The least TTL a claim may have (the protocol's, shorter in a test). */
const minTtl = (c: Pick<Config, "protocol">) => (c.protocol ?? DEFAULT_PROTOCOL).minTtlSeconds;

export const derivedSafety = (ttl: number) => Math.min(60, ttl / 4);
export const derivedHeartbeat = (ttl: number) => Math.min(120, ttl / 4);
export const derivedWrapUp = (ttl: number) => Math.min(60, ttl / 8);

/**
 * The timing of a claim with `ttl`. Explicit values are kept as long as they fit this TTL and are
 * clamped when a shorter per-task TTL is used (the user chose them for the configured TTL).
 */
export function timingFor(c: TimingConfig, ttl: number): Timing {
  const safety = Math.min(c.claim.safetySeconds ?? derivedSafety(ttl), Math.max(ttl / 2, ttl - MIN_RUN_SECONDS));
  const heartbeat = Math.min(c.heartbeat.intervalSeconds ?? derivedHeartbeat(ttl), ttl / 4);
  const runSeconds = ttl - safety;
  const wrapUp = Math.min(c.agent?.wrapUpSeconds ?? derivedWrapUp(ttl), runSeconds / 2);
  return { ttlSeconds: ttl, safetySeconds: safety, heartbeatSeconds: heartbeat, wrapUpSeconds: wrapUp, runSeconds };
}

/** The TTL to claim a task with: its max runtime plus safety (so the run gets the full max runtime), bounded. */
export function ttlForTask(c: TimingConfig, maxRuntimeSeconds: number | null): number {
  if (maxRuntimeSeconds === null || maxRuntimeSeconds <= 0) return c.claim.ttlSeconds;
  const explicit = c.claim.safetySeconds;
  // With the derived safety min(60, ttl/4): ttl = runtime + 60 when ttl ≥ 240, else ttl = 4/3 runtime.
  const ttl = explicit !== undefined ? maxRuntimeSeconds + explicit : Math.min(maxRuntimeSeconds + 60, (maxRuntimeSeconds * 4) / 3);
  return Math.max(minTtl(c), Math.min(c.claim.maxTtlSeconds, Math.ceil(ttl)));
}

/** Problems of the values the user set, against the configured TTL; `given` names how each was set. */
export function timingIssues(c: TimingConfig, given: Record<string, string>): { path: string; message: string }[] {
  const ttl = c.claim.ttlSeconds;
  const name = (path: string, fallback: string) => given[path] ?? fallback;
  const ttlName = name("claim.ttlSeconds", `claim.ttlSeconds ${ttl} (default)`);
  const issues: { path: string; message: string }[] = [];
  if (ttl < minTtl(c))
    issues.push({
      path: "claim.ttlSeconds",
      message: `${ttlName} is below the minimum of ${minTtl(c)} s: a run must claim, heartbeat every ttl/4 and close before the claim expires, and each Hermes CLI call can take seconds`,
    });
  const hb = c.heartbeat.intervalSeconds;
  if (hb !== undefined && hb > ttl / 4)
    issues.push({
      path: "heartbeat.intervalSeconds",
      message: `${name("heartbeat.intervalSeconds", `heartbeat.intervalSeconds ${hb}`)} is more than a quarter of ${ttlName}`,
    });
  const safety = c.claim.safetySeconds;
  if (safety !== undefined && safety > ttl - MIN_RUN_SECONDS)
    issues.push({
      path: "claim.safetySeconds",
      message: `${name("claim.safetySeconds", `claim.safetySeconds ${safety}`)} leaves less than ${MIN_RUN_SECONDS} s of ${ttlName} for the run`,
    });
  const wrap = c.agent?.wrapUpSeconds;
  const run = ttl - (safety ?? derivedSafety(ttl));
  if (wrap !== undefined && wrap >= run)
    issues.push({
      path: "agent.wrapUpSeconds",
      message: `${name("agent.wrapUpSeconds", `agent.wrapUpSeconds ${wrap}`)} is not shorter than the ${run} s of run time that ${ttlName} leaves`,
    });
  return issues;
}
