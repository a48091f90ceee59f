// How one `hermes …` call reaches the CLI: a plain process per call (the argv prefix + the call's
// arguments, the environment — through ssh on the remote command line), or the call server
// (call-server.ts). The Board port does not see which: HermesCli runs every call through a transport.
import { randomBytes } from "node:crypto";
import { hostname } from "node:os";
import { type RunResult, runProcess } from "../process/runner.js";
import { type Clock, systemClock } from "../time/index.js";
import { announcedProcess, hermesArgv, sshSplit } from "./remote.js";

export interface CallSpec {
  /** The arguments after the hermes command (`kanban --board=… verb …`). */
  args: readonly string[];
  env: Record<string, string>;
  /** What of `env` a CLI on another host must be told (ssh passes no environment). */
  remoteEnv: Record<string, string>;
  timeoutMs: number;
  captureLimit: number;
  signal?: AbortSignal | undefined;
  /**
   * The process that runs the call: its pid and the host it runs on (null: not known here) — and that host's
   * time when the process started, in epoch seconds, where it is known (here, or announced by the call server
   * or through ssh): a claim under that lock from before it was another process's with the same pid.
   */
  onSpawn?: ((pid: number, host: string | null, since?: number) => void) | undefined;
}

export type TransportMode = "process" | "server";

export interface CliTransport {
  /** How the last call went (a server transport that fell back says "process"). */
  readonly mode: TransportMode;
  run(c: CallSpec): Promise<RunResult>;
  close(): Promise<void>;
}

/** One process per call: the hermes command prefix (through ssh: quoted, the environment on the command line). */
export class ProcessTransport implements CliTransport {
  readonly mode = "process";
  /** The host a call's process runs on (null through ssh: the board host announces its own, remote.ts). */
  readonly host: string | null;

  constructor(
    private readonly command: readonly string[],
    private readonly clock: Clock = systemClock,
  ) {
    this.host = sshSplit(command) ? null : hostname();
  }

  async run(c: CallSpec): Promise<RunResult> {
    // Through ssh a call that wants its process named has the board host announce it (remote.ts): told
    // once the call is over — a cut call too, since the line is written before Hermes starts.
    const announce = this.host === null && c.onSpawn !== undefined ? randomBytes(8).toString("hex") : undefined;
    const since = Math.floor(this.clock.now() / 1000); // before the spawn: the process can do nothing earlier
    const r = await runProcess({
      argv: hermesArgv(this.command, c.args, c.remoteEnv, { announce }),
      env: c.env,
      timeoutMs: c.timeoutMs,
      captureLimit: c.captureLimit,
      signal: c.signal,
      onSpawn: (pid) => (announce ? undefined : c.onSpawn?.(pid, this.host, since)),
    });
    const said = announce ? announcedProcess(r.stderr, announce) : null;
    if (!said) return r;
    c.onSpawn?.(said.pid, said.host, said.since);
    return { ...r, stderr: said.stderr };
  }

  async close(): Promise<void> {}
}
