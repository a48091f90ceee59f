#!/usr/bin/env node
// The gates before the tests, side by side (they are independent): typecheck (src, test and bench;
// incremental, its state in node_modules/.cache: a clean clone checks everything, a second run only what
// changed and what depends on it), the build (scripts/build.mjs, emit only: `--noCheck`, the typecheck
// beside it checks the same src), lint, file sizes, no synchronous fs call on an agent-writable path
// outside src/agent-files/ (check-sync-io.mjs), rules with one home (check-homes.mjs), then the layer gate.
// Each step's output is printed as a block when it ends; any failure fails the whole, naming the step.
// `--then-tests [vitest args…]` (npm test): the tests start as soon as the build is there (they run the
// built files) while the other gates go on beside them; a gate that fails stops the tests and fails the whole.
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

const at = process.argv.indexOf("--then-tests");
const testArgs = at === -1 ? null : process.argv.slice(at + 1);
const build = run("build", "build", "--noCheck");
const others = Promise.all([
  run("typecheck", "typecheck"),
  (async () => (await run("lint", "lint")) & (await run("file sizes", "check:files")) & (await run("sync io", "check:sync-io")) & (await run("one home", "check:homes")) & (await run("layers", "layers")))(),
]).then((r) => r.every(Boolean));

if (!(await build)) {
  await others;
  process.stderr.write("gates failed: the build (see FAILED above)\n");
  process.exit(1);
}
let tests = null;
if (testArgs) {
  tests = spawn("npx", ["vitest", "run", ...testArgs], { stdio: "inherit", detached: true });
  process.on("SIGINT", () => tests && process.kill(-tests.pid, "SIGINT"));
}
const testsDone = tests ? new Promise((r) => tests.on("close", (code, signal) => r(code ?? (signal ? 1 : 0)))) : Promise.resolve(0);
const gatesOk = await others;
if (!gatesOk) {
  if (tests && tests.exitCode === null) process.kill(-tests.pid, "SIGTERM");
  await testsDone;
  process.stderr.write("gates failed: see the step(s) marked FAILED above\n");
  process.exit(1);
}
process.exit(await testsDone);
