// ProcessRunner over execa: own process group, SIGTERM → grace → SIGKILL of the whole group,
// capped capture, line callbacks, and a result that says why the process ended.
import { closeSync, openSync } from "node:fs";
import { execa } from "execa";
import { LineSplitter, TailBuffer } from "./lines.js";
import { FileTailer } from "./tail.js";

export type TerminationReason = "exited" | "timeout" | "aborted" | "spawn_failed";

export interface RunOptions {
  argv: readonly string[];
  cwd?: string;
  env: Record<string, string>;
  /** Text written to stdin, then closed. Without it stdin is /dev/null. */
  input?: string;
  timeoutMs?: number;
  signal?: AbortSignal;
  /** Max chars kept per stream (the tail is kept). */
  captureLimit?: number;
  killGraceMs?: number;
  onStdoutLine?: (line: string) => void;
  onStderrLine?: (line: string) => void;
  onSpawn?: (pid: number) => void;
  /** Kill the child when the bridge process exits (true for CLI calls, false for adoptable agents). */
  cleanup?: boolean;
  /**
   * Send stdout/stderr to these files instead of pipes (followed by a tailer, kept under maxBytes):
   * a child whose output is a file survives the bridge's death and can be adopted after a restart.
   */
  outputFiles?: { stdout: string; stderr: string; maxBytes: number };
}

export interface RunResult {
  argv: readonly string[];
  pid: number | undefined;
  exitCode: number | null;
  signal: string | null;
  stdout: string;
  stderr: string;
  stdoutTruncated: boolean;
  stdoutTotal: number;
  reason: TerminationReason;
  /** The abort reason when reason = "aborted". */
  abortReason?: unknown;
  spawnError?: Error;
  durationMs: number;
}

export function killGroup(pid: number, signal: NodeJS.Signals): boolean {
  try {
    process.kill(-pid, signal);
    return true;
  } catch {
    try {
      process.kill(pid, signal);
      return true;
    } catch {
      return false;
    }
  }
}

export async function runProcess(opts: RunOptions): Promise<RunResult> {
  const started = performance.now();
  const [file, ...args] = opts.argv;
  if (!file) throw new TypeError("runProcess: empty argv");
  const limit = opts.captureLimit ?? 16 * 1024 * 1024;
  const out = new TailBuffer(limit);
  const err = new TailBuffer(limit);
  let reason: TerminationReason = "exited";
  let abortReason: unknown;

  const outFds: [number, number] | null = opts.outputFiles
    ? [openSync(opts.outputFiles.stdout, "a", 0o600), openSync(opts.outputFiles.stderr, "a", 0o600)]
    : null;
  const child = execa(file, args, {
    cwd: opts.cwd,
    env: opts.env,
    extendEnv: false,
    stdin: opts.input === undefined ? "ignore" : "pipe",
    // A raw fd is inherited by the child (execa's {file} form would still pipe through us). The
    // cast keeps execa's overloads (typed per stdio value) on the pipe variant; at run time an fd
    // simply leaves child.stdout/stderr null, which the handlers below allow.
    stdout: (outFds ? outFds[0] : "pipe") as "pipe",
    stderr: (outFds ? outFds[1] : "pipe") as "pipe",
    buffer: false,
    reject: false,
    detached: true,
    cleanup: opts.cleanup ?? true,
    encoding: "utf8",
    stripFinalNewline: false,
  });
  for (const fd of outFds ?? []) closeSync(fd);
  const pid = child.pid;
  if (pid !== undefined) opts.onSpawn?.(pid);

  const outLines = opts.onStdoutLine ? new LineSplitter(opts.onStdoutLine) : undefined;
  const errLines = opts.onStderrLine ? new LineSplitter(opts.onStderrLine) : undefined;
  const onOut = (c: string) => {
    out.push(c);
    outLines?.push(c);
  };
  const onErr = (c: string) => {
    err.push(c);
    errLines?.push(c);
  };
  const tailers = opts.outputFiles
    ? [new FileTailer(opts.outputFiles.stdout, onOut, opts.outputFiles.maxBytes), new FileTailer(opts.outputFiles.stderr, onErr, opts.outputFiles.maxBytes)]
    : [];
  for (const t of tailers) t.start();
  child.stdout?.setEncoding("utf8");
  child.stderr?.setEncoding("utf8");
  child.stdout?.on("data", onOut);
  child.stderr?.on("data", onErr);
  if (opts.input !== undefined && child.stdin) {
    child.stdin.on("error", () => {
      /* the child may exit without reading stdin (EPIPE): not our failure */
    });
    child.stdin.end(opts.input);
  }

  let killTimer: NodeJS.Timeout | undefined;
  const terminate = (why: TerminationReason, detail?: unknown) => {
    if (reason !== "exited" || pid === undefined) return;
    reason = why;
    abortReason = detail;
    killGroup(pid, "SIGTERM");
    killTimer = setTimeout(() => killGroup(pid, "SIGKILL"), opts.killGraceMs ?? 2000);
    killTimer.unref();
  };
  const timeoutTimer =
    opts.timeoutMs !== undefined ? setTimeout(() => terminate("timeout"), opts.timeoutMs) : undefined;
  const onAbort = () => terminate("aborted", opts.signal?.reason);
  if (opts.signal?.aborted) onAbort();
  else opts.signal?.addEventListener("abort", onAbort, { once: true });

  try {
    const res = await child;
    for (const t of tailers) t.stop();
    outLines?.end();
    errLines?.end();
    const spawnFailed = res.failed && res.exitCode === undefined && res.signal === undefined;
    if (spawnFailed && reason === "exited") reason = "spawn_failed";
    const result: RunResult = {
      argv: opts.argv,
      pid,
      exitCode: res.exitCode ?? null,
      signal: res.signal ?? null,
      stdout: out.toString(),
      stderr: err.toString(),
      stdoutTruncated: out.truncated,
      stdoutTotal: out.total,
      reason,
      durationMs: Math.round(performance.now() - started),
    };
    if ((reason as TerminationReason) === "aborted") result.abortReason = abortReason;
    if (spawnFailed) result.spawnError = new Error(res.shortMessage ?? res.message, { cause: res.cause });
    return result;
  } finally {
    if (timeoutTimer) clearTimeout(timeoutTimer);
    if (killTimer && reason === "exited") clearTimeout(killTimer);
    opts.signal?.removeEventListener("abort", onAbort);
  }
}
