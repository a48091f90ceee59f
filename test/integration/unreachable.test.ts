// A seat whose agent cannot reach its API (issue 38 row 3): the run is stopped within agent.unreachableSeconds
// (never waiting out its deadline in a reconnect loop), the task goes back to the lane — not blocked — and the
// seat pauses until its own check gets through; then it claims again and the task completes.
import { existsSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { runBridge, SEAT } from "../helpers/bridge.js";
import { Emu } from "../helpers/emulator.js";

const FAKE = resolve("test/fixtures/agents/fake-cli.mjs");
let emu: Emu | undefined;
afterEach(() => {
  emu?.cleanup();
  emu = undefined;
});

describe.each(["codex", "claude-code"] as const)("%s: its API out of reach", (kind) => {
  it("stops the run, hands the task back (never blocked), pauses the seat until its own check gets through, then completes it", async () => {
    emu = await Emu.create();
    mkdirSync(join(emu.dir, "api"));
    const down = join(emu.dir, "api", "down");
    writeFileSync(down, "");
    const id = await emu.createTask(`${kind} unreachable`, { assignee: SEAT, body: "do the thing" });
    const b = await runBridge(emu, {
      once: false,
      env: { FAKE_CLI: kind === "codex" ? "codex" : "claude", FAKE_SCRIPT: "complete", FAKE_API_DOWN: down },
      base: {
        discovery: { watch: true, sweepSeconds: 3600, debounceMs: 20 },
        seat: { name: SEAT, unreachablePauseSeconds: 1, limitMarginSeconds: 0 },
        agent: {
          kind,
          command: [process.execPath, FAKE],
          passEnv: ["FAKE_CLI", "FAKE_SCRIPT", "FAKE_API_DOWN"],
          killGraceSeconds: 1,
          unreachableSeconds: 1,
          isolation: { mode: "auto", readOnly: [join(emu.dir, "api")] },
        },
      },
    });
    try {
      const first = await b.monitor.closed(id);
      expect(first).toMatchObject({ decision: "block", close: "applied" });
      expect(first.unreachable).toBeTruthy();
      const handed = await emu.show(id);
      expect(handed.task.status).toBe("ready");
      expect(handed.events.find((e) => e.kind === "reclaimed")?.payload?.reason).toMatch(/^environment: the agent of seat test-seat could not reach its API/);
      expect(handed.comments.at(-1)?.body).toMatch(/the agent could not reach its API, so this run was stopped and the task goes back to the lane/);
      expect(handed.comments.at(-1)?.body).toMatch(/^cause: environment$/m);
      // while the API stays out of reach, the seat's own check does not get through: it pauses again
      await b.monitor.next("seat:paused", () => true, { nth: 2 });
      expect(b.monitor.all("seat:paused")[0]?.reason).toMatch(/^the agent could not reach its API/);
      rmSync(down);
      await b.monitor.next("run:closed", (r) => r.taskId === id && r.decision === "complete", { ms: 60_000 });
      const doc = await emu.show(id);
      expect(doc.events.map((e) => e.kind)).not.toContain("blocked");
      expect(existsSync(down)).toBe(false);
    } finally {
      await b.daemon.stop();
    }
  }, 120_000);
});
