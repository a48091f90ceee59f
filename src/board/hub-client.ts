// A seat's side of the host's hub (hub.mts, hermes.share: host): the hub's socket is found by what the
// seat would start — the server's argv, the watch's argv and the environment, hashed — in a 0700
// directory of the bridge's user; when none answers there, the seat starts one (hub-start.ts: through the
// host's hub service when one serves that directory, else itself, detached; either way it outlives the seat
// that started it, and ends by itself when no seat is left). A start lock keeps seats starting at once from
// starting two; should two ever run (a lock judged stale), the second's socket takes the name and the first
// ends when its seats have left.
import { createHash } from "node:crypto";
import { closeSync, lstatSync, mkdirSync, openSync, realpathSync, rmSync, statSync } from "node:fs";
import { type Socket, connect } from "node:net";
import { homedir } from "node:os";
import { dirname, isAbsolute, join, resolve } from "node:path";
import { Transient } from "../errors/board.js";
import { AsyncQueue } from "../process/queue.js";
import { systemClock } from "../time/clock.js";
import { LineSplitter } from "../process/lines.js";
import { classify } from "./classify.js";
import { parseWatchLine } from "./events.js";
import { type HubStarting, startHub } from "./hub-start.js";
import type { WatchLine } from "./port.js";
import type { ServerPipe } from "./server-pipe.js";
import { resultOf } from "./server-process.js";

export interface HubSpec {
  /** The directory of the hubs' sockets (hermes.shareDir): the bridge user's own, 0700. */
  dir: string;
  board: string;
  server: readonly string[];
  watch: readonly string[];
  /** `hermes kanban --help` as a plain process: the hub's handshake, made once for all its seats. */
  check?: readonly string[];
  env: Record<string, string>;
  /** A hub with no seat for this long ends. */
  idleMs?: number;
  /** How long a hub service's socket that refuses is waited for before the seat starts the hub itself. */
  serviceWaitMs?: number;
}

/** The longest share dir a socket path fits under: 107 bytes for `<dir>/<key>.sock.<pid>` (the hub's own name, before its rename). */
const MAX_DIR = 107 - 1 - 20 - ".sock".length - ".4194304".length;
const uidOf = () => process.getuid?.() ?? 0;

/**
 * Where the hubs' sockets are when hermes.shareDir names none: the user's runtime dir when it is the bridge
 * user's own, else its cache (`$XDG_CACHE_HOME/hermes-bridge/hubs` — the systemd unit's CacheDirectory —, else
 * `~/.cache/…`) — never a name in a directory every user can write (tmp), where another user could make it first.
 */
export function defaultShareDir(env: NodeJS.ProcessEnv): string {
  const run = env.XDG_RUNTIME_DIR;
  try {
    // sync-io: the user's runtime dir, looked at once at start (never an agent's)
    if (run && isAbsolute(run) && statSync(run).uid === uidOf()) return join(run, "hermes-bridge-hubs");
  } catch {
    // not there: the home's cache
  }
  const cache =
    env.XDG_CACHE_HOME && isAbsolute(env.XDG_CACHE_HOME) ? env.XDG_CACHE_HOME : join(env.HOME && isAbsolute(env.HOME) ? env.HOME : homedir(), ".cache");
  return join(cache, "hermes-bridge", "hubs");
}

/** Why `p` (a directory above the share dir, its real path) could be changed by another user, or null. */
function unsafeAbove(p: string, uid: number): string | null {
  const st = statSync(p); // sync-io: a directory above the share dir, read-only look
  if (st.uid !== 0 && st.uid !== uid) return `${p} belongs to uid ${st.uid}`;
  if ((st.mode & 0o022) !== 0 && (st.mode & 0o1000) === 0) return `${p} can be written by others (mode ${(st.mode & 0o777).toString(8)}, not sticky)`;
  return null;
}

/**
 * The directory of the hubs, made if missing; refused unless it is a directory of ours that no one else can
 * enter, under directories no one else can change (each above it root's or ours, written by no one else but
 * where sticky), and short enough for a socket path.
 */
