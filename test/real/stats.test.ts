// `hermes-bridge stats` on the real Hermes CLI (HERMES_BIN): the mixed run of test/integration/stats.test.ts
// — three seats, every outcome (complete, each block cause, retried crashes, a lost lease — a claim that runs
// out behind a network cut, released by `dispatch` —, an operator's reclaim and a limit hand-back, a review
// round trip, a dead letter) — and every figure held to the count made apart from
// `show --json` of each task and the seats' outboxes. STATS_COMPLETES sizes the plain completes (default
// 30: ~50 tasks, several minutes on the real CLI).
import { describe, it } from "vitest";
import { splitCommand } from "../../src/config/command.js";
import { Emu } from "../helpers/emulator.js";
import { runScenario, verifyStats } from "../helpers/stats-scenario.js";

const bin = process.env.HERMES_BIN;

describe.skipIf(!bin)("hermes-bridge stats on the real Hermes CLI", () => {
  it("a mixed run across three seats: every figure matches the count from the board", async () => {
    const emu = await Emu.create("real", { command: splitCommand(bin ?? "") });
    try {
      const s = await runScenario(emu, { completes: Number(process.env.STATS_COMPLETES ?? 30), claude: 4, ms: 600_000 });
      await verifyStats(emu, s);
    } finally {
      emu.cleanup();
    }
  }, 3_600_000);
});
