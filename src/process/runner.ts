// ProcessRunner over node:child_process: own process group, the SIGTERM → SIGKILL ladder for the
// whole group, capped capture, line callbacks, a polite stop (SIGINT) before the ladder, leftovers of
// the group reaped after an exit, and a result that says why the process ended. (Not execa: every
// feature it would add here is turned off — no buffering, no rejection, no env merge — and loading it
// cost the idle daemon ~10 MiB and each spawn a few ms; see spawn.ts.)
import { closeSync, constants, openSync } from "node:fs";
import type { Duplex } from "node:stream";
import { type Exit, startChild } from "./spawn.js";
import { LineSplitter, TailBuffer } from "./lines.js";
import { FileTailer } from "./tail.js";
import { groupMembers, killGroup, killJailMarked, signalBelow, terminateGroup } from "./terminate.js";

/** Why a process ended (the runner's part of the one list; the agent pump adds `stalled`). */
export const PROCESS_ENDS = ["exited", "timeout", "aborted", "spawn_failed"] as const;
export type TerminationReason = (typeof PROCESS_ENDS)[number];

export interface RunOptions {
  argv: readonly string[];
  cwd?: string | undefined;
  env: Record<string, string>;
  /**
   * Text written to stdin, then closed; or a channel the caller writes to and ends when it wants
   * (a held-open stdin, e.g. Claude Code's stream-json input). Without it stdin is /dev/null.
   */
  input?: string | StdinChannel | undefined;
  timeoutMs?: number | undefined;
  /** Hard stop: the ladder (SIGTERM, grace, SIGKILL) for the whole group. */
  signal?: AbortSignal | undefined;
  /** Polite stop: one `politeSignal` (default SIGINT) to the group; the hard stop may follow. */
  polite?: AbortSignal | undefined;
  politeSignal?: NodeJS.Signals;
  /** Max chars kept per stream (the tail is kept). */
  captureLimit?: number;
  killGraceMs?: number;
  onStdoutLine?: (line: string) => void;
  onStderrLine?: (line: string) => void;
  onSpawn?: (pid: number) => void;
  /** Kill the child when the bridge process exits (true for CLI calls, false for adoptable agents). */
  cleanup?: boolean;
  /** After the child exits, stop what is left of its process group (background children). */
  reapGroup?: boolean;
  /**
   * The child is a jail (bubblewrap): the polite stop and the first signal of the ladder go to the
   * process groups inside it; the jail itself is killed last (its pid namespace ends with it).
   */
  jailed?: boolean;
  /**
   * The jail's marker (jail/jail.ts): once the child is over, whatever still carries it is killed — a
   * jail stopped while it was being set up can leave its namespace init behind, under init.
   */
  jailMarker?: string | undefined;
  /**
   * Send stdout/stderr to these files instead of pipes (followed by a tailer, kept under maxBytes):
   * a child whose output is a file survives the bridge's death and can be adopted after a restart.
   */
  outputFiles?: { stdout: string; stderr: string; maxBytes: number } | undefined;
  /** Files opened read-only (never through a link) and given to the child as descriptors 3, 4, … (JailedCommand.files). */
  inheritFiles?: readonly string[] | undefined;
  /**
   * Give the child its stdout (file or pipe) on this descriptor — the one after `inheritFiles` — and the stderr's
   * target on descriptors 1 and 2 (a jail's stream, JailedCommand.streamFd: only the program inside holds it).
   */
  streamFd?: number | undefined;
  /**
   * Give the child a socket on this descriptor — the one after the stream's (or after `inheritFiles`) — whose other
   * end only this process holds, with one byte on it (a jail's lifeline, JailedCommand.lifelineFd: the jail's relay
   * starts the program once it read the byte, and ends the jail when the socket ends — once this process is gone,
   * however it ended).
   */
  lifelineFd?: number | undefined;
  /** Start the child as this host user (an agent's, jail/identity.ts); unset: the bridge's own. */
  uid?: number | undefined;
  gid?: number | undefined;
}

