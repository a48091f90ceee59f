// The jail's doors found when it was tried again as an attacker (rows 1–12: jail-doors*.test.ts):
//  13. one process of the jail attaches to another (ptrace: a tool's child writing lines "of the CLI" into
//      the pipe the bridge reads, or reading the CLI's memory), or makes a user namespace of its own (to
//      regain capabilities over the jail's mounts) — the jail's system-call filter refuses both.
import { afterEach, describe, expect, it } from "vitest";
import { probeBwrap } from "../../src/jail/policy.js";
import { Emu } from "../helpers/emulator.js";
import { probeRun } from "../helpers/jail-doors.js";

const BWRAP = (await probeBwrap("bwrap", process.env)).ok;
let emu: Emu | undefined;
afterEach(() => {
  emu?.cleanup();
  emu = undefined;
});

/** Attaches to a child of its own (python3's ctypes: PTRACE_ATTACH) and tries `unshare -U`; prints what each answered. */
const PTRACE_AND_USERNS = [
  "sleep 30 & pid=$!",
  `python3 -c 'import ctypes, os, sys; l = ctypes.CDLL(None, use_errno=True); r = l.ptrace(16, int(sys.argv[1]), 0, 0); print("PTRACE", "attached" if r == 0 else os.strerror(ctypes.get_errno()))' "$pid"`,
  "kill -9 $pid",
  "unshare -U true 2>/dev/null && echo USERNS made || echo USERNS refused",
  "node -e 'require(\"child_process\").execFileSync(\"true\"); console.log(\"SPAWN ok\")'",
].join("\n");

describe.skipIf(!BWRAP && !process.env.HKB_REQUIRE_BWRAP)("the jail's system-call filter (row 13)", () => {
  it("row 13: no process of the jail attaches to another or makes a user namespace; ordinary children still start", async () => {
    emu = await Emu.create();
    const { doc, seen } = await probeRun(emu, PTRACE_AND_USERNS, "bwrap");
    expect(doc.task.status, seen).toBe("done");
    expect(seen).toContain("PTRACE Operation not permitted");
    expect(seen).toContain("USERNS refused");
    expect(seen).toContain("SPAWN ok");
  });

  it("row 13, control: unjailed, the same probe attaches and makes its namespace (the probe bites)", async () => {
    emu = await Emu.create();
    const { seen } = await probeRun(emu, PTRACE_AND_USERNS, "none");
    expect(seen).toContain("PTRACE attached");
    expect(seen).toContain("USERNS made");
  });
});
