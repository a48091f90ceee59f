// What a seat says about its agents' confinement at start (daemon/isolation.ts): a jail on the proxy says
// nothing but the metrics; a jail on the host's network, or no jail, is one isolation_off alert naming it.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { announceIsolation } from "../../src/daemon/isolation.js";
import { Jail } from "../../src/jail/jail.js";
import { type IsolationConfig, forbiddenRoots, probeBwrap, resolvePolicy } from "../../src/jail/policy.js";
import { Metrics } from "../../src/observe/metrics.js";
import type { AlertPayload } from "../../src/outbox/webhook.js";

const BWRAP = (await probeBwrap("bwrap", process.env)).ok;
const root = mkdtempSync(join(tmpdir(), "hkb-announce-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

async function announced(iso: Partial<IsolationConfig>): Promise<{ alerts: AlertPayload[]; metrics: string }> {
  const config: IsolationConfig = { mode: "bwrap", network: "proxy", readOnly: [], readWrite: [], bwrap: "bwrap", user: "auto", ...iso };
  const forbidden = forbiddenRoots({ stateDir: join(root, "state"), localRoot: join(root, "local"), hermesHomes: [] });
  const jail = new Jail(await resolvePolicy(config, { env: process.env, dir: join(root, "jail"), forbidden }));
  const alerts: AlertPayload[] = [];
  const metrics = new Metrics();
  const clock = { now: () => Date.parse("2026-12-02T12:00:00Z") };
  announceIsolation({ jail, metrics, alerts: { enqueue: (p) => alerts.push(p) }, boards: [{ slug: "main" }], config: { seat: { name: "s1" } }, clock });
  return { alerts, metrics: await metrics.registry.metrics() };
}

describe("announcing the seat's confinement", () => {
  it.skipIf(!BWRAP)("a jail behind the proxy: metrics only", async () => {
    const { alerts, metrics } = await announced({});
    expect(alerts).toEqual([]);
    expect(metrics).toContain('hkb_agent_isolation{mode="bwrap"} 1');
    expect(metrics).toContain('hkb_agent_network{mode="proxy"} 1');
  });

  it.skipIf(!BWRAP)("a jail on the host's network: one alert naming it", async () => {
    const { alerts, metrics } = await announced({ network: "host" });
    expect(alerts.map((a) => a.event)).toEqual(["isolation_off"]);
    expect(alerts[0]?.error).toMatch(/network is host: jailed agents reach the host's loopback/);
    expect(metrics).toContain('hkb_agent_network{mode="host"} 1');
  });

  it("no jail: one alert, and the network is the host's", async () => {
    const { alerts, metrics } = await announced({ mode: "none" });
    expect(alerts[0]?.error).toMatch(/agent\.isolation none: .*\(and the host's network\)/);
    expect(metrics).toContain('hkb_agent_network{mode="host"} 1');
  });
});
