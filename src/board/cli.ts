// One `hermes kanban` call: argv (argv.ts), scrubbed env with the fencing pair when a lease is given
// (env.ts), the transport (a process per call, or the call server: transport.ts, call-server.ts), the
// typed error (classify.ts), the call record for metrics, and the retry policy (retry.ts). The only
// code that starts the hermes command.
import { diesWithParent, hostSetpriv } from "../process/parent-death.js";
import { type BoardError, Transient } from "../errors/board.js";
import type { RunResult } from "../process/runner.js";
import { ServerTransport } from "./call-server.js";
import { type VerbCall, buildArgv } from "./argv.js";
import { classify } from "./classify.js";
import { type CliEnvOptions, buildCliEnv, remoteVars } from "./env.js";
import { type HubSpec, hubPipe, hubSocket, hubWatch } from "./hub-client.js";
import { OutputParseError } from "./parse.js";
import type { Fence, WatchLine } from "./port.js";
import { hermesArgv } from "./remote.js";
import { DEFAULT_RETRY, type RetryPolicy, withRetry } from "./retry.js";
import { noShareReason, serverArgv } from "./server-launch.js";
import { type CallSpec, type CliTransport, ProcessTransport, type TransportMode } from "./transport.js";
import { watchLines } from "./watch.js";

export interface CliCallRecord {
  verb: string;
  taskId: string | null;
  exitCode: number | null;
  durationMs: number;
  ok: boolean;
  transport: TransportMode;
  /** What the call failed with (typed), or null. */
  error: BoardError | null;
}

export interface HermesCliOptions {
  slug: string;
  /** argv prefix: ["hermes"], ["python3", "/opt/hermes/hermes"], ["ssh", "board-host", "hermes"]. */
  command: readonly string[];
  env: CliEnvOptions;
  /** Per call; above the CLI's own 120 s SQLite busy wait by default. */
  timeoutMs?: number;
  retry?: RetryPolicy;
  onCall?: (rec: CliCallRecord) => void;
  onRetry?: (verb: string, err: Error, attempt: number) => void;
  /** hermes.callServer: one warm server for all calls (auto: Python launchers that pass the handshake). */
  callServer?: "auto" | "on" | "off";
  /** Time a call may take past its timeout (and the kill) before the call server counts as hung. */
  hangGraceMs?: number;
  /** The transport changed mode (server started, or calls fell back to processes). */
  onTransport?: (mode: TransportMode, why: string) => void;
  /**
   * hermes.share: host — the seats of this host that name the same board, command and environment share
   * one call server and one `watch` (hub.mts), with their sockets in `dir`.
   */
  share?: { dir: string; idleMs?: number; serviceWaitMs?: number } | undefined;
  /** A transport of the caller's (the tests' emulator in this process); `command` still names the `watch` child. */
  transport?: CliTransport;
}

export class HermesCli {
  readonly slug: string;
  readonly retry: RetryPolicy;
  private readonly timeoutMs: number;
  readonly transport: CliTransport;
  /** The host's hub this seat shares (hermes.share: host), when there is a call server to share. */
  private hub: HubSpec | undefined;

  constructor(private readonly o: HermesCliOptions) {
    this.slug = o.slug;
    this.timeoutMs = o.timeoutMs ?? 150_000;
    this.retry = o.retry ?? DEFAULT_RETRY;
    const plain = new ProcessTransport(o.command);
    const mode = o.callServer ?? "off";
    const unshared = o.share && !o.transport ? noShareReason(o.command, mode, buildCliEnv(o.env).PATH) : null;
    if (unshared) o.onTransport?.("process", unshared);
    if (o.transport) this.transport = o.transport;
    else if (mode === "off") this.transport = plain;
    else {
      const env = buildCliEnv(o.env);
      const server = serverArgv(o.command, { mode, path: env.PATH, remoteEnv: remoteVars(o.env, env) });
      if (server && o.share) {
        // The seat's name (the CLI's author) is not the hub's: every call carries its own, read per call.
        const { HERMES_PROFILE: _author, ...shared } = env;
        const remote = remoteVars(o.env, shared);
        const hubServer = serverArgv(o.command, { mode, path: env.PATH, remoteEnv: remote }) ?? server;
        const watch = hermesArgv(o.command, buildArgv([], this.slug, { verb: "watch", options: [["interval", "0.1"]] }), remote);
        this.hub = {
          dir: o.share.dir,
          board: o.slug,
          server: hubServer.argv,
          watch,
          check: hermesArgv(o.command, ["kanban", "--help"], remote),
          env: shared,
          idleMs: o.share.idleMs,
          serviceWaitMs: o.share.serviceWaitMs,
        };
      }
      const hub = this.hub;
      this.transport = new ServerTransport({
        mode,
        argv: server?.argv ?? null,
        inherit: server?.inherit ?? false,
        env,
        remote: plain.host === null,
        fallback: plain,
        ...(o.hangGraceMs !== undefined ? { hangGraceMs: o.hangGraceMs } : {}),
        ...(o.onTransport ? { onMode: o.onTransport } : {}),
        ...(hub ? { open: () => hubPipe(hub), shared: hubSocket(hub) } : {}),
      });
    }
  }

