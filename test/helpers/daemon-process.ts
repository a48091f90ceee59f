// A bridge daemon as a real process (`hermes-bridge run` against the emulator, or real Hermes), its JSON log lines
// awaited as events: for restarts, signals and the one-daemon-per-seat lock.
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { type RunResult, runProcess } from "../../src/process/runner.js";
import { AGENT, SEAT } from "./bridge.js";
import { CLI_BIN, type Emu } from "./emulator.js";

export interface Daemon {
  pid: number;
  lines: Record<string, unknown>[];
  result: Promise<RunResult>;
  waitFor(pred: (l: Record<string, unknown>) => boolean): Promise<Record<string, unknown>>;
}

const running = new Set<number>();

/** Stops every daemon this file started that is still running (a test that failed midway leaves none behind). */
export function stopDaemons(): void {
  for (const pid of running) {
    try {
      process.kill(pid, "SIGKILL");
    } catch {
      // already gone
    }
  }
  running.clear();
}

export function startDaemon(e: Emu, extra: string[] = [], configFile?: string, extraEnv: Record<string, string> = {}, agentFromConfig = false): Daemon {
  const lines: Record<string, unknown>[] = [];
  const waiters: { pred: (l: Record<string, unknown>) => boolean; resolve: (l: Record<string, unknown>) => void }[] = [];
  let pid = 0;
  const argv = [
    process.execPath,
    CLI_BIN,
    "run",
    ...(configFile ? ["--config", configFile] : []),
    "--board",
    e.slug,
    "--assignee",
    SEAT,
    "--hermes",
    e.real ? e.command.join(" ") : `${process.execPath} ${e.command[1]}`,
    "--hermes-home",
    e.home,
    "--call-server",
    e.real ? "auto" : "on",
    ...(agentFromConfig ? [] : ["--agent-command", `${process.execPath} ${AGENT}`]),
    "--state-dir",
    join(e.dir, "state"),
    "--ttl",
    "120",
    "--heartbeat-interval",
    "1",
    "--log-format",
    "json",
    ...extra,
  ];
  const result = runProcess({
    argv,
    env: { PATH: process.env.PATH ?? "", HOME: e.dir, ...extraEnv },
    onSpawn: (p) => {
      pid = p;
      running.add(p);
    },
    onStdoutLine: (raw) => {
      let l: Record<string, unknown>;
      try {
        l = JSON.parse(raw) as Record<string, unknown>;
      } catch {
        return;
      }
      lines.push(l);
      for (const w of waiters.splice(0)) {
        if (w.pred(l)) w.resolve(l);
        else waiters.push(w);
      }
    },
  });
  void result.then(() => running.delete(pid));
  return {
    get pid() {
      return pid;
    },
    lines,
    result,
    waitFor: (pred) => {
      const found = lines.find(pred);
      return found ? Promise.resolve(found) : new Promise((resolve) => waiters.push({ pred, resolve }));
    },
  };
}

export const started = (l: Record<string, unknown>) => l.msg === "agent started";

/** The run dir of the one run the daemon journals as active (it names the run's jail: jail/jail.ts). */
export function activeRunDir(e: Emu): string {
  const dir = join(e.dir, "state", "active");
  const [f] = readdirSync(dir).filter((n) => n.endsWith(".json"));
  return String((JSON.parse(readFileSync(join(dir, f ?? ""), "utf8")) as { runDir: string }).runDir);
}
