#!/usr/bin/env node
// hermes-kanban-emulator: a stand-in for `hermes`, invoked as `hermes-kanban-emulator kanban …` — or as
// `hermes-kanban-emulator --call-server` (the bridge's call-server protocol, serve.ts).
import { appendFileSync } from "node:fs";
import { main } from "./main.js";
import { serve } from "./serve.js";

/** HERMES_EMULATOR_CALL_LOG: one JSON line per call (benchmarks count CLI calls and timings). */
function logCall(args: string[], start: number, code: number, env: NodeJS.ProcessEnv): void {
  const file = env.HERMES_EMULATOR_CALL_LOG;
  if (!file) return;
  const verb = args.find((a, i) => i > 0 && !a.startsWith("-") && args[i - 1] !== "--board") ?? "";
  const task = args.find((a) => /^t_[0-9a-f]{8}$/.test(a)) ?? null;
  const help = args.at(-1) === "--help" || args[0] === "--version";
  appendFileSync(file, `${JSON.stringify({ start, end: Date.now(), verb, task, code, ...(help ? { help } : {}) })}\n`);
}

if (process.argv[2] === "--call-server") void serve(logCall);
else {
  const t0 = Date.now();
  main(process.argv.slice(2), process.env).then(
    (r) => {
      logCall(process.argv.slice(2), t0, r.code, process.env);
      if (r.stderr) process.stderr.write(r.stderr);
      if (r.stdout) process.stdout.write(r.stdout, () => process.exit(r.code));
      else process.exit(r.code);
    },
    (err: unknown) => {
      process.stderr.write(`Traceback (most recent call last):\n${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
      process.exit(1);
    },
  );
}
