import { describe, expect, it } from "vitest";
import type { RunFacts } from "../../src/run/record.js";
import { decide } from "../../src/run/work/decide.js";
import { hasAllFields, kindFor, renderBlock, validateBlock } from "../../src/result/template.js";

const fin = (code: number | null, signal: string | null = null) =>
  ({ type: "finished", exitCode: code, signal, reason: "exited", stdoutTail: "", stderrTail: "", outputBytes: 0 }) as const;
const base: RunFacts = { outcome: null, finished: fin(0), stop: null, deadlineAt: "2026-11-30T00:00:00.000Z", seat: "s" };
const good = { ok: true, status: "warn", items: 0 };

describe("decide", () => {
  it("completes only on ok + ok|warn + clean exit", () => {
    expect(decide({ ...base, outcome: { kind: "complete", summary: "s", result: good } }).type).toBe("complete");
    expect(decide({ ...base, finished: fin(1), outcome: { kind: "complete", summary: "s", result: good } })).toMatchObject({
      type: "block",
      template: { cause: "environment" },
    });
    expect(decide({ ...base, outcome: { kind: "complete", summary: "s", result: { ok: true, status: "error" } } })).toMatchObject({
      template: { cause: "test failure" },
    });
    expect(decide({ ...base, outcome: { kind: "complete", summary: "s", result: { ok: "yes" } } })).toMatchObject({
      template: { cause: "human decision needed" },
    });
  });
  it("maps stops and silence to the right causes", () => {
    expect(decide({ ...base, stop: "lease_lost" }).type).toBe("lost");
    expect(decide({ ...base, stop: "deadline" })).toMatchObject({ template: { cause: "environment" } });
    expect(decide({ ...base, stop: "shutdown" })).toMatchObject({ template: { cause: "environment" } });
    const silent = decide(base);
    expect(silent).toMatchObject({ template: { cause: "human decision needed" } });
    expect(silent.type === "block" && silent.template.what_happened).toMatch(/protocol violation/);
    expect(decide({ ...base, limit: { type: "limit", kind: "usage", resetsAt: 0, message: "limit" } })).toMatchObject({ limit: true });
  });
  it("an invalid agent template names the missing field", () => {
    const d = decide({ ...base, outcome: { kind: "block", block: { cause: "environment", what_happened: "x", options: "a", recommendation: "r" } as never } });
    expect(d.type === "block" && d.template.what_happened).toMatch(/next_action/);
  });
});

describe("block template", () => {
  it("renders five labelled lines and validates them", () => {
    const v = validateBlock({ cause: "environment", what_happened: "w", options: ["a", "b"], recommendation: "r", next_action: "n" });
    expect(v.ok).toBe(true);
    if (!v.ok) return;
    const text = renderBlock(v.template);
    expect(text.split("\n")).toHaveLength(5);
    expect(hasAllFields(text)).toBe(true);
    expect(validateBlock({ cause: "bored", what_happened: "", options: [], recommendation: "r", next_action: "n" }).ok).toBe(false);
  });
  it("never picks dependency", () => {
    expect(kindFor("environment")).toBe("capability");
    expect(kindFor("spec undecided")).toBe("needs_input");
    expect(kindFor("environment", { limit: true })).toBe("transient");
  });
});
