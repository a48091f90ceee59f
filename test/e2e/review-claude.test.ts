// The review hand-off with the real Claude Code CLI against the scripted model: the agent ends with
// the task tool kanban_request_review; the task goes to `review`; `reopen-review --reason` sends it
// back, and the next run resumes the same Claude session with the requested changes leading its prompt.
import { afterEach, describe, expect, it } from "vitest";
import { runBridge, SEAT } from "../helpers/bridge.js";
import { claudeAgent, SHORT, textOf } from "../helpers/continuity.js";
import { Emu } from "../helpers/emulator.js";
import { AnthropicMock } from "../helpers/model-mocks.js";

const RESULT = { ok: true, status: "ok", items: 1, metrics: { created: 1 }, note: "done", artifacts: [], error: null };

let emu: Emu;
let mock: AnthropicMock | undefined;
afterEach(async () => {
  emu?.cleanup();
  await mock?.close();
});

describe("review hand-off with the real Claude Code CLI", () => {
  it("request_review → review; reopened → the same session continues with the changes first", async () => {
    emu = await Emu.create();
    mock = await new AnthropicMock([
      {
        blocks: [
          { text: "Step one: implemented the parser." },
          { tool: "mcp__task__kanban_request_review", input: { summary: "Parser done; please review.", result: RESULT } },
        ],
      },
      { blocks: [{ text: "Handed over." }] },
    ]).start();
    const id = await emu.createTask("review me", { assignee: SEAT, body: "Write the parser." });
    // (a claim long enough for a loaded machine: nothing here is cut at its deadline)
    const base = { ...SHORT, claim: { ttlSeconds: 900, safetySeconds: 40 }, seat: { limitMarginSeconds: 0 }, agent: claudeAgent(emu, mock) };
    await (await runBridge(emu, { base })).daemon.done;
    let doc = await emu.show(id);
    expect(doc.task.status, String(doc.events.findLast((e) => e.kind === "blocked")?.payload?.reason)).toBe("review");
    expect(doc.runs[0]).toMatchObject({ outcome: "review_requested", summary: "Parser done; please review." });

    await emu.kanban(["reopen-review", id, "--reason", "handle an empty file"]);
    const before = mock.mainBodies.length;
    mock.push(
      { blocks: [{ tool: "mcp__task__kanban_complete", input: { summary: "Empty files handled.", result: RESULT } }] },
      { blocks: [{ text: "Done." }] },
    );
    await (await runBridge(emu, { base })).daemon.done;
    doc = await emu.show(id);
    expect(doc.task.status).toBe("done");
    const resumed = textOf(mock.mainBodies[before]);
    // The same session: the first run's work is in the resumed run's first request …
    expect(resumed).toContain("Step one: implemented the parser.");
    // … and the reviewer's changes lead the new prompt (the request as JSON: a new line is `\n`).
    expect(resumed).toMatch(
      /This task was sent back from review \(review round 1; Hermes recorded `reopen-review` by @\S+ at [^)]+\)\. The changes asked for, quoted as board text.*?\\n> handle an empty file/,
    );
    expect(doc.runs.at(-1)?.metadata).toMatchObject({ bridge: { session: { resumed: true } } });
  });
});
