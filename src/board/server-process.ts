// One running call server (callserver/hermes_callserver.py, or the emulator's `--call-server`): its
// process, the JSON-lines protocol, and the calls in flight. A call is sent with an id; the server
// announces the pid of the process that runs it before it runs, then answers exit code and output.
// Anything the server says that is not the protocol, or its death, fails the calls in flight. The server is
// at the end of a pipe: its own child, or the host's hub shared by the seats of one board (hub.mts).
import { LineSplitter } from "../process/lines.js";
import type { RunResult } from "../process/runner.js";
import type { ServerPipe } from "./server-pipe.js";

interface Pending {
  args: readonly string[];
  started: number;
  onStarted: (pid: number, since?: number) => void;
  resolve: (r: ServerAnswer) => void;
}

export type ServerAnswer =
  | { kind: "done"; code: number | null; signal: string | null; stdout: string; stderr: string; truncated: boolean; pid: number | undefined }
  | { kind: "stale" }
  | { kind: "failed"; why: string; pid: number | undefined };

export class ServerProcess {
  private readonly pending = new Map<number, Pending & { pid?: number }>();
  private next = 1;
  private exited = false;
  host: string | null = null;
  /** What the launcher exec'd instead of running in the server's interpreter (a lazy install re-executing), as its `ready` said. */
  reexec: string | null = null;
  /** The hub's handshake, made once for its seats (`kanban --help` through its server and as a plain process); null: none said. */
  handshake: "same" | "differs" | null = null;
  readonly ready: Promise<void>;
  private readyResolve!: () => void;
  private readyReject!: (e: Error) => void;
  readonly pid: number | undefined;
  /** Settles once the pipe has ended (the server is gone). */
  readonly closed: Promise<void>;

  /** A server at the end of `pipe`: a child of this seat (server-pipe.ts), or the host's hub (hub-client.ts). */
  constructor(
    private readonly pipe: ServerPipe,
    onDeath: (why: string) => void,
  ) {
    this.ready = new Promise<void>((resolve, reject) => {
      this.readyResolve = resolve;
      this.readyReject = reject;
    });
    this.ready.catch(() => undefined);
    this.pid = pipe.pid;
    // An answer carries up to a call's capture cap (64 MiB), base64: well below V8's longest string.
    const lines = new LineSplitter((l) => this.onLine(l), 256 * 1024 * 1024);
    pipe.onData((c) => lines.pushBytes(c));
    this.closed = pipe.closed.then((why) => {
      this.exited = true;
      this.fail(why);
      onDeath(why);
    });
  }

  get alive(): boolean {
    return !this.exited;
  }

  /** Runs a call; the answer is never a throw. */
  call(
    args: readonly string[],
    env: { vars: Record<string, string>; inherit: boolean },
    cap: number,
    onStarted: (pid: number, since?: number) => void,
  ): { id: number; answer: Promise<ServerAnswer> } {
    const id = this.next++;
    const answer = new Promise<ServerAnswer>((resolve) => {
      if (this.exited) {
        resolve({ kind: "failed", why: "the call server is not running", pid: undefined });
        return;
      }
      this.pending.set(id, { args, started: performance.now(), onStarted, resolve });
      this.pipe.write(JSON.stringify({ id, argv: args, env: env.vars, inherit: env.inherit, cap }));
    });
    return { id, answer };
  }

  /** Stops one call's process (its group). */
  kill(id: number): void {
    this.pipe.write(JSON.stringify({ id, op: "kill" }));
  }

  /** Ends the server: stdin closed (it finishes its calls), then the kill ladder if it lingers. */
  stop(force = false): void {
    if (this.exited) return;
    if (force) this.pipe.kill();
    else this.pipe.end();
    if (!force) setTimeout(() => !this.exited && this.pipe.kill(), 5000).unref();
  }

  private fail(why: string): void {
    this.readyReject(new Error(why));
    for (const [id, p] of this.pending) {
      this.pending.delete(id);
      p.resolve({ kind: "failed", why, pid: p.pid });
    }
  }

  private onLine(line: string): void {
    if (!line.trim()) return;
    let m: Record<string, unknown>;
    try {
      m = JSON.parse(line) as Record<string, unknown>;
    } catch {
      this.garbage(`the call server said something that is not the protocol: ${line.slice(0, 120)}`);
      return;
    }
    if (m.event === "ready") {
      this.host = typeof m.host === "string" ? m.host : null;
      this.reexec = typeof m.reexec === "string" ? m.reexec.slice(0, 300) : null;
      this.handshake = m.handshake === "same" || m.handshake === "differs" ? m.handshake : null;
      this.readyResolve();
      return;
    }
    const p = typeof m.id === "number" ? this.pending.get(m.id) : undefined;
    if (!p) {
      if (m.event === "error") this.garbage(`the call server refused a request: ${String(m.message)}`);
      return;
    }
    if (m.event === "started" && typeof m.pid === "number") {
      p.pid = m.pid;
      // The server's host's time when it started the call (epoch seconds), where it says one.
      p.onStarted(m.pid, typeof m.t === "number" && Number.isSafeInteger(m.t) && m.t > 0 ? m.t : undefined);
    } else if (m.event === "stale") {
      this.pending.delete(m.id as number);
      p.resolve({ kind: "stale" });
    } else if (m.event === "done") {
      this.pending.delete(m.id as number);
      const b64 = (v: unknown) => (typeof v === "string" ? Buffer.from(v, "base64").toString("utf8") : "");
      p.resolve({
        kind: "done",
        code: typeof m.code === "number" ? m.code : null,
        signal: typeof m.signal === "string" ? m.signal : null,
        stdout: b64(m.stdout),
        stderr: b64(m.stderr),
        truncated: m.truncated === true,
        pid: p.pid,
      });
    } else this.garbage(`the call server sent an unknown event: ${line.slice(0, 120)}`);
  }

  private garbage(why: string): void {
    this.fail(why);
    this.stop(true);
  }
}

/** A server answer as the process runner's result, so classify() reads it like any call's. */
export function resultOf(argv: readonly string[], a: ServerAnswer, durationMs: number, reason?: RunResult["reason"]): RunResult {
  const base = { argv, reaped: 0, durationMs, stdoutTruncated: false };
  if (a.kind === "done") {
    const why = reason ?? "exited";
    return {
      ...base,
      pid: a.pid,
      exitCode: a.code,
      signal: a.signal,
      stdout: a.stdout,
      stderr: a.stderr,
      stdoutTruncated: a.truncated,
      stdoutTotal: a.stdout.length,
      reason: why,
    };
  }
  const err: Error & { code?: string } = new Error(a.kind === "stale" ? "the call server is stale" : a.why);
  err.code = "ECALLSERVER";
  return {
    ...base,
    pid: a.kind === "failed" ? a.pid : undefined,
    exitCode: null,
    signal: null,
    stdout: "",
    stderr: "",
    stdoutTotal: 0,
    reason: "spawn_failed",
    spawnError: err,
  };
}
