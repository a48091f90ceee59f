// The review hand-off on the emulator (Hermes 0.20's request-review / reopen-review): an agent that
// asks for review ends its task in `review` (its run `review_requested`, the summary on it), never
// `done`; sent back with `reopen-review --reason`, the next run leads with the requested changes and
// resumes the same session. close.review: always hands every success over; never completes it.
import { afterEach, describe, expect, it } from "vitest";
import { runBridge, SEAT } from "../helpers/bridge.js";
import { Emu } from "../helpers/emulator.js";

let emu: Emu;
afterEach(() => emu?.cleanup());

describe("the review hand-off", () => {
  it("ready for review → review; reopened with a reason → the next run leads with it and resumes the session", async () => {
    emu = await Emu.create();
    const id = await emu.createTask("reviewed job", { assignee: SEAT, body: "MODE:review" });
    await (await runBridge(emu, { base: { close: { reviewer: "qa-bot" } } })).daemon.done;
    let doc = await emu.show(id);
    expect(doc.task.status).toBe("review");
    expect(doc.runs.map((r) => r.outcome)).toEqual(["review_requested"]);
    expect(doc.runs[0]?.summary).toBe("Implemented; please review.");
    expect(doc.events.findLast((e) => e.kind === "review_requested")?.payload).toMatchObject({ reviewer: "qa-bot", implementer: SEAT });
    expect(doc.events.map((e) => e.kind)).not.toContain("completed");

    await emu.kanban(["reopen-review", id, "--reason", "add a test for the empty input"]);
    await (await runBridge(emu)).daemon.done;
    doc = await emu.show(id);
    expect(doc.task.status).toBe("done");
    const last = doc.runs.at(-1);
    expect(last?.summary).toBe(`addressed the review in sess-${id}`);
    expect((last?.metadata as { note?: string } | undefined)?.note).toMatch(
      /^This task was sent back from review \(review round 1; Hermes recorded `reopen-review` by @\S+ at [^)]+\)\. The changes asked for, quoted as board text[^\n]*\n> add a test for the empty input$/,
    );
    expect(last?.metadata).toMatchObject({ bridge: { session: { id: `sess-${id}`, resumed: true } } });
  });

  it("close.review: always hands a plain complete over; never completes a review request", async () => {
    emu = await Emu.create();
    const plain = await emu.createTask("plain job", { assignee: SEAT, body: "MODE:complete" });
    await (await runBridge(emu, { base: { close: { review: "always" } } })).daemon.done;
    expect((await emu.show(plain)).task.status).toBe("review");

    const asked = await emu.createTask("asks for review", { assignee: SEAT, body: "MODE:review" });
    await (await runBridge(emu, { base: { close: { review: "never" } } })).daemon.done;
    const doc = await emu.show(asked);
    expect(doc.task.status).toBe("done");
    expect(doc.runs.at(-1)?.outcome).toBe("completed");
  });

  it("a hand-off the board refuses is replaced by a templated block, never a stranded task", async () => {
    emu = await Emu.create();
    const id = await emu.createTask("refused", { assignee: SEAT, body: "MODE:review" });
    // The emulator's request-review fails for good (a usage error), as a CLI that has no such verb would.
    await (await runBridge(emu, { faults: "request-review:usage" })).daemon.done;
    const doc = await emu.show(id);
    expect(doc.task.status).toBe("blocked");
    const reason = String(doc.events.findLast((e) => e.kind === "blocked")?.payload?.reason);
    expect(reason).toContain("hand the task over for review");
    expect(reason).toContain("Implemented; please review.");
  });
});
