// The stop ladder reaches what left the group: a child in a session of its own (a bubblewrap jail's
// `--new-session`) whose leader dies at the first signal is still stopped, never left under init.
import { spawn } from "node:child_process";
import { describe, expect, it } from "vitest";
import { groupMembers, groupsBelow, terminateGroup } from "../../src/process/terminate.js";
import { alive } from "../helpers/steering.js";

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
