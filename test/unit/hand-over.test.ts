// A workspace handed to the agent's uid for a run comes back to its owner (a root bridge: sandbox/owner.ts),
// with nothing left that another local user could write or that runs as its owner.
import { chmodSync, chownSync, mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { handOver } from "../../src/sandbox/owner.js";

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

describe.skipIf(process.getuid?.() !== 0)("the hand-back (as root)", () => {
  it("gives back what the agent made, without o+w, setuid or a file's setgid; a shared dir's setgid stays", async () => {
    const root = mkdtempSync(join(tmpdir(), "hkb-handback-"));
    dirs.push(root);
    writeFileSync(join(root, "kept.txt"), "x");
    const back = await handOver(root, { uid: 65534, gid: 65534 });
    // what the agent's uid leaves behind
    writeFileSync(join(root, "open.sh"), "#!/bin/sh\n");
    chownSync(join(root, "open.sh"), 65534, 65534);
    chmodSync(join(root, "open.sh"), 0o6777);
    mkdirSync(join(root, "shared"));
    chownSync(join(root, "shared"), 65534, 65534);
    chmodSync(join(root, "shared"), 0o2777);
    await back.restore();
    const mode = (p: string) => statSync(join(root, p)).mode & 0o7777;
    expect(statSync(join(root, "open.sh")).uid).toBe(0);
    expect(mode("open.sh")).toBe(0o775);
    expect(mode("shared")).toBe(0o2775);
    expect(statSync(join(root, "kept.txt")).uid).toBe(0);
  });
});
