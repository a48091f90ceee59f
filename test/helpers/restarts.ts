// Two restarts during one task — a planned one (SIGTERM), then a crash (SIGKILL, the agent dying with it) —
// on the emulator (test/integration/restart.test.ts) and on real Hermes (test/real/operators-day.test.ts):
// the third daemon continues the task by itself; the caller checks that nothing was blocked.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { killGroup } from "../../src/process/terminate.js";
import { SEAT } from "./bridge.js";
import { startDaemon, started } from "./daemon-process.js";
import type { Emu, ShowDoc } from "./emulator.js";

export async function twoRestarts(board: Emu, cfgText: string, flags: string[]): Promise<{ doc: ShowDoc; exitCode: number | null }> {
  const id = await board.createTask("twice", { assignee: SEAT, body: "MODE:wait-file" });
  const cfg = join(board.dir, "c.yaml");
  writeFileSync(cfg, cfgText);
  const first = startDaemon(board, flags, cfg);
  await first.waitFor(started);
  process.kill(first.pid, "SIGTERM");
  await first.result;
  const second = startDaemon(board, flags, cfg);
  const agent = await second.waitFor(started);
  process.kill(second.pid, "SIGKILL");
  killGroup(Number(agent.agent_pid), "SIGKILL");
  await second.result;
  const third = startDaemon(board, ["--once", ...flags], cfg);
  await third.waitFor(started);
  writeFileSync(join((await board.show(id)).task.workspace_path ?? "", "go"), "");
  const { exitCode } = await third.result;
  return { doc: await board.show(id), exitCode };
}
