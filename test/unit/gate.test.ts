import { describe, expect, it } from "vitest";
import type { GateConfig } from "../../src/gate/gate.js";
import { applyGate } from "../../src/run/work/decide.js";
import { verificationFromBody } from "../../src/gate/verification.js";
import type { Decision } from "../../src/result/decision.js";

const cfg: GateConfig = {
  commands: [],
  bodyVerification: false,
  allowedCommands: [],
  timeoutSeconds: 60,
  outputTailChars: 4000,
  requireChanges: false,
  allowDirty: false,
  minItems: 0,
};
const complete: Decision = { type: "complete", summary: "s", result: { ok: true, status: "ok", items: 2, metrics: {}, note: "", artifacts: [], error: null } };

describe("verificationFromBody", () => {
  it("takes the first fenced block of the ## Verification section", () => {
    const body = "Do it.\n\n## Verification\nRun these:\n```sh\nnpm test\n# a comment\n\ntest -f out.txt\n```\n```\nignored\n```\n## Notes\n```\nnot this\n```";
    expect(verificationFromBody(body)).toEqual(["npm test", "test -f out.txt"]);
  });
  it("is empty without the section", () => {
    expect(verificationFromBody("## Steps\n```\nmake\n```")).toEqual([]);
    expect(verificationFromBody(null)).toEqual([]);
  });
});

describe("applyGate", () => {
  it("passes a complete with its evidence", () => {
    const g = applyGate(
      complete,
      { verification: [{ command: "true", exit_code: 0, duration_ms: 1, output_tail: "" }], changedFiles: ["a"], diffStat: null },
      cfg,
    );
    expect(g.type).toBe("complete");
    expect(g.type === "complete" && g.extras).toEqual({
      verification: [{ command: "true", exit_code: 0, duration_ms: 1, output_tail: "" }],
      changed_files: ["a"],
    });
  });
  it("blocks on a failed command, no change under requireChanges, or too few items", () => {
    const failed = applyGate(
      complete,
      { verification: [{ command: "npm test", exit_code: 1, duration_ms: 5, output_tail: "2 failing" }], changedFiles: [], diffStat: null },
      cfg,
    );
    expect(failed).toMatchObject({ type: "block", template: { cause: "test failure" } });
    expect(failed.type === "block" && failed.template.what_happened).toMatch(/`npm test` exited 1. Output tail: 2 failing/);
    expect(applyGate(complete, { verification: [], changedFiles: [], diffStat: null }, { ...cfg, requireChanges: true }).type).toBe("block");
    expect(applyGate(complete, { verification: [], changedFiles: null, diffStat: null }, { ...cfg, requireChanges: true }).type).toBe("complete");
    const few = applyGate(complete, { verification: [], changedFiles: [], diffStat: null }, { ...cfg, minItems: 3 });
    expect(few.type === "block" && few.template.what_happened).toMatch(/0 items is not success/);
  });
  it("leaves blocks alone", () => {
    const b: Decision = { type: "lost" };
    expect(applyGate(b, { verification: [], changedFiles: [], diffStat: null }, { ...cfg, minItems: 9 })).toBe(b);
  });
});
