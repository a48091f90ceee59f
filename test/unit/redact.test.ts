import { describe, expect, it } from "vitest";
import { Redactor } from "../../src/result/redact.js";

describe("redactor", () => {
  const r = new Redactor(["literal-secret-value"]);
  it.each([
    ["key sk-ant-api03-AAAAAAAAAAAAAAAAAAAA end", "key [REDACTED] end"],
    ["sk-proj-abcdefghijklmnop1234", "[REDACTED]"],
    ["ghp_abcdefghijklmnopqrstuvwxyz0123", "[REDACTED]"],
    ["github_pat_11ABCDEFG0123456789_abcdefghij", "[REDACTED]"],
    ["xoxb-1234567890-abcdef", "[REDACTED]"],
    ["AKIAABCDEFGHIJKLMNOP", "[REDACTED]"],
    ["Authorization: Bearer abc.def.ghi123", "Authorization: Bearer [REDACTED]"],
    ["password=hunter2 next", "password=[REDACTED] next"],
    ['{"api_key": "abc123"}', '{"api_key": "[REDACTED]"}'],
    ["https://user:pa55@host/x", "https://user:[REDACTED]@host/x"],
    ["has literal-secret-value inside", "has [REDACTED] inside"],
    ["-----BEGIN RSA PRIVATE KEY-----\nMIIE\n-----END RSA PRIVATE KEY-----", "[REDACTED]"],
  ])("%s", (input, out) => {
    expect(r.redact(input)).toBe(out);
  });
  it("leaves ordinary text alone and redacts deep", () => {
    expect(r.redact("skip the task-runner; tokens are counted")).toBe("skip the task-runner; tokens are counted");
    expect(r.redactDeep({ a: ["token: zzz"], b: 1 })).toEqual({ a: ["token: [REDACTED]"], b: 1 });
  });
});
