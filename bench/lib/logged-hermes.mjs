#!/usr/bin/env node
// Stands in for a real `hermes` in the benchmark: runs the command in BENCH_HERMES (a JSON argv) with
// this process's arguments and appends one JSON line per call to BENCH_CALL_LOG — the same line the
// emulator writes with HERMES_EMULATOR_CALL_LOG, so both boards are counted the same way. Signals are
// passed on (a `watch` child is stopped with SIGTERM).
import { spawn } from "node:child_process";
import { appendFileSync } from "node:fs";

const t0 = Date.now();
const [cmd, ...pre] = JSON.parse(process.env.BENCH_HERMES ?? "[]");
const args = process.argv.slice(2);
const child = spawn(cmd, [...pre, ...args], { stdio: "inherit" });
for (const s of ["SIGTERM", "SIGINT", "SIGHUP"]) process.on(s, () => child.kill(s));
child.on("exit", (code, signal) => {
  const verb = args.find((a, i) => i > 0 && !a.startsWith("-") && args[i - 1] !== "--board") ?? "";
  const task = args.find((a) => /^t_[0-9a-f]{8}$/.test(a)) ?? null;
  if (process.env.BENCH_CALL_LOG)
    appendFileSync(process.env.BENCH_CALL_LOG, `${JSON.stringify({ start: t0, end: Date.now(), verb, task, code: code ?? 128 })}\n`);
  if (signal) process.kill(process.pid, signal);
  process.exit(code ?? 1);
});
