// The host's own tools (setpriv, bwrap) are found whatever PATH the bridge was started with, and a uid
// switch that has no setpriv to do it is a typed error, never a `setpriv: not found` from inside the jail.
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { SetprivMissing, capped } from "../../src/jail/limits.js";
import { hostTool } from "../../src/jail/policy.js";
import { HOST_TOOL_PATH } from "../../src/process/parent-death.js";
import { resolveProgram } from "../../src/jail/program.js";

const root = mkdtempSync(join(tmpdir(), "hkb-host-tools-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));
const onHost = resolveProgram("setpriv", HOST_TOOL_PATH, "/");

describe("host tools", () => {
  it.skipIf(!onHost)("setpriv is found on the system's dirs when the bridge's PATH has none", () => {
    const narrow = join(root, "narrow-bin");
    expect(resolveProgram("setpriv", narrow, "/")).toBeNull();
    expect(hostTool("setpriv", narrow)).toBe(onHost);
    expect(hostTool("setpriv", undefined)).toBe(onHost);
  });

  it("the bridge's PATH comes first", () => {
    const own = join(root, "own");
    writeFileSync(join(root, "own-tool"), "#!/bin/sh\n");
    chmodSync(join(root, "own-tool"), 0o755);
    expect(hostTool("own-tool", `${own}:${root}`)).toBe(join(root, "own-tool"));
    expect(hostTool("no-such-tool-hkb", root)).toBeNull();
  });

  const caps = { policy: undefined, group: null, unit: "hkb-x", as: { uid: 65534, gid: 65534 }, binds: [["/a", "/b"]] as const };
  it("a uid switch after a join runs the absolute setpriv it was given", () => {
    const w = capped(["agent"], { ...caps, setpriv: "/opt/util/setpriv" });
    expect(w.argv).toContain("/opt/util/setpriv");
    expect(w.argv).not.toContain("setpriv");
    expect(w.argv.at(-1)).toBe("agent");
  });

  it("without a setpriv the switch is refused, named, before anything starts", () => {
    expect(() => capped(["agent"], { ...caps, setpriv: null })).toThrow(SetprivMissing);
    expect(() => capped(["agent"], { ...caps, setpriv: null })).toThrow(/setpriv \(util-linux\) is not installed/);
    // No switch needed: nothing is refused.
    expect(capped(["agent"], { ...caps, as: null, setpriv: null }).argv.at(-1)).toBe("agent");
  });
});
