// Who creates a bench's tasks: one warm process — a call server, as the bridge runs one — like an orchestrator
// or the Hermes gateway that lives on beside the seats, at nice 10 (elsewhere in a deployment; here it takes
// what the sides leave of the two cores). Cold CLI starts (BENCH_COLD_CREATE=1, the earlier rounds' figures)
// cost ~0.6 s of CPU each on a real Hermes: a throughput section then measured how fast one process could
// create tasks one after another as much as how fast a side worked them off.
import { setPriority } from "node:os";
import { join } from "node:path";
import { HermesCli } from "../../src/board/cli.js";
import { buildCliEnv } from "../../src/board/env.js";
import { type RunResult, runProcess } from "../../src/process/runner.js";
import type { BenchBoard } from "./board.js";
import { treePids } from "./proc.js";

export type Create = (lane: string, body?: string) => Promise<RunResult>;
export interface Creator {
  create: Create;
  /** Ends its call server. */
  close(): Promise<void>;
}

/** A creator of tasks on board `bench` (its calls logged to `dir`/setup.calls), warm and niced before it returns. */
export async function warmCreator(board: BenchBoard, env: Record<string, string>, dir: string, o: { server: "auto" | "on" }): Promise<Creator> {
  const parent = { ...env, ...board.callEnv(join(dir, "setup.calls")) };
  const cli = (args: string[]) => runProcess({ argv: [...board.command, "kanban", ...args], env: parent, timeoutMs: 60_000 });
  const creator = new HermesCli({ slug: "bench", command: board.bridgeCommand, env: { parent, passEnv: [], set: {}, author: "bench" }, callServer: o.server });
  const callEnv = buildCliEnv({ parent, passEnv: [], set: {}, author: "bench" });
  const create: Create = (lane, body = "BENCH:noop") => {
    const args = ["--board=bench", "create", `--assignee=${lane}`, `--body=${body}`, "--json", "--", "bench task"];
    if (process.env.BENCH_COLD_CREATE) return cli(args);
    return creator.transport.run({ args: ["kanban", ...args], env: callEnv, remoteEnv: {}, timeoutMs: 60_000, captureLimit: 1 << 20 });
  };
  await create("nobody"); // warm before anything is measured
  const nice = Number(process.env.BENCH_CREATOR_NICE ?? 10);
  for (const pid of treePids([process.pid])) if (pid !== process.pid && !process.env.BENCH_COLD_CREATE) setPriority(pid, nice);
  return { create, close: () => creator.transport.close() };
}
