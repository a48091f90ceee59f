#!/usr/bin/env node
// `npm run test:real`: the Board contract and the daemon's real-CLI slice against each real Hermes line
// named in the environment — HERMES_BIN (0.20) and HERMES_BIN_021 (0.21) — one pass per line, the same
// files each time (the tests read HERMES_BIN). A line that is not set is skipped and said so; none set:
// exit 0. See DEVELOPERS.md, "The real-Hermes lane", for how to get either.
import { spawnSync } from "node:child_process";

const files = ["test/contract/real-hermes.test.ts", "test/contract/transport-parity.test.ts", "test/real/"];
const lines = [
  { name: "0.20", env: "HERMES_BIN" },
  { name: "0.21", env: "HERMES_BIN_021" },
];
let failed = 0;
let ran = 0;
for (const line of lines) {
  const bin = process.env[line.env];
  if (!bin) {
    console.log(`test:real ${line.name} skipped: ${line.env} is not set (see DEVELOPERS.md, 'The real-Hermes lane').`);
    continue;
  }
  ran += 1;
  console.log(`test:real ${line.name} against ${line.env}=${bin}`);
  const env = { ...process.env, HERMES_BIN: bin, HKB_HERMES_LINE: line.name };
  // Every file drives real Pythons (and real agent CLIs) at once on the machine's cores: a case that takes
  // 15 s alone took 55–60 s beside the others on 2 cores, so the lane's cases get 180 s, not the suite's 60.
  const r = spawnSync(process.execPath, ["node_modules/vitest/vitest.mjs", "run", "--testTimeout=180000", ...files, ...process.argv.slice(2)], {
    stdio: "inherit",
    env,
  });
  if (r.status !== 0) failed += 1;
}
if (ran === 0) console.log("test:real: no real Hermes named; nothing ran.");
process.exit(failed === 0 ? 0 : 1);
