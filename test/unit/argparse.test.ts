import { describe, expect, it } from "vitest";
import { ArgError, parseArgs } from "../../src/emulator/argparse.js";
import { blockSpec } from "../../src/emulator/verbs/close.js";
import { comment } from "../../src/emulator/verbs/lease.js";

describe("emulator argparse matches Python argparse on the contract's cases", () => {
  const block = blockSpec({});
  it("options first, then --, then id and reason", () => {
    const r = parseArgs(block, ["--kind=needs_input", "--", "t_1", "-x", "reason"]);
    expect(r.values).toMatchObject({ kind: "needs_input", task_id: "t_1", reason: ["-x", "reason"] });
    expect(r.extras).toEqual([]);
  });
  it("the trap: an option after the id leaves the reason unrecognized", () => {
    // Python 3.11 keeps a `--` no positional took: "unrecognized arguments: -- reason" (real 0.20.0)
    expect(parseArgs(block, ["t_1", "--kind", "needs_input", "--", "reason"]).extras).toEqual(["--", "reason"]);
    expect(parseArgs(block, ["t_1", "reason", "--kind", "needs_input"]).extras).toEqual([]);
  });
  it("comment accepts options after the id, negative numbers and spaced dashes as text", () => {
    expect(parseArgs(comment.spec, ["t_1", "--author", "x", "text"]).values).toMatchObject({ author: "x", text: ["text"] });
    expect(parseArgs(comment.spec, ["t_1", "-1"]).values.text).toEqual(["-1"]);
    expect(parseArgs(comment.spec, ["t_1", "-1 is my answer"]).values.text).toEqual(["-1 is my answer"]);
    // `comment <id> -x`: -x is an unknown option, so the text is missing (exit 2 in real Hermes)
    expect(() => parseArgs(comment.spec, ["t_1", "-x"])).toThrow("the following arguments are required: text");
    expect(() => parseArgs(comment.spec, ["t_1"])).toThrow(new ArgError("the following arguments are required: text"));
  });
  it("a `--` goes with the positional that takes it, and is dropped from its values", () => {
    expect(parseArgs(block, ["t_1", "--", "need", "a", "decision"]).values).toMatchObject({ task_id: "t_1", reason: ["need", "a", "decision"] });
    expect(parseArgs(comment.spec, ["t_1", "--", "--", "x"]).values.text).toEqual(["--", "x"]);
    expect(() => parseArgs(comment.spec, ["t_1", "--author", "--", "x"])).toThrow("argument --author: expected one argument");
  });
  it("rejects bad choices with argparse's wording", () => {
    expect(() => parseArgs(block, ["--kind", "bogus", "t_1"])).toThrow(
      "argument --kind: invalid choice: 'bogus' (choose from 'capability', 'dependency', 'needs_input', 'transient')",
    );
  });
});
