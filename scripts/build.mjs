#!/usr/bin/env node
// `npm run build [-- tsc flags]`: tsc emits dist/ (the flags go to tsc: gates.mjs passes --noCheck), then
// esbuild makes the emulator's bin one file. The emulator starts a Node per call (every `hermes kanban …` a
// seat sends it as a process, every help probe, every call server); one file instead of ~35 modules takes
// about a quarter off each start (measured in DEVELOPERS.md, "Where the suite's time goes"). Nothing else
// is bundled: the bridge's own files stay as tsc writes them (the jail mounts some of them by path).
// better-sqlite3 and yaml stay outside: the emulator loads them with createRequire at run time, from the
// package's node_modules (better-sqlite3 is optional: install-weight.test.ts).
import { spawnSync } from "node:child_process";
import { chmodSync, copyFileSync, statSync } from "node:fs";
import { build } from "esbuild";

const tsc = spawnSync(process.execPath, ["node_modules/typescript/bin/tsc", "-p", "tsconfig.build.json", ...process.argv.slice(2)], { stdio: "inherit" });
if (tsc.status !== 0) process.exit(tsc.status ?? 1);

// The jail's Python relay is no TypeScript: copied beside relay.mjs (jail/relay.ts names both).
copyFileSync("src/jail/relay.py", "dist/jail/relay.py");

const BIN = "dist/emulator/bin.js";
const mode = statSync(BIN).mode;
try {
  await build({
    entryPoints: [BIN],
    outfile: BIN,
    allowOverwrite: true,
    bundle: true,
    platform: "node",
    format: "esm",
    target: "node20",
    // tsc's maps are read in: a stack trace of the bundle still names src/emulator/*.ts.
    sourcemap: true,
    external: ["better-sqlite3", "yaml"],
    logLevel: "warning",
  });
} catch (err) {
  process.stderr.write(`build: bundling ${BIN} failed: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
}
chmodSync(BIN, mode);
