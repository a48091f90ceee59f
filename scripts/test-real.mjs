#!/usr/bin/env node
// `npm run test:real`: the Board contract and the daemon's real-CLI slice against real Hermes named by
// HERMES_BIN (see DEVELOPERS.md for how to get it). Without HERMES_BIN it says so and skips (exit 0).
import { spawnSync } from "node:child_process";

const files = ["test/contract/real-hermes.test.ts", "test/contract/transport-parity.test.ts", "test/real/"];
if (!process.env.HERMES_BIN) {
  console.log("test:real skipped: HERMES_BIN is not set (see DEVELOPERS.md, 'The real-Hermes lane').");
  process.exit(0);
}
console.log(`test:real against HERMES_BIN=${process.env.HERMES_BIN}`);
const r = spawnSync(process.execPath, ["node_modules/vitest/vitest.mjs", "run", ...files], { stdio: "inherit" });
process.exit(r.status ?? 1);
