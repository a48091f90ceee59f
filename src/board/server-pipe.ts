// The line pipe to a call server: the server as a child of this seat (its stdin and stdout), or — for
// seats that share one per host (hub-client.ts) — a socket to the host's hub. Both end with a reason.
import { startChild } from "../process/spawn.js";
import { killGroup } from "../process/terminate.js";

export interface ServerPipe {
  /** The process at the far end, when it is this seat's own child. */
  readonly pid: number | undefined;
  write(line: string): void;
  onData(cb: (chunk: Buffer) => void): void;
  /** No more calls: the far end finishes what it has. */
  end(): void;
  /** At once: the child killed, or the socket dropped (the hub stops this seat's calls). */
  kill(): void;
  /** Why the pipe ended (the server exited, the hub went away). */
  readonly closed: Promise<string>;
}

/** The server as a child of this seat, started from `/`: nothing where the bridge runs is the server's to read. */
export function spawnPipe(argv: readonly string[], env: Record<string, string>): ServerPipe {
  const [file = "", ...args] = argv;
  const started = startChild(file, args, { cwd: "/", env, stdin: "pipe", stdout: "pipe", stderr: "pipe", cleanup: true });
  const child = started.child;
  let stderr = "";
  let exited = false;
  child?.stderr?.on("data", (c: Buffer) => {
    stderr = (stderr + c.toString("utf8")).slice(-2000);
  });
  child?.stdin?.on("error", () => undefined);
  const closed = started.exit.then((e) => {
    exited = true;
    return e.spawnError
      ? `the call server could not be started: ${e.spawnError.message}`
      : `the call server exited (${e.signal ?? `code ${e.exitCode}`})${stderr.trim() ? `: ${stderr.trim().split("\n").slice(-3).join(" | ")}` : ""}`;
  });
  const pid = child?.pid;
  return {
    pid,
    write: (line) => {
      if (!exited && child?.stdin && !child.stdin.destroyed && !child.stdin.writableEnded) child.stdin.write(`${line}\n`);
    },
    onData: (cb) => {
      child?.stdout?.on("data", cb);
    },
    end: () => {
      if (child?.stdin && !child.stdin.writableEnded) child.stdin.end();
    },
    kill: () => {
      if (pid !== undefined && !exited) killGroup(pid, "SIGKILL");
    },
    closed,
  };
}
