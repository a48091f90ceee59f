// The capabilities of Hermes 0.21.3, read from its recorded help texts (test/fixtures/hermes-021/):
// a review hand-off with metadata; no named claims, no renewal, no guards — the 0.20 way of running.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { capabilitiesFrom } from "../../src/board/capabilities.js";

const help = (name: string) => readFileSync(join("test/fixtures/hermes-021/help", `${name}.txt`), "utf8");

describe("Hermes 0.21.3 capabilities", () => {
  it("review with metadata; claims, renewals and closes as on 0.20", () => {
    const caps = capabilitiesFrom({
      version: help("version"),
      kanban: help("kanban"),
      block: help("block"),
      heartbeat: help("heartbeat"),
      claim: help("claim"),
      complete: help("complete"),
      comment: help("comment"),
      dispatch: help("dispatch"),
      requestReview: help("request-review"),
    });
    expect(caps).toMatchObject({
      version: "0.21.3",
      review: true,
      reviewMetadata: true,
      namedClaims: false,
      heartbeatExtends: false,
      expectedStatus: [],
      attach: true,
      // 0.21.3 has no way past the active_pr guard (authorize-existing-pr is 0.21.4+).
      authorizeExistingPr: false,
    });
  });
});
