// The call-server transport: `hermes kanban` calls without a Python start each (hermes.callServer).
// One server per board command, started on first use; `auto` keeps it only for a Python launcher whose
// `kanban --help` through the server is byte-equal to a plain process's. Same semantics as a process:
// the per-call timeout stops the call's own process; a server that dies, hangs or answers garbage is
// restarted, and after repeated failures the calls go back to plain processes (the mode is reported);
// an install that changed on disk makes the server stale: it is started again with the new code.
import type { RunResult } from "../process/runner.js";
import { type ServerPipe, spawnPipe } from "./server-pipe.js";
import { ServerProcess, resultOf } from "./server-process.js";
import type { CallSpec, CliTransport, TransportMode } from "./transport.js";

export interface ServerTransportOptions {
  mode: "auto" | "on";
  /** The server's argv (server-launch.ts), or null: none for this command. */
  argv: string[] | null;
  /** A call's environment goes on top of the server's own (server-launch.ts says when). */
  inherit: boolean;
  /** The server process's own environment (the CLI's, without a fence). */
  env: Record<string, string>;
  /** Through ssh: a call's environment is what `remoteEnv` says (on top of the server's own). */
  remote: boolean;
  fallback: CliTransport;
  /** Consecutive server failures after which the calls go back to plain processes. */
  maxFailures?: number;
  /** Extra time a call may take past its timeout before the server counts as hung. */
  hangGraceMs?: number;
  /** A server with no call for this long is stopped (started again on the next call). */
  idleMs?: number;
  onMode?: (mode: TransportMode, why: string) => void;
  /** The pipe to a server shared by the seats of this host (hub-client.ts); unset: the server is this seat's child. */
  open?: () => Promise<ServerPipe>;
  /** What `open` reaches, for the log (the hub's socket). */
  shared?: string;
}

export class ServerTransport implements CliTransport {
  private server: ServerProcess | null = null;
  private starting: Promise<ServerProcess | null> | null = null;
  private failures = 0;
  private fallenBack: string | null = null;
  private checked = false;
  private inFlight = 0;
  private idle: NodeJS.Timeout | undefined;

  constructor(private readonly o: ServerTransportOptions) {
    if (o.argv === null) this.fallBack(o.mode === "on" ? "no call server for this command" : "the hermes command is not a Python launcher");
  }

  get mode(): TransportMode {
    return this.fallenBack ? "process" : "server";
  }

  async run(c: CallSpec): Promise<RunResult> {
    if (this.fallenBack) return this.o.fallback.run(c);
    const server = await this.ensure(c);
    if (!server) return this.o.fallback.run(c);
    this.inFlight += 1;
    clearTimeout(this.idle);
    const r = await this.callOn(server, c).finally(() => {
      this.inFlight -= 1;
      this.armIdle();
    });
    if (r === "stale") {
      this.retire(server);
      return this.run(c);
    }
    return r;
  }

  async close(): Promise<void> {
    clearTimeout(this.idle);
    this.server?.stop();
    this.server = null;
  }

  private armIdle(): void {
    clearTimeout(this.idle);
    if (this.inFlight > 0 || !this.server) return;
    const s = this.server;
    this.idle = setTimeout(() => this.inFlight === 0 && this.retire(s), this.o.idleMs ?? 60_000);
    this.idle.unref();
  }

  private fallBack(why: string): void {
    if (this.fallenBack) return;
    this.fallenBack = why;
    this.server?.stop(true);
    this.server = null;
    this.o.onMode?.("process", why);
  }

  private failed(why: string): void {
    this.failures += 1;
    if (this.failures >= (this.o.maxFailures ?? 3)) this.fallBack(`the call server failed ${this.failures} times in a row (last: ${why})`);
  }

  private retire(s: ServerProcess): void {
    if (this.server === s) this.server = null;
    s.stop();
  }

  /** The running server, started (and checked, once) if needed; null: this call goes as a process. */
  private ensure(c: CallSpec): Promise<ServerProcess | null> {
    if (this.server?.alive) return Promise.resolve(this.server);
    this.starting ??= this.start(c).finally(() => {
      this.starting = null;
    });
    return this.starting;
  }

