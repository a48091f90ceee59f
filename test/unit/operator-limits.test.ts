// What the operator of a plain-user bridge with no cgroup reads of its caps (issue 50, finding 2, looked at
// as a new operator): the per-process caps first wherever they are cut short (the fleet's 60-character
// cell), whole on a block's `limits:` line — what a cap met does to a process, and never the host's cgroup
// paths —, a `limits:` line in `status` beside `isolation:`, and a seat whose host names a long cgroup path
// (a Kubernetes pod's, twice) still readable in the fleet.
import { describe, expect, it } from "vitest";
import { renderFleet } from "../../src/cli/fleet.js";
import { statusCommand } from "../../src/cli/status.js";
import { resolveLimits } from "../../src/jail/limits.js";
import { seatFromText } from "../../src/observe/fleet.js";
import { buildSnapshot, writeStatusFile } from "../../src/observe/status.js";
import { confinementStory, limitsLine } from "../../src/run/close/close-text.js";
import { snapshotInput } from "../helpers/snapshot-input.js";
import { scratchDir } from "../helpers/tmp.js";

const caps = { mode: "rlimit" as const, memoryMiB: 256, pids: 64, tmpMiB: 2048 };
const rlimit = () => resolveLimits(caps, { PATH: "/usr/bin:/bin" }, { prlimit: "/usr/bin/prlimit" });
/** What a container in a Kubernetes pod answers when the bridge tries to make a cgroup: its path, twice. */
const POD = "/sys/fs/cgroup/memory/kubepods/burstable/pod0f3c2d1e-4b5a-4c6d-8e9f-0a1b2c3d4e5f/9f8e7d6c5b4a39281706f5e4d3c2b1a09f8e7d6c5b4a39281706f5e4d3c2b1a0";
const hostReasons = `systemd is not this host's service manager; cannot make a cgroup under ${POD} and /sys/fs/cgroup/pids/ (EACCES: permission denied, mkdir '${POD}/hkb-probe-4242')`;

const snapshot = (limits: { mode: string; why: string }) =>
  buildSnapshot(
    snapshotInput({
      pid: 999_999_999,
      who: { seat: "vm/script-1", assignee: "script-1", agent: "command", boards: ["myproj"], heartbeatSeconds: 120 },
      isolation: { mode: "bwrap", why: "bubblewrap (/usr/bin/bwrap)" },
      limits,
    }),
  );

describe("a seat capped per process (rlimit), as its operator reads it", () => {
  it("the caps come first: the fleet's cell, cut at 60 characters, still names them", async () => {
    const p = await rlimit();
    expect(p.why).toMatch(/^64 processes and threads, 256 MiB of private memory a process, no file over 2048 MiB/);
    const row = seatFromText("/state/script-1", JSON.stringify(snapshot({ mode: p.mode, why: p.why })), () => true);
    const cell = renderFleet([row], Date.UTC(2026, 11, 5)).split("\n")[2] ?? "";
    expect(cell).toMatch(/rlimit \(64 processes and threads, 256 MiB of private memory…$/);
  });

  it("a block's limits line: the seat's caps whole — what a cap met does — and none of the host's cgroup paths", async () => {
    const p = await rlimit();
    // the host's reasons, as `auto` would add them on a pod (the card must not carry them)
    const policy = { mode: "bwrap", why: "bubblewrap", limits: { ...p, why: `${p.why} (${hostReasons})` } };
    const story = confinementStory(policy);
    expect(story.limits).toBeDefined();
    const line = limitsLine(story.limits ?? { mode: "", why: "" });
    expect(line).toMatch(/^limits: rlimit — this seat caps each process of its runs, not the run: 64 processes and threads, 256 MiB/);
    // a shell that cannot fork exits 2 "without an outcome": the line says why that can be the cap
    expect(line).toContain("a cap met is refused to the process (its fork or allocation fails), not measured: the run is not blocked naming it");
    expect(line).toMatch(/\(why no cgroup: hermes-bridge doctor on the seat's host\)$/);
    expect(line).not.toContain("/sys/fs/cgroup");
    // a block of a run that never started says nothing false: the seat's caps, not "the run was capped"
    expect(line).not.toMatch(/the run was (not )?capped/);
  });

  it("status prints a limits line beside isolation, with the caps", async () => {
    const p = await rlimit();
    const dir = scratchDir("hkb-op-status-");
    writeStatusFile(dir, snapshot({ mode: p.mode, why: p.why }));
    let text = "";
    expect(await statusCommand({ flags: { "state-dir": dir, board: "myproj" } }, {}, (t) => (text += t))).toBe(0);
    expect(text).toMatch(/^isolation: bwrap$/m);
    expect(text).toMatch(/^limits: rlimit — weaker, per process: 64 processes and threads, 256 MiB of private memory a process/m);
  });

  it("a host whose cgroup path is long (a pod's, named twice) leaves the seat readable in the fleet, its why cut by the writer", async () => {
    const p = await rlimit();
    const long = { mode: p.mode, why: `${p.why} (${hostReasons})` };
    expect(long.why.length).toBeGreaterThan(800);
    const row = seatFromText("/state/script-1", JSON.stringify(snapshot(long)), () => true);
    expect(row.state).toBe("idle");
    expect(row.limits).toMatch(/^rlimit \(64 processes/);
    // whatever the host says, what the writer keeps is what a reader takes
    const huge = snapshot({ mode: "rlimit", why: `${p.why} ${"(and more) ".repeat(400)}` });
    expect(huge.seat.limits?.why.length).toBeLessThanOrEqual(2000);
    expect(seatFromText("/state/x", JSON.stringify(huge), () => true).state).toBe("idle");
  });
});
