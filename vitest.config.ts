import { defineConfig } from "vitest/config";
import LongLanesFirst from "./test/helpers/sequencer.js";

// Two projects on one pool of 4 workers. The unit tests share their workers' module cache (isolate: false):
// they keep no state between files and end every process they start (a sleep, a gate command, a bwrap
// probe) within their test, and a fresh worker per file cost them more than their tests (~10 of their
// 14 CPU-s). Every other file gets a worker of its own, as before: they start daemons, call servers and
// jails, and a worker must end with what it started (hub.test.ts counts them).
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
      { extends: true, test: { name: "processes", include: ["test/**/*.test.ts"], exclude: ["test/unit/**"] } },
    ],
  },
});
