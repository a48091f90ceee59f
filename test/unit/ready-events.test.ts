// The one list of ready-making board events (board/events.ts), checked against what real Hermes prints
// on `watch`: 0.20.0 (hermes-transcripts/08_watch_output.txt) and 0.21.3 (hermes-021/watch-review.txt).
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { READY_EVENT_KINDS, parseWatchLine } from "../../src/board/events.js";
import { readyTaskFromLine } from "../../src/discovery/scheduler.js";

const lines = (f: string) => readFileSync(f, "utf8").split("\n").map(parseWatchLine);
const v020 = lines("test/fixtures/hermes-transcripts/08_watch_output.txt");
const v021 = lines("test/fixtures/hermes-021/watch-review.txt");

describe("ready-making events", () => {
  it("every kind on the list is one real Hermes prints", () => {
    const seen = new Set([...v020, ...v021].map((l) => l.event?.kind).filter(Boolean));
    // 0.21.6's `reopened` (a done task back in the pool): no real 0.21.6 recording exists here — the
    // emulator's 0.21.6 mode writes it (test/contract/emulator-0216.test.ts), after upstream's reopen_task.
    const unrecorded = new Set(["reopened"]);
    for (const k of READY_EVENT_KINDS) if (!unrecorded.has(k)) expect(seen, k).toContain(k);
  });

  it("on 0.21, a created-ready, an assignment, a reopened review, a reclaim and an unblock wake the seat; the rest do not", () => {
    const woke = v021.filter((l) => l.event && readyTaskFromLine(l) !== null).map((l) => l.event?.kind);
    expect(woke).toEqual(["created", "assigned", "review_reopened", "reclaimed", "unblocked"]);
  });
});
