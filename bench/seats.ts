// `npm run bench -- --seats 20 [--hermes "<argv>"] [--idle 30] [--quick]`: many seats on one host, one board.
// Each seat is its own daemon (one subscription each), run twice: every seat with its own call server and
// watch (hermes.share: seat, the default), then the seats sharing the host's hub (hermes.share: host: one
// call server and one watch for the board). Measured from /proc and the seats' own call logs: the memory
// of everything the seats run while idle (the seats' process trees and the hubs': RSS, and PSS — RSS counts
// the pages processes share, the node and python binaries, once per process), the idle CPU, and the
// pickup latency of one task per seat created at once by one warm creator (creation → its claim). Results:
// bench/results-seats.json, or bench/results-seats-real.json on a real Hermes.
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { cpus, tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { type RunResult, runProcess } from "../src/process/runner.js";
import { benchBoard } from "./lib/board.js";
import { warmCreator } from "./lib/creator.js";
import { cpuMs, median, percentile, pssKiB, rssKiB, treePids } from "./lib/proc.js";

const ROOT = resolve(".");
const AGENT = [process.execPath, join(ROOT, "bench", "noop-agent.mjs")];
// Each seat runs as the installed `hermes-bridge` runs: this Node, with the flags of the bin's `#!` line.
const BIN = join(ROOT, "dist", "cli", "main.js");
const BIN_FLAGS = (/^#!\/usr\/bin\/env -S node((?: --[\w-]+=\S+)*)\n/.exec(readFileSync(BIN, "utf8"))?.[1] ?? "").split(" ").filter(Boolean);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const MiB = (kib: number) => Math.round((kib / 1024) * 10) / 10;

interface Seat {
  lane: string;
  log: string;
  pid: number;
  proc: Promise<RunResult>;
}

/** The hubs of this run (their sockets are in `dir`). */
function hubs(dir: string): number[] {
  return readdirSync("/proc")
    .filter((d) => /^\d+$/.test(d))
    .filter((d) => {
      try {
        const cmd = readFileSync(`/proc/${d}/cmdline`, "utf8");
        return cmd.includes("hub.mjs") && cmd.includes(dir);
      } catch {
        return false;
      }
    })
    .map(Number);
}

function claims(log: string): { task: string | null; start: number; end: number }[] {
  try {
    return readFileSync(log, "utf8")
      .split("\n")
      .filter(Boolean)
      .map((l) => JSON.parse(l) as { verb: string; task: string | null; code: number; start: number; end: number })
      .filter((c) => c.verb === "claim" && c.code === 0);
  } catch {
    return [];
  }
}

async function runMode(share: "seat" | "host", n: number, idleS: number, hermesArg: string | undefined) {
  const dir = mkdtempSync(join(tmpdir(), "hkb-seats-"));
  const home = join(dir, "hermes");
  const env = { PATH: process.env.PATH ?? "", HERMES_HOME: home, HOME: dir };
  const board = await benchBoard(hermesArg, env);
  const cli = (args: string[]) =>
    runProcess({ argv: [...board.command, "kanban", ...args], env: { ...env, ...board.callEnv(join(dir, "setup.calls")) }, timeoutMs: 60_000 });
  const made = await cli(["boards", "create", "bench"]);
  if (made.exitCode !== 0) throw new Error(`boards create: ${made.stderr}`);
  // Whoever creates the tasks: one warm process (bench/lib/creator.ts). Twenty cold CLI starts
  // (BENCH_COLD_CREATE=1, the first figures) spend 15–20 CPU-s on the seats' host during the very seconds the
  // pickup is measured in.
  const creator = await warmCreator(board, env, dir, { server: hermesArg ? "auto" : "on" });
  const create = creator.create;
  const shareDir = join(dir, "hubs");
  const seats: Seat[] = [];
  for (let i = 0; i < n; i += 1) {
    const lane = `seat-${i}`;
    const state = join(dir, `state-${i}`);
    mkdirSync(state, { recursive: true });
    const log = join(dir, `${lane}.calls`);
    writeFileSync(log, "");
    const cfg = join(dir, `${lane}.json`);
    writeFileSync(
      cfg,
      JSON.stringify({
        boards: ["bench"],
        assignee: lane,
        // the emulator is no Python launcher: its call server only when asked (on); a real Hermes picks its own
        hermes: { command: board.bridgeCommand, home, callServer: hermesArg ? "auto" : "on", share, shareDir, env: { HOME: dir } },
        agent: { kind: "command", command: AGENT },
        heartbeat: { intervalSeconds: 2 },
        stateDir: state,
        log: { level: process.env.BENCH_LOG ?? "error", format: "json" },
      }),
    );
    const seat: Seat = { lane, log, pid: 0, proc: Promise.resolve({} as RunResult) };
    seat.proc = runProcess({
      argv: [process.execPath, ...BIN_FLAGS, BIN, "run", "--config", cfg],
      env: { ...env, HKB_CALL_LOG: log, ...(process.env.BENCH_NODE_OPTIONS ? { NODE_OPTIONS: process.env.BENCH_NODE_OPTIONS } : {}) },
      onSpawn: (p) => {
        seat.pid = p;
      },
    });
    seats.push(seat);
  }
  // every seat up and idle: its first scan made, its watch running
  await sleep(12_000);
  // Every process of the run once (a hub is its starter's child too): the seats' trees and the hubs'.
  const everything = () => treePids([...seats.map((s) => s.pid), ...hubs(shareDir)]);
  const cpuOf = (pids: Set<number>) => [...pids].reduce((a, p) => a + cpuMs(p).withChildren, 0);
  const rssOf = (pids: Set<number>) => [...pids].reduce((a, p) => a + rssKiB(p), 0);
  const pssOf = (pids: Set<number>) => [...pids].reduce((a, p) => a + pssKiB(p), 0);
  const before = everything();
  const cpu0 = cpuOf(before);
  const t0 = Date.now();
  const total: number[] = [];
  const first: number[] = [];
  const pss: number[] = [];
  const pssFirst: number[] = [];
  const processes: number[] = [];
  while (Date.now() - t0 < idleS * 1000) {
    await sleep(5000);
    const now = everything();
    total.push(rssOf(now));
    // what the first seat needs alone: its tree, and the hubs it would start
    const alone = treePids([seats[0]?.pid ?? 0, ...hubs(shareDir)]);
    first.push(rssOf(alone));
    pss.push(pssOf(now));
    pssFirst.push(pssOf(alone));
    processes.push(now.size);
  }
  // CPU of the processes there all along (a call's fork that came and went is in its parent's reaped time)
  const cpu = ((cpuOf(before) - cpu0) / (Date.now() - t0)) * 100;
  // one task per seat, created at once
  const created = await Promise.all(
    seats.map(async (s) => {
      const r = await create(s.lane);
      return { seat: s, id: (JSON.parse(r.stdout) as { id: string }).id, at: Date.now() };
    }),
  );
  const until = Date.now() + 120_000;
  const pickups: number[] = [];
  for (const c of created) {
    for (;;) {
      const claim = claims(c.seat.log).find((x) => x.task === c.id);
      if (claim) {
        pickups.push((claim.end - c.at) / 1000);
        if (process.env.BENCH_DEBUG)
          console.log(`${c.seat.lane}: claim started ${claim.start - c.at} ms after its task was created, took ${claim.end - claim.start} ms`);
        break;
      }
      if (Date.now() > until) throw new Error(`${c.seat.lane}: ${c.id} not claimed within 120 s`);
      await sleep(200);
    }
  }
  for (const s of seats) process.kill(s.pid, "SIGTERM");
  const ends = await Promise.all(seats.map((s) => s.proc));
  // BENCH_KEEP: each seat's log beside its calls (BENCH_LOG=warn|info|debug says more)
  if (process.env.BENCH_KEEP) for (const [i, r] of ends.entries()) writeFileSync(join(dir, `${seats[i]?.lane}.log`), r.stderr + r.stdout);
  for (const h of hubs(shareDir)) process.kill(h, "SIGTERM");
  await creator.close();
  await sleep(1000);
  if (process.env.BENCH_KEEP) console.log(`kept: ${dir}`);
  else rmSync(dir, { recursive: true, force: true });
  const all = median(total);
  return {
    share,
    label: board.label,
    "idle RSS of all seats (+ hubs), MiB": MiB(all),
    "idle RSS per seat, MiB": MiB(all / n),
    "idle RSS per seat beyond the first, MiB": MiB((all - median(first)) / Math.max(1, n - 1)),
    // RSS counts the pages processes share (the node and python binaries) once per process; PSS splits them
    "idle PSS per seat, MiB": MiB(median(pss) / n),
    "idle PSS per seat beyond the first, MiB": MiB((median(pss) - median(pssFirst)) / Math.max(1, n - 1)),
    "processes while idle": median(processes),
    "idle CPU per seat, % of one core": Math.round((cpu / n) * 100) / 100,
    "pickup p50, s": Math.round(median(pickups) * 100) / 100,
    "pickup p95, s": Math.round(percentile(pickups, 95) * 100) / 100,
  };
}

export async function seatsBench(n: number, o: { idleS: number; hermes: string | undefined }): Promise<void> {
  const rows = [];
  for (const share of (process.env.BENCH_SHARE ? [process.env.BENCH_SHARE as "seat" | "host"] : ["seat", "host"]) as ("seat" | "host")[]) {
    console.log(`${n} seats, hermes.share: ${share}…`);
    rows.push(await runMode(share, n, o.idleS, o.hermes));
  }
  const result = { date: new Date().toISOString(), seats: n, cores: cpus().length, node: process.version, idleSeconds: o.idleS, rows };
  const out = join(ROOT, "bench", `results-seats${o.hermes ? "-real" : ""}.json`);
  writeFileSync(out, `${JSON.stringify(result, null, 2)}\n`);
  const keys = Object.keys(rows[0] ?? {}).filter((k) => k !== "share" && k !== "label");
  console.log(`\n${rows[0]?.label}: ${n} seats, ${cpus().length} cores → ${out}\n`);
  console.log(`| metric | ${rows.map((r) => `share: ${r.share}`).join(" | ")} |\n|---|${rows.map(() => "---|").join("")}`);
  for (const k of keys) console.log(`| ${k} | ${rows.map((r) => (r as Record<string, unknown>)[k]).join(" | ")} |`);
}