export function hubDir(dir: string): string {
  if (!isAbsolute(dir)) throw new Error(`hermes.shareDir: ${dir} is not an absolute path`);
  if (Buffer.byteLength(dir) > MAX_DIR)
    throw new Error(`hermes.shareDir: ${dir} is too long for a unix socket path (${Buffer.byteLength(dir)} bytes; at most ${MAX_DIR}): name a shorter one`);
  const uid = uidOf();
  try {
    // sync-io: the hubs' own 0700 directory of the bridge user (never an agent's)
    mkdirSync(dir, { recursive: true, mode: 0o700 });
  } catch (err) {
    if ((err as { code?: string }).code === "EEXIST" || (err as { code?: string }).code === "ENOTDIR")
      throw new Error(`hermes.shareDir: ${dir} is not a directory`);
    throw new Error(`hermes.shareDir: ${dir} cannot be made: ${(err as Error).message}`, { cause: err });
  }
  // sync-io: the directories above it (their real paths), read-only looks
  for (let p = realpathSync(dirname(dir)); ; p = dirname(p)) {
    const why = unsafeAbove(p, uid);
    if (why) throw new Error(`hermes.shareDir: ${dir} is under a directory another user can change (${why}): put it under one of the bridge user's own`);
    if (p === dirname(p)) break;
  }
  // Named as it is: no link on the way (one could be turned elsewhere after this look).
  const real = realpathSync(dir); // sync-io: the same directory
  if (real !== resolve(dir)) throw new Error(`hermes.shareDir: ${dir} is reached through a symbolic link (it is ${real}): name that path`);
  const st = lstatSync(dir); // sync-io: the same directory
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
 * that makes `<socket>.lock`; the hub removes it once it listens — once its server is warm); the others wait
 * for its socket. A hub that ends before it listens (its server cannot start) fails this call with what it
 * said; a lock older than 60 s is a start that failed without a word: it is removed and the start tried again.
 */
async function reach(spec: HubSpec): Promise<Socket> {
  const starts: HubStarting[] = [];
  try {
    return await reachFrom(spec, (s) => starts.push(s));
  } finally {
    for (const s of starts) s.close();
  }
}

async function reachFrom(spec: HubSpec, started: (s: HubStarting) => void): Promise<Socket> {
  const path = hubSocket(spec);
  const lock = `${path}.lock`;
  let failed: string | null = null;
  for (let i = 0; ; i += 1) {
    try {
      return await tryConnect(path);
    } catch (err) {
      const code = (err as { code?: string }).code;
      if (code !== "ENOENT" && code !== "ECONNREFUSED") throw err;
      if (failed !== null) throw new Error(`the host's hub could not start: ${failed}`);
      if (i >= 1200) throw new Error(`no hub answered at ${path} within 60 s`, { cause: err });
    }
    if (takeLock(lock)) {
      // A hub may have named its socket (and let go of its lock) between the look above and this lock: look again.
      const there = await tryConnect(path).catch(() => null);
      if (there) {
        rmSync(lock, { force: true }); // sync-io: our own lock, in the hubs' directory
        return there;
      }
      // Left running (no cleanup at this seat's exit): the hub outlives the seat that started it.
      const launch = {
        socket: path,
        lock,
        server: spec.server,
        watch: spec.watch,
        ...(spec.check ? { check: spec.check } : {}),
        idleMs: spec.idleMs ?? 30_000,
      };
      const onEnd = (why: string) => {
        failed = why;
      };
      started(await startHub(spec.dir, launch, spec.env, onEnd, spec.serviceWaitMs !== undefined ? { serviceWaitMs: spec.serviceWaitMs } : {}));
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
      if (systemClock.now() - statSync(lock).mtimeMs > 60_000) rmSync(lock, { force: true }); // sync-io: the same lock
    } catch {
      // gone meanwhile
    }
    return false;
  }
}

/** The pipe to the hub's call server (server-process.ts speaks to it as to its own child). */
export async function hubPipe(spec: HubSpec): Promise<ServerPipe> {
  const sock = await reach(spec);
  let left = false;
  const closed = new Promise<string>((resolve) => {
    sock.once("close", () =>
      resolve(left ? "this seat left the host's hub (no answer in time)" : "the host's hub closed the connection (its call server ended, or it was stopped)"),
    );
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
    end: () => {
      left = true;
      sock.end();
    },
    // Only this seat's connection: the hub serves other seats (it stops this seat's calls in flight).
    kill: () => {
      left = true;
      sock.destroy();
    },
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
      // (the server answer's own reading: server-process.ts resultOf)
      const res = resultOf(spec.watch, { kind: "done", code: exitCode, signal: null, stdout: "", stderr, truncated: false, pid: undefined }, 0, reason);
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
