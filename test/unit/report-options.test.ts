// The board reports' shared options (`usage`, `stats`): a bad --by or --since is refused naming the command,
// the flag and what it takes — before any config or board is read.
import { describe, expect, it } from "vitest";
import { reportOptions } from "../../src/cli/ops-config.js";

describe("reportOptions", () => {
  it("refuses a --by that is not one of the keys, naming the command and the keys", async () => {
    await expect(reportOptions("stats", { by: "planet", flags: {} }, ["seat", "kind"], {}, 0)).rejects.toThrow("stats --by: 'planet' is not one of seat, kind");
  });
  it("refuses a --since that is neither a date nor a duration", async () => {
    await expect(reportOptions("usage", { since: "last tuesday", flags: {} }, ["seat"], {}, 0)).rejects.toThrow(
      "usage --since: 'last tuesday' is neither an ISO date nor a duration like 7d, 24h or 90m",
    );
  });
});
