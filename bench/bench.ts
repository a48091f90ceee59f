// `npm run bench [-- --repeats 3 --idle 60 --quick] [--hermes "<argv>"]` (`--seats N`: many seats, seats.ts): the bridge and a naive
// polling bridge side by side on one board (one lane each), measured from the board's call log and
// /proc. The board is the bundled emulator, or the real Hermes CLI given by --hermes (its calls are
// logged by a thin wrapper); results go to bench/results.json or bench/results-real.json.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { cpus, tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { type RunResult, runProcess } from "../src/process/runner.js";
import { benchBoard } from "./lib/board.js";
import { warmCreator } from "./lib/creator.js";
import { logLines, phaseTable, verbTable } from "./lib/phases.js";
import { cpuMs, descendantRssKiB, machineBusyMs, median, percentile, rssKiB, treeCpuMs, treeRssKiB } from "./lib/proc.js";

const arg = (n: string, d: number) => (process.argv.includes(`--${n}`) ? Number(process.argv[process.argv.indexOf(`--${n}`) + 1]) : d);
const quick = process.argv.includes("--quick");
const hermesArg = process.argv.includes("--hermes") ? process.argv[process.argv.indexOf("--hermes") + 1] : undefined;
/** The bridge's hermes.callServer: auto (the default: the call server where the launcher passes its handshake), on, off. */
const callServer = process.argv.includes("--call-server") ? (process.argv[process.argv.indexOf("--call-server") + 1] ?? "auto") : "auto";
const CFG = {
  repeats: arg("repeats", quick ? 1 : 3),
  idleS: arg("idle", quick ? 20 : 60),
  pickups: arg("pickups", quick ? 5 : 10),
  tasks: arg("tasks", quick ? 10 : 20),
  floodS: arg("flood", quick ? 15 : 30),
  hbMs: 2000,
};
const ROOT = resolve(".");
const AGENT = [process.execPath, join(ROOT, "bench", "noop-agent.mjs")];
/** bench/naive-bridge.mjs: the wait between its polls. */
const NAIVE_POLL_MS = 5000;
const NODE_FLAGS = (process.env.BENCH_NODE_FLAGS ?? "").split(" ").filter(Boolean);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface Call {
  start: number;
  end: number;
  verb: string;
  task: string | null;
  code: number;
}
interface Side {
  name: "bridge" | "naive";
  lane: string;
  log: string;
  /** The bridge's own log (JSON, debug: its phases), where the side is the bridge. */
  ownLog?: string;
  pid: number;
  proc: Promise<RunResult>;
}

