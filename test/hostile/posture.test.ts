// The start check of a seat's network posture (daemon/posture.ts) bites: a proxy jail passes it, a jail
// on the host's network (the control) fails it naming the host's loopback, and a seat that starts with
// network: proxy but a relay that does not carry (its allow-list refusing the first allowed host) is named.
import { rmSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { checkPosture } from "../../src/daemon/posture.js";
import { egressPlan } from "../../src/egress/plan.js";
import { Jail } from "../../src/jail/jail.js";
import { type IsolationConfig, forbiddenRoots, probeBwrap, resolvePolicy } from "../../src/jail/policy.js";
import { passableTempDir } from "../helpers/tmp.js";

const BWRAP = (await probeBwrap("bwrap", process.env)).ok;
const root = passableTempDir("hkb-posture-test-");
afterAll(() => rmSync(root, { recursive: true, force: true }));

async function jailOn(network: IsolationConfig["network"]): Promise<Jail> {
  const iso: IsolationConfig = { mode: "bwrap", network, readOnly: [], readWrite: [], bwrap: "bwrap", user: "auto" };
  const forbidden = forbiddenRoots({ stateDir: join(root, "state"), localRoot: join(root, "local"), hermesHomes: [] });
  return new Jail(await resolvePolicy(iso, { env: process.env, dir: join(root, "jail"), forbidden }));
}

const plan = (allowHosts: string[], denyHosts: string[] = []) => egressPlan({ kind: { hosts: ["api.anthropic.com"] }, allowHosts, denyHosts, env: {} });

describe.skipIf(!BWRAP && !process.env.HKB_REQUIRE_BWRAP)("the network posture check at start", () => {
  it("passes for a jail of its own behind the proxy", async () => {
    expect(await checkPosture(await jailOn("proxy"), plan([]), null)).toBeNull();
  }, 60_000);

  it("fails for a jail on the host's network: the host's loopback is reachable", async () => {
    expect(await checkPosture(await jailOn("host"), plan([]), null)).toMatch(/reached the host's loopback/);
  }, 60_000);

  it("fails when an allowed host is refused (the allow-list does not carry what it promises)", async () => {
    const denied = plan(["allowed.example.test"], ["allowed.example.test"]);
    expect(await checkPosture(await jailOn("proxy"), denied, "allowed.example.test:443")).toMatch(/an allowed host \(allowed\.example\.test:443\) was refused/);
  }, 60_000);
});