  /** One call; a failure is thrown as a typed board error. */
  async run(
    call: VerbCall,
    o: { taskId?: string | undefined; fence?: Fence | undefined; signal?: AbortSignal | undefined; onSpawn?: CallSpec["onSpawn"] } = {},
  ): Promise<RunResult> {
    const spec = this.spec(buildArgv([], this.slug, call), o.fence);
    const r = await this.transport.run({ ...spec, timeoutMs: this.timeoutMs, captureLimit: 64 * 1024 * 1024, signal: o.signal, onSpawn: o.onSpawn });
    const err = classify(r, { verb: call.verb, board: this.slug, taskId: o.taskId });
    this.o.onCall?.({
      verb: call.verb,
      taskId: o.taskId ?? null,
      exitCode: r.exitCode,
      durationMs: r.durationMs,
      ok: err === null,
      transport: this.transport.mode,
      error: err,
    });
    if (err) throw err;
    return r;
  }

  /** A call outside `kanban` (e.g. `hermes --version`), unclassified. */
  raw(args: readonly string[], signal?: AbortSignal): Promise<RunResult> {
    return this.transport.run({ ...this.spec(args), timeoutMs: this.timeoutMs, captureLimit: 16 * 1024 * 1024, signal });
  }

  retrying<T>(verb: string, fn: () => Promise<T>, signal?: AbortSignal): Promise<T> {
    return withRetry(fn, this.retry, { signal, onRetry: (err, attempt) => this.o.onRetry?.(verb, err, attempt) });
  }

  /** Parses a successful call's output; output that does not parse is a transient failure. */
  parsed<T>(verb: string, taskId: string | undefined, r: RunResult, parse: () => T): T {
    try {
      return parse();
    } catch (err) {
      if (err instanceof OutputParseError)
        throw new Transient({ verb, board: this.slug, taskId, exitCode: r.exitCode, stderrTail: err.sample, cause: err }, err.message);
      throw err;
    }
  }

  /** The board's `watch` lines of `assignee`: the seat's own child, or the hub's one watch of the board. */
  watch(assignee: string, signal: AbortSignal): AsyncIterable<WatchLine> {
    if (this.hub) return hubWatch(this.hub, assignee, signal);
    return watchLines({ ...this.watchSpawn(assignee), signal, board: this.slug });
  }

  /** The watch child's argv and env, of one assignee. */
  private watchSpawn(assignee: string): { argv: string[]; env: Record<string, string> } {
    const s = this.spec(buildArgv([], this.slug, { verb: "watch", options: [["assignee", assignee]] }));
    // The watch ends with the bridge, also a SIGKILLed one (else it lives on until the next line it writes).
    const argv = hermesArgv(this.o.command, s.args, s.remoteEnv);
    const setpriv = hostSetpriv();
    return { argv: setpriv ? diesWithParent(setpriv, process.pid, argv) : argv, env: s.env };
  }

  /** A call's arguments and its scrubbed env (+ the fencing pair), and what of it a CLI on another host must be told. */
  private spec(args: readonly string[], fence?: Fence): Pick<CallSpec, "args" | "env" | "remoteEnv"> {
    const env = buildCliEnv(this.o.env, fence);
    return { args, env, remoteEnv: remoteVars(this.o.env, env) };
  }
}
