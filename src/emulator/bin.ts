#!/usr/bin/env node
// hermes-kanban-emulator: a stand-in for `hermes`, invoked as `hermes-kanban-emulator kanban …`.
import { main } from "./main.js";

main(process.argv.slice(2), process.env).then(
  (r) => {
    if (r.stderr) process.stderr.write(r.stderr);
    if (r.stdout) process.stdout.write(r.stdout, () => process.exit(r.code));
    else process.exit(r.code);
  },
  (err: unknown) => {
    process.stderr.write(`Traceback (most recent call last):\n${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    process.exit(1);
  },
);
