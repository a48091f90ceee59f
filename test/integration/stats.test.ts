// `hermes-bridge stats` on a mixed run of ~50 tasks across three seats (test/helpers/stats-scenario.ts): its
// figures — by seat and in total, as JSON, as the table and as CSV — match a count made apart from the
// bridge's code, from `show --json` of each task and the seats' outbox files; unmeasured runs are apart.
// The same scenario runs on real Hermes in test/real/stats.test.ts.
import { afterEach, describe, it } from "vitest";
import { Emu } from "../helpers/emulator.js";
import { runScenario, verifyStats } from "../helpers/stats-scenario.js";

let emu: Emu | undefined;
afterEach(() => emu?.cleanup());

describe("hermes-bridge stats", () => {
  it("a mixed run across three seats: every figure matches the count from the board", async () => {
    emu = await Emu.create();
    // 51 tasks: 15 of the mix and 30 plain completes in the pool's lane, 4 in seat C's, the lost lease, the dead letter
    const s = await runScenario(emu, { completes: 30, claude: 4, ms: 120_000 });
    await verifyStats(emu, s);
  }, 300_000);
});
