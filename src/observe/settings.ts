// The effective settings, each with where it came from (default, derived, file, env, flag): logged
// at start and printed by `doctor`. Secrets are never shown (only the names of their variables).
import type { Config } from "../config/schema.js";
import { derivedHeartbeat, derivedSafety, derivedWrapUp, timingFor } from "../config/timing.js";

export interface Setting {
  key: string;
  value: string;
  source: string;
}

const show = (v: unknown) => (Array.isArray(v) ? v.join(" ") : typeof v === "object" && v !== null ? JSON.stringify(v) : String(v));

export function settingsTable(c: Config): Setting[] {
  const given = c.provenance?.given ?? {};
  const src = (key: string, derived = false) => given[key] ?? (derived ? "derived from the TTL" : "default");
  const t = timingFor(c, c.claim.ttlSeconds);
  const rows: [string, unknown, boolean?][] = [
    ["boards", c.boards],
    ["assignee", c.assignee],
    ["hermes.command", c.hermes.command],
    ["agent.kind", c.agent.kind],
    ["concurrency", c.concurrency],
    ["claim.ttlSeconds", c.claim.ttlSeconds],
    ["claim.maxTtlSeconds", c.claim.maxTtlSeconds],
    ["claim.safetySeconds", c.claim.safetySeconds ?? derivedSafety(c.claim.ttlSeconds), c.claim.safetySeconds === undefined],
    ["heartbeat.intervalSeconds", c.heartbeat.intervalSeconds ?? derivedHeartbeat(c.claim.ttlSeconds), c.heartbeat.intervalSeconds === undefined],
    ["agent.wrapUpSeconds", c.agent.wrapUpSeconds ?? derivedWrapUp(c.claim.ttlSeconds), c.agent.wrapUpSeconds === undefined],
    ["agent.stallSeconds", c.agent.stallSeconds],
    ["agent.resume", c.agent.resume],
    ["agent.resumeBudget", c.agent.resumeBudget],
    ["workspace.mode", c.workspace.mode],
    ["gate.bodyVerification", c.gate.bodyVerification],
    ["discovery.watch", c.discovery.watch],
    ["discovery.sweepSeconds", c.discovery.sweepSeconds],
    ["stateDir", c.stateDir],
    ["agent.isolation.imageCache", c.agent.isolation.imageCache ?? "/var/cache/hermes-bridge/images as root, else ~/.cache/hermes-bridge/images"],
    ["webhook.url", c.webhook.url ?? "(none)"],
    ["webhook.secretEnv", c.webhook.secretEnv ?? "(none)"],
    ["shutdown.graceSeconds", c.shutdown.graceSeconds],
  ];
  const table = rows.map(([key, value, derived]) => ({ key, value: show(value), source: src(key, derived === true) }));
  table.push({ key: "run time per claim", value: `${t.runSeconds} s (ttl − safety)`, source: "derived from the TTL" });
  return table;
}

/** The same, as one flat object for the start log line. */
export function effectiveSettings(c: Config): Record<string, string> {
  return Object.fromEntries(settingsTable(c).map((s) => [s.key, `${s.value} (${s.source})`]));
}
