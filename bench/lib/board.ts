// The board a benchmark runs on: the bundled emulator (its own call log) or a real Hermes CLI given as
// `--hermes "<argv>"`. The naive bridge's calls are logged by the emulator or, on the real CLI, by the
// logged-hermes.mjs wrapper (its wall times include that wrapper's Node start); the bridge logs its own
// calls as it saw them (HKB_CALL_LOG), so its call server is measured as it runs. `label` is what the
// results record as the board measured.
import { join, resolve } from "node:path";
import { splitCommand } from "../../src/config/command.js";
import { runProcess } from "../../src/process/runner.js";

export interface BenchBoard {
  label: string;
  /** argv that stands for `hermes` (both bridges call it). */
  command: string[];
  /** Env for a CLI call of a side whose calls go to `log`. */
  callEnv(log: string): Record<string, string>;
  /** What the bridge runs as `hermes` (the real argv: its call server needs the Python launcher); it logs its own calls (HKB_CALL_LOG). */
  bridgeCommand: string[];
}

const ROOT = resolve(".");

export async function benchBoard(hermes: string | undefined, base: Record<string, string>): Promise<BenchBoard> {
  if (!hermes) {
    return {
      label: "emulator",
      command: [process.execPath, join(ROOT, "dist", "emulator", "bin.js")],
      callEnv: (log) => ({ HERMES_EMULATOR_CALL_LOG: log }),
      bridgeCommand: [process.execPath, join(ROOT, "dist", "emulator", "bin.js")],
    };
  }
  const real = splitCommand(hermes);
  const v = await runProcess({ argv: [...real, "--version"], env: base, timeoutMs: 60_000 });
  if (v.exitCode !== 0) throw new Error(`--hermes ${hermes}: \`--version\` exited ${v.exitCode}: ${v.stderr.slice(-300)}`);
  return {
    label: v.stdout.trim().split("\n")[0] ?? "hermes",
    command: [process.execPath, join(ROOT, "bench", "lib", "logged-hermes.mjs")],
    callEnv: (log) => ({ BENCH_HERMES: JSON.stringify(real), BENCH_CALL_LOG: log }),
    bridgeCommand: real,
  };
}
