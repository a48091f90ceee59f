// The state dir's two shared writers: the atomic replace (state/atomic.ts `replaceWith`, used for what is
// filled asynchronously — a copied image, a saved transcript folder, the seccomp filter) and the JSON lines
// of the journals (state/jsonl.ts: the outbox's journal, the usage ledger).
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { replaceWith } from "../../src/state/atomic.js";
import { appendJsonLine, jsonLines, parseJsonLines } from "../../src/state/jsonl.js";

let dir: string;
afterEach(() => rmSync(dir, { recursive: true, force: true }));
const fresh = () => {
  dir = mkdtempSync(join(tmpdir(), "hkb-state-files-"));
  return dir;
};

describe("replaceWith", () => {
  it("replaces a file whole and leaves no temp", async () => {
    const f = join(fresh(), "x");
    writeFileSync(f, "old");
    await replaceWith(f, async (tmp) => writeFileSync(tmp, "new"));
    expect(readFileSync(f, "utf8")).toBe("new");
    expect(readdirSync(dir)).toEqual(["x"]);
  });

  it("a fill that fails leaves the old file and no temp, and throws the fill's own error", async () => {
    const f = join(fresh(), "x");
    writeFileSync(f, "old");
    const boom = new Error("copy failed");
    await expect(
      replaceWith(f, async (tmp) => {
        writeFileSync(tmp, "half");
        throw boom;
      }),
    ).rejects.toBe(boom);
    expect(readFileSync(f, "utf8")).toBe("old");
    expect(readdirSync(dir)).toEqual(["x"]);
  });

  it("replaces a full folder with `folder`", async () => {
    const d = join(fresh(), "saved");
    mkdirSync(join(d, "a"), { recursive: true });
    writeFileSync(join(d, "a", "old.jsonl"), "old");
    await replaceWith(
      d,
      async (tmp) => {
        mkdirSync(join(tmp, "b"), { recursive: true });
        writeFileSync(join(tmp, "b", "new.jsonl"), "new");
      },
      { folder: true },
    );
    expect(readdirSync(d)).toEqual(["b"]);
    expect(readdirSync(dir)).toEqual(["saved"]);
  });
});

describe("JSON lines", () => {
  const Rec = z.object({ n: z.number() });

  it("round-trips what was appended and written whole", () => {
    const f = join(fresh(), "j.jsonl");
    appendJsonLine(f, { n: 1 }, { fsync: true });
    appendJsonLine(f, { n: 2 });
    expect(parseJsonLines(readFileSync(f, "utf8"), Rec)).toEqual({ records: [{ n: 1 }, { n: 2 }], bad: 0 });
    expect(jsonLines([{ n: 3 }, { n: 4 }])).toBe('{"n":3}\n{"n":4}\n');
  });

  it("counts a line off its schema and a line that is no JSON; a torn last line only without `tornTail`", () => {
    const text = '{"n":1}\n{"n":"x"}\nnot json\n{"n":2}\n{"n":';
    expect(parseJsonLines(text, Rec)).toEqual({ records: [{ n: 1 }, { n: 2 }], bad: 3 });
    expect(parseJsonLines(text, Rec, { tornTail: true })).toEqual({ records: [{ n: 1 }, { n: 2 }], bad: 2 });
  });
});
