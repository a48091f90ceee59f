#!/usr/bin/env node
// hermes-kanban-emulator: a stand-in for `hermes`, invoked as `hermes-kanban-emulator kanban …`.
import { appendFileSync } from "node:fs";
import { main } from "./main.js";

const t0 = Date.now();
/** HERMES_EMULATOR_CALL_LOG: one JSON line per call (benchmarks count CLI processes and timings). */
function logCall(code: number): void {
  const file = process.env.HERMES_EMULATOR_CALL_LOG;
  if (!file) return;
  const args = process.argv.slice(2);
  const verb = args.find((a, i) => i > 0 && !a.startsWith("-") && args[i - 1] !== "--board") ?? "";
  const task = args.find((a) => /^t_[0-9a-f]{8}$/.test(a)) ?? null;
  appendFileSync(file, `${JSON.stringify({ start: t0, end: Date.now(), verb, task, code })}\n`);
}

main(process.argv.slice(2), process.env).then(
  (r) => {
    logCall(r.code);
    if (r.stderr) process.stderr.write(r.stderr);
    if (r.stdout) process.stdout.write(r.stdout, () => process.exit(r.code));
    else process.exit(r.code);
  },
  (err: unknown) => {
    process.stderr.write(`Traceback (most recent call last):\n${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    process.exit(1);
  },
);
