// The host's hub for one board (hermes.share: host): one call server and one `watch` for all the seats of
// this host that name the same board, hermes command and environment — instead of a server and a watch
// per seat. A seat connects over a unix socket in a 0700 directory of its user (hub-client.ts) and speaks
// the call server's own protocol (server-process.ts): its calls are relayed under ids of the hub's own and
// answered to it alone; `{"op":"watch","assignee":…}` subscribes it to the lines of its assignee. What one
// seat does never reaches another: a seat that goes away has its calls in flight stopped (a call its seat
// gave up on cannot take effect later), and a seat's crash is only its socket closing. The hub ends when
// its server ends (a stale install, a crash: every seat sees the socket close and starts another hub), or
// after `idleMs` with no seat. The environment is the server's (the CLI's, without a fence).
//   node hub.mjs '{"socket":…,"lock":…,"server":[argv],"watch":[argv],"idleMs":n}'
import { renameSync, rmSync, statSync } from "node:fs";
import { type Socket, createServer } from "node:net";
import { LineSplitter } from "../process/lines.js";
import { runProcess } from "../process/runner.js";
import { parseWatchLine } from "./events.js";
import { spawnPipe } from "./server-pipe.js";
import { ServerProcess } from "./server-process.js";

interface Spec {
  socket: string;
  /** The start lock of the seat that started this hub: removed once the socket is there. */
  lock: string;
  server: string[];
  watch: string[];
  idleMs: number;
}
interface Seat {
  sock: Socket;
  /** The seat's call id → the hub's id of it at the server. */
  calls: Map<number, number>;
  watch: string | null;
}

process.on("SIGUSR1", () => undefined);
const spec = JSON.parse(process.argv[2] ?? "{}") as Spec;
const env = Object.fromEntries(Object.entries(process.env).filter((e): e is [string, string] => e[1] !== undefined));
const seats = new Set<Seat>();
let ending = false;
let idle: NodeJS.Timeout | undefined;
let ready = false;
let banner: string | null = null;
let watchStop: AbortController | null = null;

const send = (s: Seat, m: Record<string, unknown>) => {
  if (!s.sock.destroyed) s.sock.write(`${JSON.stringify(m)}\n`);
};
const b64 = (t: string) => Buffer.from(t, "utf8").toString("base64");

const server = new ServerProcess(spawnPipe(spec.server, env), (why) => end(why));
server.ready.then(
  () => {
    ready = true;
    for (const s of seats) send(s, { event: "ready", host: server.host, pid: process.pid });
  },
  () => undefined,
);

function call(s: Seat, m: { id: number; argv?: string[]; env?: Record<string, string>; inherit?: boolean; cap?: number }): void {
  const { id: hid, answer } = server.call(m.argv ?? [], { vars: m.env ?? {}, inherit: m.inherit === true }, m.cap ?? 16 * 1024 * 1024, (pid) =>
    send(s, { id: m.id, event: "started", pid }),
  );
  s.calls.set(m.id, hid);
  void answer.then((a) => {
    s.calls.delete(m.id);
    if (a.kind === "done")
      send(s, { id: m.id, event: "done", code: a.code, signal: a.signal, stdout: b64(a.stdout), stderr: b64(a.stderr), truncated: a.truncated });
    else if (a.kind === "stale") send(s, { id: m.id, event: "stale" });
    // failed: the server is gone, and the hub with it (end): the seat sees its socket close.
  });
}

function onLine(s: Seat, line: string): void {
  if (!line.trim()) return;
  let m: Record<string, unknown>;
  try {
    m = JSON.parse(line) as Record<string, unknown>;
  } catch {
    send(s, { event: "error", message: "not a JSON request" });
    return;
  }
  if (typeof m.id === "number" && m.op === "kill") {
    const hid = s.calls.get(m.id);
    if (hid !== undefined) server.kill(hid);
  } else if (m.op === "watch" && typeof m.assignee === "string") {
    s.watch = m.assignee.toLowerCase();
    if (banner !== null) send(s, { event: "watch", line: banner });
    startWatch();
  } else if (typeof m.id === "number") call(s, m as { id: number });
  else send(s, { event: "error", message: "not a request of the protocol" });
}

/** One `watch` of the whole board; each line goes to the seats of its assignee (the banner to all). */
function startWatch(): void {
  if (watchStop || ending) return;
  const stop = new AbortController();
  watchStop = stop;
  void runProcess({
    argv: spec.watch,
    env,
    signal: stop.signal,
    captureLimit: 64 * 1024,
    killGraceMs: 1000,
    onStdoutLine: (line) => {
      if (line.trim() === "") return;
      const who = parseWatchLine(line).event?.assignee?.toLowerCase() ?? null;
      if (who === null) banner = line;
      for (const s of seats) if (s.watch !== null && (who === null || who === s.watch)) send(s, { event: "watch", line });
    },
  }).then((r) => {
    watchStop = null;
    banner = null;
    for (const s of seats)
      if (s.watch !== null) {
        s.watch = null;
        send(s, { event: "watch-end", code: r.exitCode, reason: r.reason, stderr: b64(r.stderr.slice(-4000)) });
      }
  });
}

function stopWatchIfUnwatched(): void {
  if ([...seats].every((s) => s.watch === null)) watchStop?.abort(new Error("no seat watches"));
}

function leave(s: Seat): void {
  if (!seats.delete(s)) return;
  for (const hid of s.calls.values()) server.kill(hid);
  s.calls.clear();
  stopWatchIfUnwatched();
  armIdle();
}

function armIdle(): void {
  clearTimeout(idle);
  if (seats.size === 0 && !ending) idle = setTimeout(() => end("idle"), spec.idleMs);
}

const listener = createServer((sock) => {
  clearTimeout(idle);
  const s: Seat = { sock, calls: new Map(), watch: null };
  seats.add(s);
  const lines = new LineSplitter((l) => onLine(s, l), 512 * 1024 * 1024);
  sock.on("data", (c: Buffer) => lines.pushBytes(c));
  sock.on("error", () => leave(s));
  sock.on("close", () => leave(s));
  if (ready) send(s, { event: "ready", host: server.host, pid: process.pid });
});

// Bound beside the name, then moved onto it: a seat never connects to a half-made socket.
const own = `${spec.socket}.${process.pid}`;
let ino = -1;
listener.listen(own, () => {
  renameSync(own, spec.socket);
  ino = statSync(spec.socket).ino;
  rmSync(spec.lock, { force: true });
  armIdle();
});
listener.on("error", (err) => end(`the hub's socket: ${err.message}`));

function end(why: string): void {
  if (ending) return;
  ending = true;
  clearTimeout(idle);
  listener.close();
  try {
    if (ino !== -1 && statSync(spec.socket).ino === ino) rmSync(spec.socket);
  } catch {
    // already gone, or another hub's now
  }
  watchStop?.abort(new Error(why));
  server.stop();
  for (const s of seats) s.sock.destroy();
}
process.on("SIGTERM", () => end("SIGTERM"));
