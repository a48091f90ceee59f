import { defineConfig } from "vitest/config";
import LongLanesFirst from "./test/helpers/sequencer.js";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    globalSetup: ["test/helpers/global-setup.ts"],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: "forks",
    maxWorkers: 4,
    sequence: { sequencer: LongLanesFirst },
  },
});
