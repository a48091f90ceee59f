// The run's caps group is made with the workspace's claim, before its first command asks for it (issue 54:
// no command waits for it), and removed at the release even when no command ran (a run refused or over its
// budget before its agent): on this host's own jail, as `hermes-bridge run` builds it. Runs where the caps
// are cgroups (agent.limits.mode cgroup: a delegated hierarchy, or root).
import { existsSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { loadConfig } from "../../src/agents/kinds.js";
import { seatLimits } from "../../src/daemon/isolation.js";
import { workspaceSettings } from "../../src/daemon/seat-settings.js";
import { Jail } from "../../src/jail/jail.js";
import { forbiddenRoots, imageCacheOf, resolvePolicy } from "../../src/jail/policy.js";
import { forRun } from "../../src/jail/run-jail.js";
import { statePath } from "../../src/state/layout.js";
import { untilHost } from "../helpers/steering.js";

const dir = mkdtempSync(join(tmpdir(), "hkb-group-ahead-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const stateDir = join(dir, "state");
mkdirSync(join(stateDir, "runs"), { recursive: true, mode: 0o700 });
const env = { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: dir };
const c = loadConfig({
  env,
  base: {
    boards: ["b"],
    assignee: "b",
    hermes: { command: ["/bin/true"], home: join(dir, "hermes") },
    agent: { kind: "command", command: ["/bin/true"] },
    stateDir,
  },
});
const limits = await seatLimits(c, env);
const settings = workspaceSettings(c, env);
const forbidden = forbiddenRoots({ stateDir, localRoot: settings.localRoot, hermesHomes: settings.hermesHomes, own: [imageCacheOf(c.agent.isolation, env)] });
const jail = new Jail(await resolvePolicy(c.agent.isolation, { env, dir: statePath(stateDir, "jail"), forbidden, limits }));

describe.skipIf(limits.mode !== "cgroup" || jail.mode === "none")("the run's caps group, made ahead", () => {
  it("exists once the workspace is claimed — before any command — and is gone after the release, no command having run", async () => {
    const workspace = mkdtempSync(join(dir, "ws-"));
    const runDir = mkdtempSync(join(stateDir, "runs", "r-"));
    const rj = forRun(jail, { workspace, runDir });
    const roots = limits.roots;
    if (!roots) throw new Error("cgroup mode without roots");
    const groups = [...new Set([roots.memory, roots.pids])].map((r) => join(r, `hkb-${basename(runDir)}`));
    await rj.claim();
    // made beside the hand-over: it may land a moment after the claim's answer
    await untilHost("the run's group", () => groups.every((g) => existsSync(g)), 5000);
    await rj.release();
    expect(groups.filter((g) => existsSync(g))).toEqual([]);
  });
});
