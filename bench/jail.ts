// `npm run bench -- --jail [--runs 20]`: what the jail adds to one run, step by step, with the seat's own
// jail as `hermes-bridge run` builds it (default isolation, this host's caps): the workspace handed to the
// agent's user, the run's command prepared (its cgroup, the execute-only images, the staging), a jailed
// `/bin/true` (setpriv, bubblewrap, the relay's start: the jail alone), the jailed no-op agent, the release
// (the group removed, the workspace given back); beside them the relay's own start outside the jail and
// the no-op agent started plainly (what the naive poller pays). p50/p95 in ms; results in bench/results-jail.json.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { cpus, tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { loadConfig } from "../src/agents/kinds.js";
import { seatLimits } from "../src/daemon/isolation.js";
import { workspaceSettings } from "../src/daemon/seat-settings.js";
import { Jail, type JailNeeds, launchOf } from "../src/jail/jail.js";
import { forbiddenRoots, imageCacheOf, resolvePolicy } from "../src/jail/policy.js";
import { NODE_RELAY, PYTHON_RELAY } from "../src/jail/relay.js";
import { forRun } from "../src/jail/run-jail.js";
import { runProcess } from "../src/process/runner.js";
import { statePath } from "../src/state/layout.js";
import { percentile } from "./lib/proc.js";

const ROOT = resolve(".");
const NOOP = [process.execPath, join(ROOT, "bench", "noop-agent.mjs")];

const timed = async (f: () => Promise<unknown>): Promise<number> => {
  const t = performance.now();
  await f();
  return performance.now() - t;
};

export async function jailBench(runs: number): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), "hkb-bench-jail-"));
  const stateDir = join(dir, "state");
  mkdirSync(join(stateDir, "runs"), { recursive: true, mode: 0o700 });
  const env = { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: dir };
  const c = loadConfig({
    env,
    base: {
      boards: ["bench"],
      assignee: "bench",
      hermes: { command: ["/bin/true"], home: join(dir, "hermes") },
      agent: { kind: "command", command: NOOP },
      stateDir,
    },
  });
  const settings = workspaceSettings(c, env);
  const forbidden = forbiddenRoots({ stateDir, localRoot: settings.localRoot, hermesHomes: settings.hermesHomes, own: [imageCacheOf(c.agent.isolation, env)] });
  const limits = await seatLimits(c, env);
  const jail = new Jail(await resolvePolicy(c.agent.isolation, { env, dir: statePath(stateDir, "jail"), forbidden, limits }));
  console.log(`jail: ${jail.mode} (${jail.policy.why}); network ${jail.policy.network}; caps ${limits.mode}`);
  const rows: Record<string, number[]> = {};
  const add = (k: string, ms: number) => {
    rows[k] ??= [];
    rows[k].push(ms);
  };
  const run = (argv: string[], jc?: Awaited<ReturnType<ReturnType<typeof forRun>["command"]>>, cwd?: string) =>
    runProcess({ ...(jc ? launchOf(jc) : { argv, env }), ...(cwd ? { cwd } : {}), jailed: jail.mode === "bwrap", timeoutMs: 60_000 }).then((r) => {
      if (r.exitCode !== 0) throw new Error(`${argv.join(" ")}: exit ${r.exitCode} ${r.signal ?? ""} ${r.stderr.slice(-400)}`);
    });
  for (let i = 0; i < runs; i += 1) {
    for (const [what, argv, needs] of [
      ["the jail alone: setpriv, bubblewrap, the relay, `/bin/true`", ["/bin/true"], {}],
      ["the no-op agent in the jail (its stream its own, images execute-only)", NOOP, { ownStream: true, readOnly: [NOOP[1] ?? ""] }],
    ] as [string, string[], JailNeeds][]) {
      const workspace = mkdtempSync(join(dir, "ws-"));
      const runDir = mkdtempSync(join(stateDir, "runs", `r${i}-`));
      writeFileSync(join(runDir, "context.json"), "{}");
      const rj = forRun(jail, { workspace, runDir });
      add("hand-over: the workspace to the agent's user", await timed(() => rj.claim()));
      let jc: Awaited<ReturnType<typeof rj.command>> | undefined;
      add("the command prepared: cgroup, images, staging (first command)", await timed(async () => (jc = await rj.command(argv, env, needs))));
      add(what, await timed(() => run(argv, jc, workspace)));
      add("release: the cgroup removed, the workspace given back", await timed(() => rj.release()));
      rmSync(workspace, { recursive: true, force: true });
    }
    for (const [which, relay] of [
      ["Python", PYTHON_RELAY],
      ["Node", NODE_RELAY],
    ] as const)
      add(
        `the ${which} relay's own start outside a jail (\`--no-network -- /bin/true\`)`,
        await timed(() => run([...relay, "--no-network", "--", "/bin/true"])),
      );
    add("the no-op agent started plainly (the naive poller's way)", await timed(() => run(NOOP)));
  }
  const table = Object.entries(rows).map(([step, xs]) => ({ step, p50: Math.round(percentile(xs, 50)), p95: Math.round(percentile(xs, 95)), n: xs.length }));
  const out = join(ROOT, "bench", "results-jail.json");
  writeFileSync(
    out,
    `${JSON.stringify({ date: new Date().toISOString(), cores: cpus().length, node: process.version, jail: jail.mode, caps: limits.mode, network: jail.policy.network, table }, null, 2)}\n`,
  );
  console.log(`\n→ ${out}\n| step | p50, ms | p95, ms |\n|---|---|---|`);
  for (const r of table) console.log(`| ${r.step} | ${r.p50} | ${r.p95} |`);
  rmSync(dir, { recursive: true, force: true });
}
