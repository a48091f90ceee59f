// Who may hold an agent CLI's stream for a moment (jail/run-jail.ts streamExposed): the jail's own launch
// chain — bubblewrap in the jail's namespace before it dropped the descriptor — at the look that first sees
// it within the launch, never at a later one. (The relay that starts the program runs from an execute-only
// copy, as the program does.)
import { describe, expect, it } from "vitest";
import { Sightings } from "../../src/jail/run-jail.js";

describe("the stream's launch chain", () => {
  it("a holder is let be at the look that first sees it (as often as that look asks) within the launch, named at any later look", () => {
    const s = new Sightings();
    s.nextLook();
    expect(s.seenBefore("101:7")).toBe(false);
    expect(s.seenBefore("101:7")).toBe(false);
    s.nextLook();
    expect(s.seenBefore("101:7")).toBe(true);
    // another process (or the same pid running another image) starts over
    expect(s.seenBefore("102:7")).toBe(false);
    expect(s.seenBefore("101:8")).toBe(false);
    // past the launch (the first two looks) a holder is named at the look that first sees it
    s.nextLook();
    expect(s.seenBefore("102:7")).toBe(true);
    expect(s.seenBefore("103:7")).toBe(true);
  });
});