/** A stdin the caller keeps open: `open` gets the writer once the child runs. */
export interface StdinWriter {
  /** False when the pipe's buffer is full: wait for `onDrain` before writing more. */
  write(text: string): boolean;
  onDrain(listener: () => void): void;
  end(): void;
  readonly ended: boolean;
}

export interface StdinChannel {
  open(w: StdinWriter): void;
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
  spawnError?: Error & { code?: string };
  /** Processes of the group still alive after the exit and stopped by the runner. */
  reaped: number;
  durationMs: number;
}

export { killGroup };

export async function runProcess(opts: RunOptions): Promise<RunResult> {
  const started = performance.now();
  const [file, ...args] = opts.argv;
  if (!file) throw new TypeError("runProcess: empty argv");
  const limit = opts.captureLimit ?? 16 * 1024 * 1024;
  const out = new TailBuffer(limit);
  const err = new TailBuffer(limit);
  let reason: TerminationReason = "exited";
  let abortReason: unknown;
  let exited = false;

  // Made by the bridge in the run's fresh dir before the child starts; never through a link.
  const APPEND = constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT | constants.O_NOFOLLOW;
  const outFds: [number, number] | null = opts.outputFiles
    ? [openSync(opts.outputFiles.stdout, APPEND, 0o600), openSync(opts.outputFiles.stderr, APPEND, 0o600)]
    : null;
  const inherited = (opts.inheritFiles ?? []).map((f) => openSync(f, constants.O_RDONLY | constants.O_NOFOLLOW));
  const lifelineAt = 3 + inherited.length + (opts.streamFd === undefined ? 0 : 1);
  const misplaced =
    opts.streamFd !== undefined && opts.streamFd !== 3 + inherited.length
      ? `streamFd ${opts.streamFd} is not the descriptor after the ${inherited.length} inherited file(s)`
      : opts.lifelineFd !== undefined && opts.lifelineFd !== lifelineAt
        ? `lifelineFd ${opts.lifelineFd} is not the descriptor after the inherited files and the stream (${lifelineAt})`
        : null;
  if (misplaced) {
    for (const fd of [...(outFds ?? []), ...inherited]) closeSync(fd);
    throw new TypeError(`runProcess: ${misplaced}`);
  }
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
  // The files are followed through descriptors opened now, before the child can touch the paths.
  const tailers = opts.outputFiles
    ? [new FileTailer(opts.outputFiles.stdout, onOut, opts.outputFiles.maxBytes), new FileTailer(opts.outputFiles.stderr, onErr, opts.outputFiles.maxBytes)]
    : [];
  // A raw fd is inherited by the child: its output then never passes through the bridge.
  const stdout: number | "pipe" = outFds ? outFds[0] : "pipe";
  const stderr = outFds ? outFds[1] : "pipe";
  const own = opts.streamFd !== undefined;
  const proc = startChild(file, args, {
    cwd: opts.cwd,
    env: opts.env,
    stdin: opts.input === undefined ? "ignore" : "pipe",
    stdout: own ? (outFds ? outFds[1] : "pipe") : stdout,
    stderr,
    cleanup: opts.cleanup ?? true,
    extraFds: [...inherited, ...(own ? [stdout] : []), ...(opts.lifelineFd === undefined ? [] : ["pipe" as const])],
    uid: opts.uid,
    gid: opts.gid,
  });
  const child = proc.child;
  // With its own stream on pipes, the stream is the child's descriptor streamFd, and 1 and 2 are both stderr.
  const pipe = (i: number) => (child?.stdio[i] ?? null) as NodeJS.ReadableStream | null;
  const outPipes = own && !outFds ? [pipe(opts.streamFd ?? 0)] : [pipe(1)];
  const errPipes = own && !outFds ? [pipe(1), pipe(2)] : [pipe(2)];
  for (const fd of [...(outFds ?? []), ...inherited]) closeSync(fd);
  const pid = child?.pid;
  if (pid !== undefined) opts.onSpawn?.(pid);

  for (const t of tailers) t.start();
  // The lifeline: one byte says the bridge is there (the jail's relay starts the program once it read it); what
  // comes back is dropped, and its end closes with the jail.
  const lifeline = opts.lifelineFd === undefined ? null : (child?.stdio[opts.lifelineFd] as Duplex | null | undefined);
  lifeline?.on("error", () => undefined);
  lifeline?.write("\n");
  lifeline?.resume();
  for (const [pipes, on] of [
    [outPipes, onOut],
    [errPipes, onErr],
  ] as const)
    for (const p of pipes) {
      p?.setEncoding("utf8");
      p?.on("data", on);
    }
  if (opts.input !== undefined && child?.stdin) {
    const stdin = child.stdin;
    stdin.on("error", () => {
      /* the child may exit without reading stdin (EPIPE): not our failure */
    });
    if (typeof opts.input === "string") stdin.end(opts.input);
    else
      opts.input.open({
        write: (text) => !stdin.writableEnded && !stdin.destroyed && stdin.write(text),
        onDrain: (listener) => {
          stdin.once("drain", listener);
        },
        end: () => {
          if (!stdin.writableEnded) stdin.end();
        },
        get ended() {
          return stdin.writableEnded || stdin.destroyed;
        },
      });
  }

  const graceMs = opts.killGraceMs ?? 2000;
  let ladder: Promise<unknown> | undefined;
  const terminate = (why: TerminationReason, detail?: unknown) => {
    if (reason !== "exited" || pid === undefined || exited) return;
    reason = why;
    abortReason = detail;
    ladder = terminateGroup(pid, { graceMs, firstBelow: opts.jailed === true, gone: () => exited && groupMembers(pid).length === 0 });
  };
  const timeoutTimer = opts.timeoutMs !== undefined ? setTimeout(() => terminate("timeout"), opts.timeoutMs) : undefined;
  const onAbort = () => terminate("aborted", opts.signal?.reason);
  if (opts.signal?.aborted) onAbort();
  else opts.signal?.addEventListener("abort", onAbort, { once: true });
  const onPolite = () => {
    if (pid === undefined || exited) return;
    const signal = opts.politeSignal ?? "SIGINT";
    if (!(opts.jailed && signalBelow(pid, signal))) killGroup(pid, signal);
  };
  if (opts.polite?.aborted) onPolite();
  else opts.polite?.addEventListener("abort", onPolite, { once: true });

  try {
    const res: Exit = await proc.exit;
    exited = true;
    let reaped = 0;
    if (pid !== undefined && (opts.reapGroup || ladder)) {
      reaped = groupMembers(pid).length;
      if (reaped > 0) await terminateGroup(pid, { graceMs });
    }
    await ladder;
    if (opts.jailMarker !== undefined) killJailMarked(opts.jailMarker);
    // Output still in the pipes is read to the end (bounded: a leftover holding a pipe open is not waited for).
    await proc.drained(1000);
    for (const t of tailers) t.stop();
    outLines?.end();
    errLines?.end();
    if (res.spawnError && reason === "exited") reason = "spawn_failed";
    const result: RunResult = {
      argv: opts.argv,
      pid,
      exitCode: res.exitCode,
      signal: res.signal,
      stdout: out.toString(),
      stderr: err.toString(),
      stdoutTruncated: out.truncated,
      stdoutTotal: out.total,
      reason,
      reaped,
      durationMs: Math.round(performance.now() - started),
    };
    if ((reason as TerminationReason) === "aborted") result.abortReason = abortReason;
    if (res.spawnError) result.spawnError = res.spawnError;
    return result;
  } finally {
    exited = true;
    if (timeoutTimer) clearTimeout(timeoutTimer);
    opts.signal?.removeEventListener("abort", onAbort);
    opts.polite?.removeEventListener("abort", onPolite);
  }
}
