// Who may hold an agent CLI's stream for a moment (jail/run-jail.ts streamExposed): the jail's own launch
// chain — bubblewrap in the jail's namespace before it dropped the descriptor, and the `hkb-stream` shell
// before it became the program — at the look that first sees it within the launch, never at a later one; and only that
// shell's own line counts as the chain (a version manager's `sh` shim does not).
import { describe, expect, it } from "vitest";
import { isStreamShim, streamShim } from "../../src/jail/jail.js";
import { Sightings } from "../../src/jail/run-jail.js";

const cmdline = (...argv: string[]) => `${argv.join("\0")}\0`;

describe("the stream's launch chain", () => {
  it("the jail's own stream shell is recognised by its whole line; a look-alike is not", () => {
    expect(isStreamShim(cmdline("/bin/sh", "-c", streamShim(4), "hkb-stream", "/usr/bin/node", "cli.js"))).toBe(true);
    expect(isStreamShim(cmdline("/bin/sh", "-c", streamShim(3), "hkb-stream"))).toBe(true);
    // a version manager's shim, the same shell running a script
    expect(isStreamShim(cmdline("/bin/sh", "/home/u/.asdf/shims/node", "cli.js"))).toBe(false);
    // the line with something added, another name, mismatched descriptors, a missing -c
    expect(isStreamShim(cmdline("/bin/sh", "-c", `${streamShim(4)}; cat`, "hkb-stream"))).toBe(false);
    expect(isStreamShim(cmdline("/bin/sh", "-c", streamShim(4), "other"))).toBe(false);
    expect(isStreamShim(cmdline("/bin/sh", "-c", 'exec 1>&4 5>&-; exec "$@"', "hkb-stream"))).toBe(false);
    expect(isStreamShim(cmdline("/bin/sh", "-x", streamShim(4), "hkb-stream"))).toBe(false);
    expect(isStreamShim("")).toBe(false);
  });

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
