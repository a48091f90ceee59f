// The notes of a running agent: comments by others after what its prompt showed, each handed over once;
// the seat's own never; the watermark is the first comment the agent has not seen.
import { describe, expect, it } from "vitest";
import { mattersToRun } from "../../src/discovery/run-events.js";
import { parseWatchLine } from "../../src/board/events.js";
import { NoteInbox } from "../../src/run/work/inbox.js";
import { noteIdsIn, noteLine, renderNote } from "../../src/tools/notes.js";

const c = (author: string, body: string, createdAt = 1_796_000_000) => ({ author, body, createdAt });

describe("NoteInbox", () => {
  it("hands each comment by someone else over once, skips the seat's own and what the prompt showed", () => {
    const delivered: string[] = [];
    const inbox = new NoteInbox({ author: "seat", seen: 1, now: () => 0, hooks: { delivered: (ns) => delivered.push(...ns.map((n) => n.id)) } });
    let wakes = 0;
    inbox.onNote(() => {
      wakes += 1;
    });
    expect(inbox.update([c("op", "in the prompt")])).toBe(0);
    expect(inbox.update([c("op", "in the prompt"), c("seat", "my own heartbeat note"), c("op", "also do X")])).toBe(1);
    expect(inbox.pending().map((n) => [n.id, n.body])).toEqual([["c2", "also do X"]]);
    expect(inbox.update([c("op", "in the prompt"), c("seat", "mine"), c("op", "also do X")])).toBe(0);
    expect(wakes).toBe(1);
    expect(inbox.watermark()).toBe(2);
    inbox.delivered(["c2"]);
    inbox.delivered(["c2"]);
    expect(delivered).toEqual(["c2"]);
    expect(inbox.pending()).toEqual([]);
    expect(inbox.watermark()).toBe(3);
  });

  it("a note renders with its id, author and time, capped and with control characters escaped", () => {
    const n = { id: "c4", author: "op\u001b[31m", body: `stop\u0007 now ${"x".repeat(40_000)}`, postedAt: Date.UTC(2026, 10, 30) };
    const text = renderNote(n);
    expect(noteIdsIn(text)).toEqual(["c4"]);
    expect(text).toContain("2026-11-30T00:00:00.000Z");
    expect(text).toContain("precedence over the original task text");
    expect(text).not.toMatch(/[\u0007\u001b]/);
    expect(Buffer.byteLength(text)).toBeLessThan(20_000);
    const line = JSON.parse(noteLine(n)) as Record<string, string>;
    expect(line.id).toBe("c4");
    expect(line.posted_at).toBe("2026-11-30T00:00:00.000Z");
  });
});

describe("watch lines for a running task", () => {
  const line = (kind: string, payload = "") => parseWatchLine(`[2026-11-30 01:23] t_1 ${kind.padEnd(18)} (@seat)${payload ? ` ${payload}` : ""}`);
  it("reach the run when someone else changed the task; the run's own traffic costs nothing", () => {
    expect(mattersToRun(line("reclaimed", "{'stale_lock': None}"), "seat")).toBe(true);
    expect(mattersToRun(line("blocked", "{'reason': 'stop', 'kind': None, 'recurrences': 1}"), "seat")).toBe(true);
    expect(mattersToRun(line("completed", "{'result_len': 0, 'summary': 'x'}"), "seat")).toBe(true);
    expect(mattersToRun(line("archived"), "seat")).toBe(true);
    expect(mattersToRun(line("commented", "{'author': 'default', 'len': 8}"), "seat")).toBe(true);
    expect(mattersToRun(line("commented", "{'author': 'seat', 'len': 8}"), "seat")).toBe(false);
    expect(mattersToRun(line("heartbeat", "{'note': 'x'}"), "seat")).toBe(false);
    expect(mattersToRun(line("claimed", "{'lock': 'h:1', 'expires': 1, 'run_id': 1}"), "seat")).toBe(false);
  });
});

describe("the session journal keeps what a running agent has seen", () => {
  it("a crash after a note was handed over: the next run counts it as seen", async () => {
    const { mkdtempSync } = await import("node:fs");
    const { tmpdir } = await import("node:os");
    const { join } = await import("node:path");
    const { SessionJournal } = await import("../../src/continuity/journal.js");
    const { TaskSession } = await import("../../src/continuity/session.js");
    const journal = new SessionJournal(mkdtempSync(join(tmpdir(), "hkb-journal-")));
    const s = await TaskSession.open(journal, "b", "t_1", "command");
    s.started("sess-1");
    s.notesSeen(3);
    s.notesSeen(2); // never moves back
    expect((await journal.get("b", "t_1"))?.commentsSeen).toBe(3);
    await TaskSession.crashed(journal, "b", "t_1", { runId: 4, traceId: "tr", at: "2026-11-30T00:00:00Z" });
    const rec = await journal.get("b", "t_1");
    expect(rec?.lastRun?.commentsSeen).toBe(3);
    expect(rec?.commentsSeen).toBeUndefined();
  });
});
