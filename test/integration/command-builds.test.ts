// A command agent as users run one (issue 48 row 1): a shell script whose build steps are children sharing
// its stdout — an 8-s step, a child left running in the background, a child that writes to stdout — in the
// default isolation (the jail where bubblewrap is there). A command agent's processes are all the agent: none of
// them is a "shim holding the CLI's stream" (that rule is the agent CLIs'), so each task ends done; a planned and
// a crash restart in the middle of such a build continue with no human.
import { resolve } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { probeBwrap } from "../../src/jail/policy.js";
import { runBridge, SEAT } from "../helpers/bridge.js";
import { Emu } from "../helpers/emulator.js";
import { blockedWhy } from "../helpers/jail-doors.js";
import { buildStepRestarts } from "../helpers/restarts.js";
import { stopDaemons } from "../helpers/daemon-process.js";

const SCRIPT = resolve("test/fixtures/agents/build-step.sh");
const BWRAP = (await probeBwrap("bwrap", process.env)).ok || process.env.HKB_REQUIRE_BWRAP !== undefined;

let emu: Emu | undefined;
afterEach(() => {
  stopDaemons();
  emu?.cleanup();
  emu = undefined;
});

describe("a command agent's own children are the agent", () => {
  it("an 8-s build step, a background child and a child writing to stdout: each task done, the stream never 'exposed'", async () => {
    const board = await Emu.create();
    emu = board;
    const steps = ["build", "background", "chatty"] as const;
    const ids = await Promise.all(steps.map((s) => board.createTask(`step ${s}`, { assignee: SEAT, body: `STEP:${s}` })));
    const b = await runBridge(board, { base: { concurrency: 3, agent: { kind: "command", command: [SCRIPT], killGraceSeconds: 1 } } });
    await b.daemon.done;
    for (const id of ids) {
      const d = await board.show(id);
      expect(d.task.status, `${id}: ${blockedWhy(d)}`).toBe("done");
      expect(d.runs.at(-1)?.summary).toBe("built after its build step");
      // the default isolation is what ran: the jail wherever bubblewrap is (CI requires it) — a run without one says so on its card
      if (BWRAP) expect(JSON.stringify(d.runs.at(-1)?.metadata ?? {})).not.toContain('"isolation"');
    }
    expect(b.reports.map((r) => r.decision)).toEqual(["complete", "complete", "complete"]);
  });

  it("a planned restart (SIGTERM), then a crash (SIGKILL) in the middle of a build step: it continues by itself", async () => {
    emu = await Emu.create();
    const { doc, exitCode } = await buildStepRestarts(emu, SCRIPT);
    expect(exitCode).toBe(0);
    expect(doc.task.status, blockedWhy(doc)).toBe("done");
    expect(doc.runs).toHaveLength(1);
    expect(doc.events.filter((e) => e.kind === "blocked")).toEqual([]);
  });
});