function calls(s: Side, from = 0, to = Number.POSITIVE_INFINITY): Call[] {
  let text = "";
  try {
    text = readFileSync(s.log, "utf8");
  } catch {
    return [];
  }
  return text
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Call)
    .filter((c) => c.start >= from && c.start < to);
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), "hkb-bench-"));
  const home = join(dir, "hermes");
  // HOME too: the real CLI reads its profile from there.
  const env = { PATH: process.env.PATH ?? "", HERMES_HOME: home, HOME: dir };
  const board = await benchBoard(hermesArg, env);
  console.log(`board: ${board.label}`);
  const hermes = board.command;
  const emu = (args: string[]) =>
    runProcess({ argv: [...hermes, "kanban", ...args], env: { ...env, ...board.callEnv(join(dir, "setup.calls")) }, timeoutMs: 60_000 });
  const made = await emu(["boards", "create", "bench"]);
  if (made.exitCode !== 0) throw new Error(`boards create: ${made.stderr}`);
  // Tasks come from one warm creator (bench/lib/creator.ts), as from an orchestrator that lives on.
  const creator = await warmCreator(board, env, dir, { server: hermesArg ? "auto" : "on" });
  const create = async (lane: string, body: string) => {
    const r = await creator.create(lane, body);
    if (r.exitCode !== 0) throw new Error(`create: exit ${r.exitCode}: ${r.stderr.slice(-300)}`);
    return { id: (JSON.parse(r.stdout) as { id: string }).id, at: Date.now() };
  };
  let gen = 0;
  const start = (name: Side["name"], concurrency: number): Side => {
    gen += 1;
    const lane = `${name}-lane-${gen}`;
    const log = join(dir, `${name}-${gen}.calls`);
    writeFileSync(log, "");
    const side: Side = { name, lane, log, pid: 0, proc: Promise.resolve({} as RunResult) };
    if (name === "bridge") {
      const state = join(dir, `state-${gen}`);
      mkdirSync(state, { recursive: true });
      const cfg = join(dir, `bridge-${gen}.yaml`);
      writeFileSync(
        cfg,
        [
          "boards: [bench]",
          `assignee: ${lane}`,
          `hermes: {command: ${JSON.stringify(board.bridgeCommand)}, home: "${home}", callServer: ${callServer}, env: ${JSON.stringify({ HOME: dir })}}`,
          `agent: {kind: command, command: ${JSON.stringify(AGENT)}}`,
          `heartbeat: {intervalSeconds: ${CFG.hbMs / 1000}}`,
          `concurrency: ${concurrency}`,
          `stateDir: "${state}"`,
          // debug: each run's phases (bench/lib/phases.ts), a handful of lines per task
          "log: {level: debug, format: json}",
        ].join("\n"),
      );
      side.ownLog = join(dir, `bridge-${gen}.log`);
      side.proc = runProcess({
        // the shell execs the bridge (its pid is the bridge's) with its log appended to a file
        // BENCH_NODE_FLAGS: the bridge process's own Node flags (e.g. `--cpu-prof --cpu-prof-dir=…`: where its CPU goes)
        argv: [
          "/bin/sh",
          "-c",
          'exec "$0" "$@" >>"$HKB_BENCH_LOG" 2>&1',
          process.execPath,
          ...NODE_FLAGS,
          join(ROOT, "dist", "cli", "main.js"),
          "run",
          "--config",
          cfg,
        ],
        env: { ...env, HOME: dir, HKB_CALL_LOG: log, HKB_BENCH_LOG: side.ownLog },
        onSpawn: (p) => {
          side.pid = p;
        },
      });
    } else {
      side.proc = runProcess({
        argv: [process.execPath, join(ROOT, "bench", "naive-bridge.mjs")],
        env: {
          ...env,
          ...board.callEnv(log),
          NAIVE_HERMES: JSON.stringify(hermes),
          NAIVE_AGENT: JSON.stringify(AGENT),
          NAIVE_BOARD: "bench",
          NAIVE_ASSIGNEE: lane,
          NAIVE_CONCURRENCY: String(concurrency),
          NAIVE_HB_MS: String(CFG.hbMs),
        },
        onSpawn: (p) => {
          side.pid = p;
        },
      });
    }
    return side;
  };
  // The side not being measured is held still (SIGSTOP) through the other's window: the naive poller's idle polls (a
  // cold CLI start every few seconds, ~10 % of a core) are not the bridge's cost, nor the bridge's the naive's. A naive
  // poller let go polls at once (its wait is over): a window starts a random part of its poll interval later, so the
  // poll's phase is as random as a free-running poller's, not its worst case.
  const hold = (s: Side, still: boolean) => {
    try {
      process.kill(s.pid, still ? "SIGSTOP" : "SIGCONT");
    } catch {
      /* gone */
    }
  };
  /** Holds every side but `s`, waits a random part of the poll interval, and returns what lets them go. */
  const alone = async (s: Side, sides: readonly Side[]): Promise<() => void> => {
    const others = sides.filter((o) => o !== s);
    for (const o of others) hold(o, true);
    await sleep(Math.random() * NAIVE_POLL_MS);
    return () => {
      for (const o of others) hold(o, false);
    };
  };
  const stop = async (...sides: Side[]) => {
    for (const s of sides)
      try {
        process.kill(s.pid, "SIGCONT");
        process.kill(s.pid, "SIGTERM");
      } catch {
        /* gone */
      }
    await Promise.all(sides.map((s) => s.proc));
  };
  // A side is ready when it has made its first call and its whole tree has gone quiet (the bridge's start — its
  // call server's warm-up, the handshake, the capability reads, the watch — done): a measurement never includes it.
  const settled = async (...ss: Side[]) => {
    await sleep(3000);
    for (const s of ss) {
      const until = Date.now() + 30_000;
      let quiet = 0;
      let last = treeCpuMs(s.pid);
      while (Date.now() < until && quiet < 2) {
        await sleep(500);
        const now = treeCpuMs(s.pid);
        quiet = now - last < 50 && calls(s).length > 0 ? quiet + 1 : 0;
        last = now;
      }
    }
  };
  const waitDone = async (s: Side, ids: string[], timeoutMs: number) => {
    const until = Date.now() + timeoutMs;
    while (Date.now() < until) {
      const done = new Set(
        calls(s)
          .filter((c) => c.verb === "complete" && c.code === 0)
          .map((c) => c.task),
      );
      if (ids.every((i) => done.has(i)))
        return Math.max(
          ...calls(s)
            .filter((c) => c.verb === "complete" && c.code === 0 && ids.includes(c.task ?? ""))
            .map((c) => c.end),
        );
      await sleep(200);
    }
    throw new Error(`${s.name}: tasks not done within ${timeoutMs} ms`);
  };

  const rows: Record<string, Record<"bridge" | "naive", number[]>> = {};
  const phases: ReturnType<typeof phaseTable>[] = [];
  const verbs: ReturnType<typeof verbTable>[] = [];
  const phases4: ReturnType<typeof phaseTable>[] = [];
  const verbs4: ReturnType<typeof verbTable>[] = [];
  const add = (k: string, side: "bridge" | "naive", v: number) => {
    rows[k] ??= { bridge: [], naive: [] };
    rows[k][side].push(v);
  };

  for (let rep = 1; rep <= CFG.repeats; rep += 1) {
    console.log(`repeat ${rep}/${CFG.repeats}`);
    // 1. idle + pickup at concurrency 1
    let sides = [start("bridge", 1), start("naive", 1)];
    await settled(...sides);
    const t0 = Date.now();
    const cpu0 = sides.map((s) => cpuMs(s.pid));
    const rss: number[][] = [[], []];
    const own: number[][] = [[], []];
    const server: number[][] = [[], []];
    const watch: number[][] = [[], []];
    while (Date.now() - t0 < CFG.idleS * 1000) {
      await sleep(5000);
      sides.forEach((s, i) => {
        rss[i]?.push(treeRssKiB(s.pid));
        own[i]?.push(rssKiB(s.pid));
        server[i]?.push(descendantRssKiB(s.pid, /--call-server| -c /));
        watch[i]?.push(descendantRssKiB(s.pid, /kanban --board[= ]\S+ watch /));
      });
    }
    const t1 = Date.now();
    sides.forEach((s, i) => {
      add("CLI processes per idle minute", s.name, (calls(s, t0, t1).length * 60_000) / (t1 - t0));
      add("idle CPU, % of one core", s.name, ((cpuMs(s.pid).withChildren - (cpu0[i]?.withChildren ?? 0)) / (t1 - t0)) * 100);
      add("RSS of the bridge process alone at idle, MiB", s.name, median(own[i] ?? []) / 1024);
      add("RSS of the process tree (with the watch child), MiB", s.name, median(rss[i] ?? []) / 1024);
      add("  RSS of the call server, MiB", s.name, median(server[i] ?? []) / 1024);
      add("  RSS of the watch child, MiB", s.name, median(watch[i] ?? []) / 1024);
    });
    for (const s of sides) {
      const letGo = await alone(s, sides);
      const made: { id: string; at: number }[] = [];
      for (let k = 0; k < CFG.pickups; k += 1) {
        made.push(await create(s.lane, "BENCH:noop"));
        await sleep(1500 + Math.random() * 1500);
      }
      await waitDone(
        s,
        made.map((m) => m.id),
        60_000,
      ).finally(letGo);
      const claims = calls(s).filter((c) => c.verb === "claim" && c.code === 0);
      for (const m of made) {
        const c = claims.find((x) => x.task === m.id);
        if (c) add("pickup latency p50, s", s.name, (c.end - m.at) / 1000);
      }
    }
    // 2. throughput at concurrency 1 and 4 (CLI calls and own CPU per task)
    for (const conc of [1, 4]) {
      if (conc === 4) {
        await stop(...sides);
        sides = [start("bridge", 4), start("naive", 4)];
        await settled(...sides);
      }
      for (const s of sides) {
        const letGo = await alone(s, sides);
        const own0 = cpuMs(s.pid).own;
        const tree0 = treeCpuMs(s.pid);
        const busy0 = machineBusyMs();
        const from = Date.now();
        const ids: string[] = [];
        for (let k = 0; k < CFG.tasks; k += 1) ids.push((await create(s.lane, "BENCH:noop")).id);
        const end = await waitDone(s, ids, 300_000).finally(letGo);
        add(`throughput at concurrency ${conc}, tasks/min`, s.name, (CFG.tasks * 60_000) / (end - from));
        // the whole machine, task creation and the kernel's own work (namespaces, cgroups) included
        add(`  machine CPU per task at concurrency ${conc}, ms`, s.name, (machineBusyMs() - busy0) / CFG.tasks);
        if (conc === 4 && s.ownLog) {
          const spent4 = calls(s, from, end + 1).filter((c) => c.task === null || ids.includes(c.task));
          phases4.push(phaseTable(ids, logLines(s.ownLog, new Set(ids)), spent4));
          verbs4.push(verbTable(spent4));
        }
        if (conc === 1) {
          const spent = calls(s, from, end + 1).filter((c) => c.task === null || ids.includes(c.task));
          add("CLI processes per task (heartbeats apart)", s.name, spent.filter((c) => c.verb !== "heartbeat").length / CFG.tasks);
          add("heartbeats per task", s.name, spent.filter((c) => c.verb === "heartbeat").length / CFG.tasks);
          for (const verb of ["list", "context", "claim", "show", "complete", "block", "comment"])
            add(`  ${verb} per task`, s.name, spent.filter((c) => c.verb === verb).length / CFG.tasks);
          add("own CPU per task (no CLI, no agent), ms", s.name, (cpuMs(s.pid).own - own0) / CFG.tasks);
          // the whole tree: the bridge, its CLI calls (processes or the call server's forks), the watch child, the no-op agents
          add("CPU per task, whole process tree, ms", s.name, (treeCpuMs(s.pid) - tree0) / CFG.tasks);
          const walls = spent.filter((c) => c.verb !== "watch").map((c) => c.end - c.start);
          add("CLI call wall time p50, ms", s.name, median(walls));
          add("CLI call wall time p95, ms", s.name, percentile(walls, 95));
          if (s.ownLog) {
            phases.push(phaseTable(ids, logLines(s.ownLog, new Set(ids)), spent));
            verbs.push(verbTable(spent));
          }
        }
      }
    }
    // 3. heartbeat lateness while the agent streams ~50 MB/min
    await stop(...sides);
    sides = [start("bridge", 1), start("naive", 1)];
    await settled(...sides);
    await Promise.all(
      sides.map(async (s) => {
        const t = await create(s.lane, `BENCH:flood:${CFG.floodS}`);
        await waitDone(s, [t.id], (CFG.floodS + 60) * 1000);
        const beats = calls(s)
          .filter((c) => c.verb === "heartbeat" && c.task === t.id)
          .map((c) => c.start)
          .sort((a, b) => a - b);
        const late = beats.slice(1).map((b, i) => Math.max(0, b - (beats[i] ?? b) - CFG.hbMs));
        add("heartbeat lateness max, ms", s.name, Math.max(0, ...late));
        add("heartbeat lateness p99, ms", s.name, percentile(late, 99));
      }),
    );
    await stop(...sides);
  }

  // A per-verb row neither side used says nothing.
  const shown = Object.entries(rows).filter(([metric, v]) => !metric.startsWith("  ") || median(v.bridge) > 0 || median(v.naive) > 0);
  const table = shown.map(([metric, v]) => {
    const pick = metric.startsWith("pickup") ? (xs: number[]) => median(xs) : median;
    const b = pick(v.bridge);
    const n = pick(v.naive);
    const p95: Record<string, number> = metric.startsWith("pickup") ? { bridge_p95: percentile(v.bridge, 95), naive_p95: percentile(v.naive, 95) } : {};
    return { metric, bridge: round(b), naive: round(n), ratio: n === 0 ? null : round(b / n), ...mapRound(p95) };
  });
  const perPhase = phases.at(-1) ?? [];
  const perVerb = verbs.at(-1) ?? [];
  const result = {
    date: new Date().toISOString(),
    board: board.label,
    callServer,
    cores: cpus().length,
    node: process.version,
    config: CFG,
    table,
    // the bridge's side at concurrency 1 (the last repeat): where a task's time goes, and each CLI call
    phases: perPhase.map((p) => ({ ...p, p50: round(p.p50), p95: round(p.p95) })),
    verbs: perVerb.map((v) => ({ ...v, p50: round(v.p50), p95: round(v.p95) })),
    // …and at concurrency 4
    phasesC4: (phases4.at(-1) ?? []).map((p) => ({ ...p, p50: round(p.p50), p95: round(p.p95) })),
    verbsC4: (verbs4.at(-1) ?? []).map((v) => ({ ...v, p50: round(v.p50), p95: round(v.p95) })),
  };
  // One results file per Hermes line: 0.20 keeps its name, any other line is named by its version (-021).
  const line = /v?(\d+)\.(\d+)\./.exec(board.label);
  const lineSuffix = hermesArg && line && `${line[1]}.${line[2]}` !== "0.20" ? `-${line[1]}${line[2]}` : "";
  const out = join(ROOT, "bench", `${hermesArg ? "results-real" : "results"}${lineSuffix}${callServer === "off" ? "-processes" : ""}.json`);
  writeFileSync(out, `${JSON.stringify(result, null, 2)}\n`);
  console.log(`\nboard: ${board.label}; ${cpus().length} cores, ${process.version}, repeats ${CFG.repeats} (medians) → ${out}\n`);
  console.log(`| metric | bridge | naive | bridge / naive |\n|---|---|---|---|`);
  for (const r of table)
    console.log(
      `| ${r.metric} | ${r.bridge}${"bridge_p95" in r ? ` (p95 ${r.bridge_p95})` : ""} | ${r.naive}${"naive_p95" in r ? ` (p95 ${r.naive_p95})` : ""} | ${r.ratio ?? "-"} |`,
    );
  console.log(`\nThe bridge's task at concurrency 1, per phase (ms, ${perPhase[0]?.n ?? 0} tasks):\n| phase | p50 | p95 |\n|---|---|---|`);
  for (const p of perPhase) console.log(`| ${p.phase} | ${round(p.p50)} | ${round(p.p95)} |`);
  console.log("\n| CLI call (the bridge's) | p50, ms | p95, ms | calls |\n|---|---|---|---|");
  for (const v of perVerb) console.log(`| ${v.verb} | ${round(v.p50)} | ${round(v.p95)} | ${v.n} |`);
  console.log(`\nAt concurrency 4 (ms, ${result.phasesC4[0]?.n ?? 0} tasks):\n| phase | p50 | p95 |\n|---|---|---|`);
  for (const p of result.phasesC4) console.log(`| ${p.phase} | ${p.p50} | ${p.p95} |`);
  for (const v of result.verbsC4) console.log(`| ${v.verb} call | ${v.p50} | ${v.p95} |`);
  await creator.close();
  // a Hermes child still writing its log as the sides stop: tried again
  if (process.env.BENCH_KEEP) console.log(`kept: ${dir}`);
  else rmSync(dir, { recursive: true, force: true, maxRetries: 5, retryDelay: 200 });
}

function round(x: number): number {
  return Number.isFinite(x) ? Math.round(x * 100) / 100 : x;
}
function mapRound(o: Record<string, number>): Record<string, number> {
  return Object.fromEntries(Object.entries(o).map(([k, v]) => [k, round(v)]));
}

if (process.argv.includes("--jail")) {
  const { jailBench } = await import("./jail.js");
  await jailBench(arg("runs", 20));
} else if (process.argv.includes("--seats")) {
  const { seatsBench } = await import("./seats.js");
  await seatsBench(arg("seats", 20), { idleS: arg("idle", quick ? 15 : 30), hermes: hermesArg });
} else await main();
