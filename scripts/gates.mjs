#!/usr/bin/env node
// The gates before the tests, side by side (they are independent): typecheck (src, test and bench), the
// build (emit only: `--noCheck`, the typecheck beside it checks the same src), lint, file sizes, no
// synchronous fs call on an agent-writable path outside src/sandbox/ (check-sync-io.mjs), rules with one
// home (check-homes.mjs), then the layer gate. Each step's output is printed as a
// block when it ends; any failure fails the whole, naming the step.
import { spawn } from "node:child_process";

const run = (name, script, ...args) =>
  new Promise((resolve) => {
    const t0 = Date.now();
    const p = spawn("npm", ["run", "--silent", script, ...(args.length ? ["--", ...args] : [])], { stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    p.stdout.on("data", (d) => (out += d));
    p.stderr.on("data", (d) => (out += d));
    p.on("close", (code) => {
      process.stdout.write(`── ${name}: ${code === 0 ? "ok" : `FAILED (exit ${code})`} in ${((Date.now() - t0) / 1000).toFixed(1)} s\n${code === 0 ? "" : out}`);
      resolve(code === 0);
    });
  });

const results = await Promise.all([
  run("typecheck", "typecheck"),
  run("build", "build", "--noCheck"),
  (async () => (await run("lint", "lint")) & (await run("file sizes", "check:files")) & (await run("sync io", "check:sync-io")) & (await run("one home", "check:homes")) & (await run("layers", "layers")))(),
]);
if (!results.every(Boolean)) {
  process.stderr.write("gates failed: see the step(s) marked FAILED above\n");
  process.exit(1);
}
