// Starting a child in its own process group, and knowing when it is over: `exit` resolves once with
// the exit code and signal, or with the spawn error (ENOENT, EACCES, E2BIG) when it never started;
// `drained` waits (bounded) for its pipes to close, and never drops what is already in them. Children
// started with `cleanup` are stopped (their group, SIGTERM) if the bridge process exits first.
import { type ChildProcess, spawn } from "node:child_process";
import { killGroup } from "./terminate.js";

export interface Exit {
  exitCode: number | null;
  signal: string | null;
  spawnError?: Error & { code?: string };
}

export interface StartOptions {
  cwd?: string | undefined;
  env: Record<string, string>;
  stdin: "ignore" | "pipe";
  stdout: "pipe" | "ignore" | number;
  stderr: "pipe" | number;
  cleanup: boolean;
  /** Descriptors the child gets as 3, 4, … (the jail's seccomp filter; a pipe: its stream, RunOptions.streamFd). */
  extraFds?: readonly (number | "pipe")[] | undefined;
  /** Start it as this host user (the agent's, jail/identity.ts); unset: the bridge's own. */
  uid?: number | undefined;
  gid?: number | undefined;
}

export interface Started {
  /** Null when spawn threw (the error is in `exit`). */
  child: ChildProcess | null;
  exit: Promise<Exit>;
  drained(maxWaitMs: number): Promise<void>;
}

const live = new Set<number>();
let hooked = false;
function stopLiveOnExit(): void {
  if (hooked) return;
  hooked = true;
  process.once("exit", () => {
    for (const pid of live) killGroup(pid, "SIGTERM");
  });
}

export function startChild(file: string, args: readonly string[], o: StartOptions): Started {
  let child: ChildProcess;
  try {
    child = spawn(file, args, {
      cwd: o.cwd,
      env: o.env,
      stdio: [o.stdin, o.stdout, o.stderr, ...(o.extraFds ?? [])],
      detached: true,
      ...(o.uid !== undefined ? { uid: o.uid } : {}),
      ...(o.gid !== undefined ? { gid: o.gid } : {}),
    });
  } catch (err) {
    // Some failures (a bad argument, E2BIG on some platforms) throw instead of emitting 'error'.
    const e = err as Error & { code?: string };
    return { child: null, exit: Promise.resolve({ exitCode: null, signal: null, spawnError: spawnError(file, e) }), drained: async () => undefined };
  }
  const pid = child.pid;
  if (o.cleanup && pid !== undefined) {
    stopLiveOnExit();
    live.add(pid);
  }
  let closed = false;
  const close = new Promise<void>((r) =>
    child.once("close", () => {
      closed = true;
      r();
    }),
  );
  const exit = new Promise<Exit>((resolve) => {
    child.once("exit", (code, signal) => resolve({ exitCode: code, signal }));
    child.once("error", (err: Error & { code?: string }) => {
      // 'error' without a pid: the process never started. (With a pid it is a kill/IPC error: the exit follows.)
      if (child.pid === undefined) resolve({ exitCode: null, signal: null, spawnError: spawnError(file, err) });
    });
  }).finally(() => {
    if (pid !== undefined) live.delete(pid);
  });
  return {
    child,
    exit,
    drained: async (maxWaitMs) => {
      if (closed || child.pid === undefined) return;
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([close, new Promise<void>((r) => (timer = setTimeout(r, maxWaitMs)))]);
      clearTimeout(timer);
      // A timer fires before the loop's look at its descriptors: when the loop stood still past the wait (a loaded
      // machine), what the child wrote is still unread. One more turn of the loop reads it before the pipes go.
      if (!closed) await new Promise<void>((r) => setImmediate(r));
      if (!closed) for (const s of child.stdio.slice(1)) s?.destroy();
    },
  };
}

function spawnError(file: string, err: Error & { code?: string }): Error & { code?: string } {
  const e: Error & { code?: string } = new Error(`${file} could not be started: ${err.message}`, { cause: err });
  if (err.code) e.code = err.code;
  return e;
}
