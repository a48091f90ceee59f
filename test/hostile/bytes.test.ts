// Hostile bytes: any byte or code point in any text the bridge sends (summary, metadata strings and
// keys, heartbeat note, comment, block fields) reaches the board without failing the call — NUL is
// escaped (an argv cannot carry it), other controls are escaped, lone surrogates replaced. A NUL in
// agent output or its summary ends in a landed close, never a dead letter.
import fc from "fast-check";
import { afterEach, describe, expect, it } from "vitest";
import { buildArgv } from "../../src/board/argv.js";
import { argvText, escapeControlsDeep, termSafe } from "../../src/result/text.js";
import { renderBlock } from "../../src/result/template.js";
import { runBridge, SEAT } from "../helpers/bridge.js";
import { Emu } from "../helpers/emulator.js";
import { acquire } from "../../src/lease/acquire.js";
import { fencedOf } from "../contract/board-contract.js";

let emu: Emu;
afterEach(() => emu?.cleanup());

/** Arbitrary text: full unicode, lone surrogates, and the control characters attackers like. */
const hostile = fc.oneof(
  fc.string({ unit: "binary" }),
  fc.string({ unit: fc.constantFrom("\u0000", "\u001b", "\u0007", "\r", "\n", "\t", "\u0085", "\u009b", "\ud800", "\udfff", "-", "'", '"', "\\", "✓", "日") }),
);

describe("argv safety (pure, many cases)", () => {
  it("no argv element carries a NUL or another control character; metadata stays JSON", () => {
    fc.assert(
      fc.property(hostile, hostile, (text, key) => {
        const meta = JSON.stringify(escapeControlsDeep({ [key]: text, note: text }));
        const argv = buildArgv(["hermes"], "b", {
          verb: "complete",
          options: [
            ["summary", argvText(text, 64 * 1024)],
            ["metadata", meta],
          ],
          positionals: ["t_1", argvText(text, 1000)],
        });
        for (const a of argv) {
          expect(a.includes("\u0000")).toBe(false);
          expect(/[\u0001-\u0008\u000b-\u001f\u007f-\u009f]/.test(a)).toBe(false);
          expect(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/.test(a)).toBe(false);
        }
        expect(() => JSON.parse(meta)).not.toThrow();
      }),
      { numRuns: 2000 },
    );
  });

  it("terminal output never carries an escape sequence", () => {
    fc.assert(
      fc.property(hostile, (text) => {
        expect(/[\u0000-\u001f\u007f-\u009f]/.test(termSafe(text, 10_000))).toBe(false);
      }),
      { numRuns: 2000 },
    );
  });
});

describe("every text field lands on the board, whatever its bytes", () => {
  it("summary, metadata, note, comment and block reasons (property, on the emulator)", async () => {
    emu = await Emu.create();
    const b = emu.board();
    await fc.assert(
      fc.asyncProperty(hostile, hostile, async (text, other) => {
        const id = await emu.createTask("prop", { assignee: SEAT });
        const { lease } = await acquire(b, id, 600);
        const f = fencedOf(b, lease);
        await f.heartbeat(text);
        await b.comment(id, "prop-seat", `${text} .`);
        if (other.length % 2 === 0) {
          expect(await f.complete({ summary: text || "x", metadata: { note: text, [other]: [other, { deep: text }] } })).toBe("applied");
        } else {
          const reason = renderBlock({
            cause: "environment",
            what_happened: text || "x",
            options: [other || "y"],
            recommendation: text || "z",
            next_action: other || "w",
          });
          expect(await f.block({ reason, kind: "capability" })).toBe("applied");
        }
      }),
      { numRuns: 12 },
    );
  }, 120_000);

  it("an agent printing NUL and writing it into its summary still completes its task", async () => {
    emu = await Emu.create();
    const id = await emu.createTask("nul", { assignee: SEAT, body: "MODE:nul" });
    const b = await runBridge(emu);
    await b.daemon.done;
    const d = await emu.show(id);
    expect(d.task.status).toBe("done");
    expect(d.runs.at(-1)?.summary).toBe("done \\x00 with \\x1b]0;title\\x07 odd \ufffd bytes");
    expect(b.built.outbox.open()).toEqual([]);
  });
});
