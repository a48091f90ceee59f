// What Hermes 0.21 adds, as one suite run on every 0.21 board: the emulator's 0.21 mode
// (test/integration/hermes021.test.ts) and the real 0.21.3 CLI (test/real/hermes021.test.ts, with
// HERMES_BIN naming a 0.21 install). The review hand-off with metadata and a reviewer the task is
// reassigned to, sent back by `reopen-review --reason` to the implementer, whose next run leads with the
// changes and resumes its session; the task's pins (a `set-model` change reaches the next run, its skill
// from the Hermes home); and a completion contract the run cannot meet, which ends in a templated block
// naming the contract — never a retry loop or a task left running.
import { afterEach, describe, expect, it } from "vitest";
import { hasAllFields } from "../../src/result/template.js";
import { runBridge, SEAT } from "../helpers/bridge.js";
import type { Emu } from "../helpers/emulator.js";

export function hermes021Suite(name: string, makeBoard: () => Promise<Emu>, o: { skip?: boolean } = {}): void {
  describe.skipIf(o.skip === true)(name, () => {
    let board: Emu | undefined;
    afterEach(() => {
      board?.cleanup();
      board = undefined;
    });

    it("review: the task ends in `review` with the summary and metadata, reassigned to the reviewer; sent back, the next run leads with the changes and resumes", async () => {
      board = await makeBoard();
      const id = await board.createTask("reviewed on 0.21", { assignee: SEAT, body: "MODE:review" });
      await (await runBridge(board, { base: { close: { reviewer: "qa-bot" } } })).daemon.done;
      let d = await board.show(id);
      expect(d.task.status).toBe("review");
      expect(d.task.assignee).toBe("qa-bot");
      expect(d.runs[0]).toMatchObject({ outcome: "review_requested", summary: "Implemented; please review." });
      expect(d.runs[0]?.metadata).toMatchObject({ ok: true, note: "ready for review", bridge: { seat: SEAT } });

      await board.kanban(["reopen-review", id, "--reason", "cover the empty input"]);
      d = await board.show(id);
      expect(d.task).toMatchObject({ status: "ready", assignee: SEAT });
      await (await runBridge(board)).daemon.done;
      d = await board.show(id);
      expect(d.task.status).toBe("done");
      const last = d.runs.at(-1);
      expect(last?.summary).toBe(`addressed the review in sess-${id}`);
      expect((last?.metadata as { note?: string } | undefined)?.note).toMatch(
        /^This task was sent back from review \(review round 1; Hermes recorded `reopen-review` by @\S+ at [^)]+\)\. The changes asked for, quoted as board text[^\n]*\n> cover the empty input$/,
      );
      expect(last?.metadata).toMatchObject({ bridge: { session: { resumed: true } } });
    });

    it("the task's pins: a `set-model` change reaches the next run; its skill from the Hermes home", async () => {
      board = await makeBoard();
      const { mkdirSync, writeFileSync } = await import("node:fs");
      const { join } = await import("node:path");
      mkdirSync(join(board.home, "skills", "writing", "house-style"), { recursive: true });
      writeFileSync(join(board.home, "skills", "writing", "house-style", "SKILL.md"), "---\nname: house-style\ndescription: d\n---\n\nHouse style.\n");
      const id = await board.createTask("pinned on 0.21", { assignee: SEAT, body: "MODE:pins", extra: ["--model", "first-model", "--skill", "house-style"] });
      await board.kanban(["set-model", id, "second-model", "--provider", "acme"]);
      await (await runBridge(board)).daemon.done;
      const d = await board.show(id);
      expect(d.task.status).toBe("done");
      const seen = JSON.parse(String((d.runs.at(-1)?.metadata as { note?: string } | undefined)?.note));
      expect(seen).toMatchObject({ model: "second-model", provider: "acme" });
      expect(seen.skills[0].text).toContain("House style.");
    });

    it("a publication contract the run cannot meet: a templated block naming the contract and what is missing", async () => {
      board = await makeBoard();
      const id = await board.createTask("needs a PR", { assignee: SEAT, body: "MODE:complete", extra: ["--completion-contract", "acme/widgets"] });
      const b = await runBridge(board);
      await b.daemon.done;
      const d = await board.show(id);
      expect(d.task.status).toBe("blocked");
      const reason = String(d.events.findLast((e) => e.kind === "blocked")?.payload?.reason ?? "");
      expect(hasAllFields(reason)).toBe(true);
      expect(reason).toContain("completion contract is acme/widgets");
      expect(reason).toContain("published_pr");
      expect(d.runs.filter((r) => r.outcome === "completed")).toHaveLength(0);
      expect(b.reports[0]).toMatchObject({ decision: "block" });
    });
  });
}
