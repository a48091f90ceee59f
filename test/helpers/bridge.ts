// Runs the real daemon (in-process) against an emulator board with the fixture agent.
import { join, resolve } from "node:path";
import { loadConfig, preflight } from "../../src/agents/kinds.js";
import type { Config, Protocol } from "../../src/config/schema.js";
import { type Built, build } from "../../src/daemon/build.js";
import { Daemon } from "../../src/daemon/daemon.js";
import { silentLogger } from "../../src/log/logger.js";
import type { RunReport } from "../../src/run/task-run.js";
import type { Emu } from "./emulator.js";
import { SeatMonitor } from "./monitor.js";

export const AGENT = resolve("test/fixtures/agents/agent.mjs");
export const SEAT = "test-seat";

export interface BridgeOptions {
  seat?: string;
  stateName?: string;
  once?: boolean;
  faults?: string;
  /** Extra env for every hermes call (e.g. HERMES_EMULATOR_COMPAT). */
  hermesEnv?: Record<string, string>;
  base?: Record<string, unknown>;
  env?: Record<string, string>;
  /** The protocol's own timings, shorter (config/schema.ts Protocol). */
  protocol?: Partial<Protocol>;
}

export interface Bridge {
  daemon: Daemon;
  built: Built;
  config: Config;
  reports: RunReport[];
  /** The seat's events, from its start (monitor.ts): what tests await. */
  monitor: SeatMonitor;
}

export function bridgeConfig(emu: Emu, o: BridgeOptions = {}): Config {
  return loadConfig({
    env: o.env ?? {},
    ...(o.protocol ? { protocol: o.protocol } : {}),
    base: {
      boards: [emu.slug],
      assignee: o.seat ?? SEAT,
      hermes: {
        command: emu.command,
        home: emu.home,
        // The emulator speaks the call-server protocol: calls in one process (parity with plain
        // processes: test/contract/emulator-board.test.ts); real Hermes picks its own (auto).
        callServer: emu.real ? "auto" : "on",
        env: { ...emu.extraEnv, ...(o.faults ? { HERMES_EMULATOR_FAULTS: o.faults } : {}), ...(emu.real ? { HOME: emu.dir } : {}), ...(o.hermesEnv ?? {}) },
        retry: { retries: 3, minDelayMs: 20, maxDelayMs: 200, deadlineSeconds: 30 },
      },
      agent: { kind: "command", command: [process.execPath, AGENT], killGraceSeconds: 1 },
      claim: { ttlSeconds: 120, safetySeconds: 10 },
      heartbeat: { intervalSeconds: 1 },
      discovery: { watch: false, debounceMs: 20 },
      stateDir: join(emu.dir, o.stateName ?? "state"),
      shutdown: { graceSeconds: 2 },
      seat: { name: o.seat ?? SEAT },
      ...(o.base ?? {}),
    },
  });
}

export async function runBridge(emu: Emu, o: BridgeOptions = {}): Promise<Bridge> {
  const config = bridgeConfig(emu, o);
  const env = { ...process.env, ...(o.env ?? {}) };
  const built = await build(config, env, silentLogger);
  const daemon = new Daemon({ ...built, once: o.once ?? true, preflight: () => preflight(config, env) });
  const reports: RunReport[] = [];
  daemon.on("run:closed", (r) => reports.push(r));
  const monitor = new SeatMonitor(daemon);
  await daemon.start();
  return { daemon, built, config, reports, monitor };
}

/** `hermes-bridge run` arguments for the CLI as a process: the emulator board, the fixture agent, a state dir. */
export function runArgv(emu: Emu, stateDir: string, o: { once?: boolean } = {}): string[] {
  return [
    "run",
    ...(o.once ? ["--once"] : []),
    "--board",
    "bridge",
    "--assignee",
    SEAT,
    "--hermes",
    `${process.execPath} ${emu.command[1]}`,
    "--hermes-home",
    emu.home,
    "--call-server",
    "on",
    "--agent-command",
    `${process.execPath} ${AGENT}`,
    "--state-dir",
    stateDir,
  ];
}
