// The stop ladder reaches what left the group: a child in a session of its own (a bubblewrap jail's
// `--new-session`) whose leader dies at the first signal is still stopped, never left under init.
import { spawn } from "node:child_process";
import { symlinkSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { groupMembers, groupsBelow, jailProcesses, jailsAndProcessesOf, killJailMarked, terminateGroup } from "../../src/process/terminate.js";
import { alive, untilHost } from "../helpers/steering.js";
import { scratchDir } from "../helpers/tmp.js";
import { probeBwrap } from "../../src/jail/policy.js";

const BWRAP = (await probeBwrap("bwrap", process.env)).ok;

describe("terminateGroup", () => {
  it("stops a new-session child whose leader died at SIGTERM", async () => {
    // The leader starts `setsid sleep` (own session and group), says its pid, and dies at SIGTERM.
    const script = `const c=require("child_process").spawn("setsid",["sleep","300"],{stdio:"ignore"});setTimeout(()=>console.log(c.pid),200);setInterval(()=>{},1000)`;
    const leader = spawn(process.execPath, ["-e", script], { detached: true, stdio: ["ignore", "pipe", "ignore"] });
    const child = await new Promise<number>((r) => leader.stdout.once("data", (d: Buffer) => r(Number(String(d).trim()))));
    const pgid = leader.pid as number;
    expect(groupsBelow(pgid).length).toBeGreaterThan(0);
    const end = await terminateGroup(pgid, { graceMs: 300 });
    expect(end).toBe("killed");
    expect(groupMembers(pgid)).toEqual([]);
    // SIGKILLed: reaped by init shortly after.
    for (let i = 0; i < 40 && alive(child); i += 1) await new Promise((r) => setTimeout(r, 50));
    expect(alive(child)).toBe(false);
  });
});

describe("a jail's leftovers, by its marker", () => {
  it("finds and kills exactly the processes whose command line names the marker, whoever their parent is", async () => {
    // Stand-ins for a jail's namespace init: the marker is in their command line as bwrap's is.
    const start = (marker: string) =>
      spawn("/bin/sh", ["-c", "sleep 300; :", "sh", "--setenv", "HKB_JAIL", marker], { detached: true, stdio: "ignore" }).pid as number;
    const mine = start("/state/runs/t_1-1-aaaa");
    const other = start("/state/runs/t_1-1-aaaabbbb");
    try {
      // (until the stand-in's shell has forked its `sleep`: between its fork and exec the child still carries
      // the shell's command line, and a look then sees two)
      const only = () => JSON.stringify(jailProcesses("/state/runs/t_1-1-aaaa")) === JSON.stringify([mine]);
      for (let i = 0; i < 80 && !only(); i += 1) await new Promise((r) => setTimeout(r, 25));
      expect(jailProcesses("/state/runs/t_1-1-aaaa")).toEqual([mine]);
      expect(killJailMarked("/state/runs/t_1-1-aaaa")).toBe(1);
      for (let i = 0; i < 40 && alive(mine); i += 1) await new Promise((r) => setTimeout(r, 25));
      expect(alive(mine)).toBe(false);
      // A marker that only starts with it is another jail's.
      expect(alive(other)).toBe(true);
      expect(killJailMarked("/state/runs/t_1-1-aaaa")).toBe(0);
    } finally {
      for (const p of [mine, other]) if (alive(p)) process.kill(-p, "SIGKILL");
    }
  });
});

describe.skipIf(!BWRAP)("the jails and a uid's processes, in one pass over /proc", () => {
  it("a jail (a real bubblewrap naming a marker) always; a process of the uid only when asked; nothing else", async () => {
    const base = scratchDir("hkb-scan-");
    symlinkSync("/bin/sh", join(base, "bwrap"));
    const marker = ["--setenv", "HKB_JAIL", "/elsewhere/runs/y"];
    const jail = spawn("bwrap", ["--dev-bind", "/", "/", ...marker, "--", "/bin/sh", "-c", "sleep 30; :"], { stdio: "ignore" });
    const fake = spawn(join(base, "bwrap"), ["-c", "sleep 30; :", "hkb", ...marker], { stdio: "ignore" });
    const root = process.getuid?.() === 0;
    const theirs = root ? spawn("/bin/sh", ["-c", "sleep 30; :"], { stdio: "ignore", uid: 65534, gid: 65534 }) : null;
    try {
      await untilHost("the processes started", () => [jail, fake, theirs].every((p) => p === null || p.pid !== undefined));
      const jails = await untilHost("the jail seen", () => {
        const j = jailsAndProcessesOf(null);
        return j.includes(jail.pid ?? -1) ? j : null;
      });
      expect(jails).not.toContain(fake.pid);
      expect(jails).not.toContain(process.pid);
      if (theirs) {
        expect(jails).not.toContain(theirs.pid);
        const both = jailsAndProcessesOf(65534);
        expect(both).toContain(jail.pid);
        expect(both).toContain(theirs.pid);
        expect(both).not.toContain(fake.pid);
      }
    } finally {
      for (const p of [jail, fake, theirs]) p?.kill("SIGKILL");
    }
  });
});
