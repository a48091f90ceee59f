// A seat whose start fails says why where an operator looks (issue 49): `run` refuses to start a seat whose
// denyHosts denies a host its API needs — with the same words as `doctor`'s network check — and the fleet
// row of that seat is `start failed` with the reason until a start gets through.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { localSeats } from "../../src/observe/fleet.js";
import { runProcess } from "../../src/process/runner.js";
import { AGENT } from "../helpers/bridge.js";
import { CLI_BIN, Emu } from "../helpers/emulator.js";

let emu: Emu | undefined;
afterEach(() => {
  emu?.cleanup();
  emu = undefined;
});

const NEEDED = "agent.isolation.denyHosts.0: denies api.anthropic.com:443, which this seat needs (the agent kind's API";

describe("a seat whose start fails", () => {
  it("doctor and run give one verdict on a denied host the seat needs; the fleet shows the seat's start failed, with why, until a start gets through", async () => {
    const e = await Emu.create();
    emu = e;
    const root = join(e.dir, "seats");
    const stateDir = join(root, "seat-1");
    const base = { boards: [e.slug], assignee: "seat-1", stateDir, hermes: { command: e.command, home: e.home, callServer: "on" } };
    const file = join(e.dir, "seat-1.yaml");
    const write = (agent: Record<string, unknown>) => writeFileSync(file, JSON.stringify({ ...base, agent }), { mode: 0o600 });
    write({ kind: "claude-code", command: ["/bin/false"], passEnv: ["ANTHROPIC_API_KEY"], isolation: { denyHosts: ["api.anthropic.com"] } });
    const env = { PATH: process.env.PATH ?? "", HOME: e.dir, ANTHROPIC_API_KEY: "sk-ant-test-0123456789" };
    const cli = (args: string[]) => runProcess({ argv: [process.execPath, CLI_BIN, ...args], env, cwd: e.dir, timeoutMs: 60_000 });
    const doctor = await cli(["doctor", "--config", file]);
    expect(doctor.exitCode).toBe(1);
    expect(doctor.stdout).toMatch(/network\s+FAIL/);
    expect(doctor.stdout).toContain(NEEDED);
    const run = await cli(["run", "--once", "--config", file]);
    expect(run.exitCode).not.toBe(0);
    expect(run.stderr).toContain(NEEDED);
    const [row] = await localSeats(root, Date.now());
    expect(row).toMatchObject({ source: stateDir, state: "start failed" });
    expect(row?.reason).toContain(NEEDED);
    // a start that gets through clears it (a command agent, nothing to do)
    write({ kind: "command", command: [process.execPath, AGENT] });
    const ok = await cli(["run", "--once", "--config", file]);
    expect(ok.exitCode, ok.stderr).toBe(0);
    const [after] = await localSeats(root, Date.now());
    expect(after?.state).not.toBe("start failed");
  }, 120_000);
});
