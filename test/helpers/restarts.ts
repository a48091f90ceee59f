// Two restarts during one task — a planned one (SIGTERM), then a crash (SIGKILL, the agent dying with it) —
// on the emulator (test/integration/restart.test.ts) and on real Hermes (test/real/operators-day.test.ts):
// the third daemon continues the task by itself; the caller checks that nothing was blocked.
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { killGroup } from "../../src/process/terminate.js";
import { SEAT } from "./bridge.js";
import { startDaemon, started } from "./daemon-process.js";
import type { Emu, ShowDoc } from "./emulator.js";
import { untilHost } from "./steering.js";

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

/**
 * The same two restarts in the middle of a shell agent's build step (test/fixtures/agents/build-step.sh, STEP:wait-file:
 * a `sleep` child holds its stdout most of the time), in the default isolation: the third daemon finishes it by itself.
 * Each cut comes after two passes of the build (its `sleep` has held the stream past the jail's launch).
 */
export async function buildStepRestarts(board: Emu, script: string, flags: string[] = ["--ttl", "900"]): Promise<{ doc: ShowDoc; exitCode: number | null }> {
  const id = await board.createTask("a build, twice cut", { assignee: SEAT, body: "STEP:wait-file" });
  const cfg = join(board.dir, "c.yaml");
  writeFileSync(cfg, `shutdown: {graceSeconds: 0}\nagent: {kind: command, command: [${JSON.stringify(script)}], killGraceSeconds: 1}\n`);
  const ws = async () => (await board.show(id)).task.workspace_path ?? "";
  const twoPasses = async () => {
    const ticks = join(await ws(), "ticks");
    const count = () => (existsSync(ticks) ? readFileSync(ticks, "utf8").split("\n").length - 1 : 0);
    const from = count();
    await untilHost("two passes of the build", () => count() >= from + 2, 30_000);
  };
  const first = startDaemon(board, flags, cfg, {}, true);
  await first.waitFor(started);
  await twoPasses();
  process.kill(first.pid, "SIGTERM");
  await first.result;
  const second = startDaemon(board, flags, cfg, {}, true);
  const agent = await second.waitFor(started);
  await twoPasses();
  process.kill(second.pid, "SIGKILL");
  killGroup(Number(agent.agent_pid), "SIGKILL");
  await second.result;
  const third = startDaemon(board, ["--once", ...flags], cfg, {}, true);
  await third.waitFor(started);
  await twoPasses();
  writeFileSync(join(await ws(), "go"), "");
  const { exitCode } = await third.result;
  return { doc: await board.show(id), exitCode };
}