  private async start(c: CallSpec): Promise<ServerProcess | null> {
    const argv = this.o.argv as string[];
    let pipe: ServerPipe;
    try {
      pipe = this.o.open ? await this.o.open() : spawnPipe(argv, this.o.env);
    } catch (err) {
      this.failed(`the host's hub could not be reached: ${(err as Error).message}`);
      return null;
    }
    const s = new ServerProcess(pipe, () => {
      if (this.server === s) this.server = null;
    });
    // A hub answers `ready` as soon as a seat connects (it listens once warm); a server of this seat's own warms up first.
    const timer = setTimeout(() => s.stop(true), this.o.open ? 10_000 : 60_000);
    try {
      await s.ready;
    } catch (err) {
      this.failed((err as Error).message);
      return null;
    } finally {
      clearTimeout(timer);
    }
    if (s.reexec && this.o.mode === "auto") {
      // Hermes 0.21.6's launcher may re-exec itself into a package manager's Python on its first start: each
      // call would be a fresh interpreter behind the server, which keeps nothing warm — plain calls, said why.
      s.stop(true);
      this.fallBack(
        `the hermes launcher re-executes itself (into ${s.reexec}) instead of running in the server's Python — a lazy install; set HERMES_DISABLE_LAZY_INSTALLS=1 in hermes.env to keep the call server`,
      );
      return null;
    }
    if (!this.checked) {
      // The handshake: the same help text through the server as from a plain process — a hub's own, made once
      // for all its seats, where it made one.
      const same = s.handshake ? s.handshake === "same" : await this.handshake(s, c);
      if (!same && this.o.mode === "auto") {
        s.stop(true);
        this.fallBack("the handshake failed: `kanban --help` through the server differs from a plain process");
        return null;
      }
      this.checked = true;
      const where = this.o.open ? `; the host's hub at ${this.o.shared ?? "?"}, shared with this host's seats of the board (hermes.share: host)` : "";
      this.o.onMode?.("server", `${same ? "handshake passed" : "handshake differs (callServer: on keeps the server)"}${where}`);
    }
    this.server = s;
    return s;
  }

  private async handshake(s: ServerProcess, c: CallSpec): Promise<boolean> {
    const spec = { ...c, args: ["kanban", "--help"], signal: undefined, onSpawn: undefined };
    const [viaServer, plain] = await Promise.all([this.callOn(s, spec), this.o.fallback.run(spec)]);
    return viaServer !== "stale" && viaServer.exitCode === plain.exitCode && viaServer.stdout === plain.stdout && viaServer.stderr === plain.stderr;
  }

  private async callOn(s: ServerProcess, c: CallSpec): Promise<RunResult | "stale"> {
    const t0 = performance.now();
    const env = { vars: this.o.remote ? c.remoteEnv : c.env, inherit: this.o.inherit };
    const { id, answer } = s.call(c.args, env, c.captureLimit, (pid, since) => c.onSpawn?.(pid, s.host, since));
    let reason: RunResult["reason"] | undefined;
    let hung: NodeJS.Timeout | undefined;
    let replaced = false;
    const stopCall = (why: RunResult["reason"]) => {
      if (reason) return;
      reason = why;
      s.kill(id);
      // A server that cannot stop its own call is hung: it is replaced.
      hung = setTimeout(() => {
        replaced = true;
        this.failed("a call outlived its timeout and the kill");
        this.retire(s);
        s.stop(true);
      }, this.o.hangGraceMs ?? 5000);
    };
    const timer = setTimeout(() => stopCall("timeout"), c.timeoutMs);
    const onAbort = () => stopCall("aborted");
    if (c.signal?.aborted) onAbort();
    else c.signal?.addEventListener("abort", onAbort, { once: true });
    try {
      const a = await answer;
      if (a.kind === "stale") return "stale";
      if (a.kind === "failed") {
        if (!replaced) this.failed(a.why);
        return resultOf(c.args, a, Math.round(performance.now() - t0), reason);
      }
      this.failures = 0;
      const r = resultOf(c.args, a, Math.round(performance.now() - t0), reason);
      if (reason === "aborted") r.abortReason = c.signal?.reason;
      return r;
    } finally {
      clearTimeout(timer);
      clearTimeout(hung);
      c.signal?.removeEventListener("abort", onAbort);
    }
  }
}
