// A seat's side of the host's hub (hub.mts, hermes.share: host): the hub's socket is found by what the
// seat would start — the server's argv, the watch's argv and the environment, hashed — in a 0700
// directory of the bridge's user; when none answers there, the seat starts one (detached: it outlives
// the seat that started it, and ends by itself when no seat is left). Two seats starting at once may
// start two hubs; the second's socket replaces the first's name, and the first ends when its seats leave.
import { spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { closeSync, lstatSync, mkdirSync, openSync, rmSync, statSync } from "node:fs";
import { type Socket, connect } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { bundledFile } from "../config/paths.js";
import { Transient } from "../errors/board.js";
import { AsyncQueue } from "../process/queue.js";
import { LineSplitter } from "../process/lines.js";
import { classify } from "./classify.js";
import { parseWatchLine } from "./events.js";
import type { WatchLine } from "./port.js";
import type { ServerPipe } from "./server-pipe.js";

export interface HubSpec {
  /** The directory of the hubs' sockets (hermes.shareDir): the bridge user's own, 0700. */
  dir: string;
  board: string;
  server: readonly string[];
  watch: readonly string[];
  env: Record<string, string>;
  /** A hub with no seat for this long ends. */
  idleMs?: number;
}

/** Where the hubs' sockets are when hermes.shareDir names none: the user's runtime dir, else a dir of this uid in tmp. */
export function defaultShareDir(env: NodeJS.ProcessEnv): string {
  return env.XDG_RUNTIME_DIR ? join(env.XDG_RUNTIME_DIR, "hermes-bridge-hubs") : join(tmpdir(), `hermes-bridge-hubs-${process.getuid?.() ?? "user"}`);
}

/** The directory of the hubs, made if missing; refused unless it is a directory of ours no one else can enter. */
export function hubDir(dir: string): string {
  // sync-io: the hubs' own 0700 directory of the bridge user (never an agent's)
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const st = lstatSync(dir); // sync-io: the same directory
  const uid = process.getuid?.() ?? st.uid;
  if (!st.isDirectory()) throw new Error(`hermes.shareDir: ${dir} is not a directory`);
  if (st.uid !== uid) throw new Error(`hermes.shareDir: ${dir} belongs to uid ${st.uid}, not to the bridge's uid ${uid}`);
  if ((st.mode & 0o077) !== 0) throw new Error(`hermes.shareDir: ${dir} can be entered by others (mode ${(st.mode & 0o777).toString(8)}): make it 0700`);
  return dir;
}

export function hubSocket(spec: HubSpec): string {
  const key = createHash("sha256")
    .update(JSON.stringify({ board: spec.board, server: spec.server, watch: spec.watch, env: Object.entries(spec.env).sort() }))
    .digest("hex")
    .slice(0, 20);
  return join(hubDir(spec.dir), `${key}.sock`);
}

const tryConnect = (path: string) =>
  new Promise<Socket>((resolve, reject) => {
    const s = connect(path);
    s.once("connect", () => resolve(s));
    s.once("error", reject);
  });

/**
 * A connection to the hub of `spec`, the hub started first when none answers. One seat starts it (the one
 * that makes `<socket>.lock`; the hub removes it once it listens); the others wait for its socket. A lock
 * older than 10 s is a start that failed: it is removed and the start tried again.
 */
async function reach(spec: HubSpec): Promise<Socket> {
  const path = hubSocket(spec);
  const lock = `${path}.lock`;
  for (let i = 0; ; i += 1) {
    try {
      return await tryConnect(path);
    } catch (err) {
      const code = (err as { code?: string }).code;
      if (code !== "ENOENT" && code !== "ECONNREFUSED") throw err;
      if (i >= 300) throw new Error(`no hub answered at ${path} within 15 s`, { cause: err });
    }
    if (takeLock(lock)) {
      const spec_ = JSON.stringify({ socket: path, lock, server: spec.server, watch: spec.watch, idleMs: spec.idleMs ?? 30_000 });
      spawn(process.execPath, [bundledFile("dist", "board", "hub.mjs"), spec_], { cwd: "/", env: spec.env, detached: true, stdio: "ignore" }).unref();
    }
    await new Promise((r) => setTimeout(r, 50));
  }
}

function takeLock(lock: string): boolean {
  try {
    // sync-io: the hub's start lock, in that directory
    closeSync(openSync(lock, "wx", 0o600));
    return true;
  } catch {
    try {
      if (Date.now() - statSync(lock).mtimeMs > 10_000) rmSync(lock, { force: true }); // sync-io: the same lock
    } catch {
      // gone meanwhile
    }
    return false;
  }
}

/** The pipe to the hub's call server (server-process.ts speaks to it as to its own child). */
export async function hubPipe(spec: HubSpec): Promise<ServerPipe> {
  const sock = await reach(spec);
  const closed = new Promise<string>((resolve) => {
    sock.once("close", () => resolve("the host's hub closed the connection (its call server ended, or it was stopped)"));
  });
  sock.on("error", () => undefined);
  return {
    pid: undefined,
    write: (line) => {
      if (!sock.destroyed) sock.write(`${line}\n`);
    },
    onData: (cb) => {
      sock.on("data", cb);
    },
    end: () => sock.end(),
    // Only this seat's connection: the hub serves other seats (it stops this seat's calls in flight).
    kill: () => sock.destroy(),
    closed,
  };
}

/** The board's `watch` lines of `assignee`, through the hub (its one watch of the board). */
export async function* hubWatch(spec: HubSpec, assignee: string, signal: AbortSignal): AsyncGenerator<WatchLine> {
  const sock = await reach(spec);
  const queue = new AsyncQueue<WatchLine>();
  let end: Error | null = null;
  const lines = new LineSplitter((l) => {
    let m: Record<string, unknown>;
    try {
      m = JSON.parse(l) as Record<string, unknown>;
    } catch {
      return;
    }
    if (m.event === "watch" && typeof m.line === "string") queue.push(parseWatchLine(m.line));
    else if (m.event === "watch-end") {
      // The hub's watch ended: read as a watch of the seat's own would be (a missing board is BoardNotFound).
      const stderr = typeof m.stderr === "string" ? Buffer.from(m.stderr, "base64").toString("utf8") : "";
      const exitCode = typeof m.code === "number" ? m.code : null;
      const reason = m.reason === "timeout" || m.reason === "aborted" || m.reason === "spawn_failed" ? m.reason : "exited";
      const res = {
        argv: spec.watch,
        pid: undefined,
        exitCode,
        signal: null,
        stdout: "",
        stderr,
        stdoutTruncated: false,
        stdoutTotal: 0,
        reason,
        reaped: 0,
        durationMs: 0,
      } as const;
      end = classify(res, { verb: "watch", board: spec.board }) ?? new Transient({ verb: "watch", board: spec.board, exitCode }, "watch ended");
      sock.destroy();
    }
  }, 1024 * 1024);
  sock.on("data", (c: Buffer) => lines.pushBytes(c));
  sock.on("error", () => undefined);
  sock.once("close", () => queue.close());
  const onAbort = () => sock.destroy();
  if (signal.aborted) onAbort();
  else signal.addEventListener("abort", onAbort, { once: true });
  sock.write(`${JSON.stringify({ op: "watch", assignee })}\n`);
  try {
    yield* queue;
    if (signal.aborted) return;
    throw end ?? new Transient({ verb: "watch", board: spec.board, exitCode: null }, "the host's hub went away");
  } finally {
    signal.removeEventListener("abort", onAbort);
    sock.destroy();
  }
}
