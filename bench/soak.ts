// `npm run soak [-- --tasks 200 --daemons 3 --seed N --minutes 20 --keep --compat named-claims --call-server on|on,on,off]`
import { runSoak } from "./soak/run.js";

const arg = (name: string, dflt: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : dflt;
};
const seed = arg("seed", Math.floor(Math.random() * 2 ** 31));
const tasks = arg("tasks", 200);
const daemons = arg("daemons", 3);
console.log(`soak: seed=${seed} tasks=${tasks} daemons=${daemons} (replay: npm run soak -- --seed ${seed} --tasks ${tasks} --daemons ${daemons})`);
const str = (name: string) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : undefined;
};
const compat = str("compat");
// One mode for every seat, or one per seat in turn: `--call-server on,on,off`.
const callServerArg = str("call-server");
const callServer = callServerArg?.includes(",")
  ? (callServerArg.split(",") as ("auto" | "on" | "off")[])
  : (callServerArg as "auto" | "on" | "off" | undefined);
if (compat) console.log(`board: the emulator as HERMES_EMULATOR_COMPAT=${compat}`);
const res = await runSoak({
  seed,
  tasks,
  daemons,
  timeoutMs: arg("minutes", 20) * 60_000,
  keep: process.argv.includes("--keep"),
  log: console.log,
  ...(compat ? { compat } : {}),
  ...(callServer ? { callServer } : {}),
});
const a = res.audit;
const rows: [string, string | number][] = [
  ["tasks", a.tasks],
  ["final statuses", JSON.stringify(a.statuses)],
  ["claims (runs)", a.claims],
  ["runs per task (runs: tasks)", JSON.stringify(a.runsPerTask)],
  ["ended runs: resumed a cut session / fresh", `${a.resumedRuns} / ${a.freshRuns}`],
  ["tasks left running with no live owner", a.runningLeft],
  ["tasks never closed", a.neverClosed.length],
  ["runs closed twice", a.closedTwice.length],
  ["closes by a writer without the lease", a.closedWithoutLease.length],
  ["blocks missing a template field", a.badBlocks.length],
  ["planted secrets found on the board", a.secretsFound.length],
  ["claims accounted for (closed / reclaimed / in an outbox)", `${a.claims ? Math.round((100 * a.claimsAccounted) / a.claims) : 100}%`],
  ["chaos", JSON.stringify(res.chaos)],
  ["outbox entries by state", JSON.stringify(res.outbox)],
  ["duration", `${Math.round(res.durationMs / 1000)} s`],
];
for (const [k, v] of rows) console.log(`${k.padEnd(58)} ${v}`);
for (const s of res.sample) console.log(`\nhistory of ${s.task}:\n  ${s.history.join("\n  ")}`);
if (res.failures.length) {
  console.log(`\nFAILED (seed ${res.seed}):\n  ${res.failures.join("\n  ")}`);
  process.exitCode = 1;
} else console.log(`\nall checks passed (seed ${res.seed})`);
