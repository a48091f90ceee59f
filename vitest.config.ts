import { defineConfig } from "vitest/config";
import { LANE_FILES } from "./test/helpers/lanes.js";
import LongLanesFirst from "./test/helpers/sequencer.js";

// Three projects on one pool of 4 workers. `npm test` runs `unit` and `core`; `npm run test:lanes` runs
// `lanes` (test/helpers/lanes.ts says which files and why); `npm run test:all` runs the three. The unit
// tests share their workers' module cache (isolate: false): they keep no state between files and end every
// process they start (a sleep, a gate command, a bwrap probe) within their test, and a fresh worker per file
// cost them more than their tests (~10 of their 14 CPU-s). Every other file gets a worker of its own: they
// start daemons, call servers and jails, and a worker must end with what it started (hub.test.ts counts them).
const lanes = LANE_FILES.map((l) => l.glob);
export default defineConfig({
  test: {
    globalSetup: ["test/helpers/global-setup.ts"],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: "forks",
    maxWorkers: 4,
    sequence: { sequencer: LongLanesFirst },
    projects: [
      { extends: true, test: { name: "unit", include: ["test/unit/**/*.test.ts"], isolate: false } },
      { extends: true, test: { name: "core", include: ["test/**/*.test.ts"], exclude: ["test/unit/**", ...lanes], isolate: false } },
      { extends: true, test: { name: "lanes", include: lanes } },
    ],
  },
});
