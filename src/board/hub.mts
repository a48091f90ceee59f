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
import { type ServerAnswer, ServerProcess } from "./server-process.js";

interface Spec {
  socket: string;
  /** The start lock of the seat that started this hub: removed once the socket is there. */
  lock: string;
  server: string[];
  watch: string[];
  /** `hermes kanban --help` as a plain process (hub-client.ts): the handshake, made here once for every seat. */
  check?: string[];
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
let sawEvent = false;
let watchStop: AbortController | null = null;

const send = (s: Seat, m: Record<string, unknown>) => {
  if (!s.sock.destroyed) s.sock.write(`${JSON.stringify(m)}\n`);
};
const b64 = (t: string) => Buffer.from(t, "utf8").toString("base64");

// The server dies with the hub (hermes_callserver.py: PR_SET_PDEATHSIG), and its calls with it: a hub
// killed outright leaves no call of a seat that was told it failed to land later.
const server = new ServerProcess(spawnPipe(spec.server, { ...env, HKB_CALLSERVER_DIE_WITH_PARENT: "1", HKB_CALLSERVER_PARENT: String(process.pid) }), (why) =>
  end(why),
);
// The socket is named only once the server is warm: a seat that connects is served at once, and a server
// that cannot start ends the hub before any seat reaches it — the seat that started it reads why on its stderr.
server.ready.then(
  async () => {
    handshake = await check();
    ready = true;
    listen();
  },
  () => undefined,
);
let handshake: "same" | "differs" | null = null;

/** The call server's `kanban --help` against a plain process's: "same" is what lets a seat in `auto` use it (a plain one that hangs: 30 s, well inside the 60 s a seat waits for a hub). */
async function check(): Promise<typeof handshake> {
  if (!spec.check) return null;
  const args = ["kanban", "--help"];
  const { answer } = server.call(args, { vars: env, inherit: false }, 1024 * 1024, () => undefined);
  remember(args.join("\0"), answer);
  const [viaServer, plain] = await Promise.all([answer, runProcess({ argv: spec.check, env, captureLimit: 1024 * 1024, timeoutMs: 30_000 })]);
  const same = viaServer.kind === "done" && viaServer.code === plain.exitCode && viaServer.stdout === plain.stdout && viaServer.stderr === plain.stderr;
  return same ? "same" : "differs";
}
process.stderr.on("error", () => undefined);

// A seat asks for 64 MiB at most; an answer is its output base64, which the line to the server must hold.
const MAX_CAP = 64 * 1024 * 1024;
const strings = (v: unknown): v is string[] => Array.isArray(v) && v.every((x) => typeof x === "string");
const stringMap = (v: unknown): v is Record<string, string> =>
  typeof v === "object" && v !== null && !Array.isArray(v) && Object.values(v).every((x) => typeof x === "string");

// `--version` and a verb's `--help` say what the install is, whatever the seat: every seat of a hub reads
// them at its start (capabilities.ts), so twenty seats starting at once would fork the same nine reads twenty
// times. The first answer is every seat's; a read that did not end well is asked again by the next seat. The
// install that answered is this hub's for its life: a changed one is `stale`, and the hub ends.
const reads = new Map<string, Promise<ServerAnswer & { kind: "done" }>>();
const helpRead = (argv: string[]) => (argv.length === 1 && argv[0] === "--version") || (argv[0] === "kanban" && argv.at(-1) === "--help");
function remember(key: string, answer: Promise<ServerAnswer>): void {
  const ok = answer.then((a) => (a.kind === "done" && a.code === 0 && !a.truncated ? a : Promise.reject(new Error("not kept"))));
  reads.set(key, ok);
  ok.catch(() => reads.get(key) === ok && reads.delete(key));
}
const done = (id: number, a: ServerAnswer & { kind: "done" }) => ({
  id,
  event: "done",
  code: a.code,
  signal: a.signal,
  stdout: b64(a.stdout),
  stderr: b64(a.stderr),
  truncated: a.truncated,
});

/** A seat's call, relayed under an id of the hub's; anything not a well-formed call is refused, never passed on. */
function call(s: Seat, m: Record<string, unknown>): void {
  const id = m.id as number;
  const cap = m.cap ?? 16 * 1024 * 1024;
  if (!strings(m.argv) || (m.env !== undefined && !stringMap(m.env)) || typeof cap !== "number" || !Number.isSafeInteger(cap) || cap < 0 || cap > MAX_CAP) {
    send(s, { event: "error", message: `call ${id}: not a call of the protocol (argv: strings, env: strings, cap: an integer ≤ ${MAX_CAP})` });
    return;
  }
  if (s.calls.has(id)) {
    send(s, { event: "error", message: `call ${id}: that id is in flight already` });
    return;
  }
  const key = helpRead(m.argv) ? m.argv.join("\0") : null;
  const read = key === null ? undefined : reads.get(key);
  if (read) {
    void read.then(
      (a) => send(s, done(id, a)),
      () => seats.has(s) && call(s, m),
    );
    return;
  }
  const { id: hid, answer } = server.call(m.argv, { vars: m.env ?? {}, inherit: m.inherit === true }, cap, (pid, t) =>
    send(s, { id, event: "started", pid, ...(t !== undefined ? { t } : {}) }),
  );
  s.calls.set(id, hid);
  if (key !== null) remember(key, answer);
  void answer.then((a) => {
    s.calls.delete(id);
    if (a.kind === "done") send(s, done(id, a));
    else if (a.kind === "stale") {
      // The install changed: this hub takes no new seat (the next one starts a hub on the new code) and ends
      // once its server has finished what it has.
      unname();
      send(s, { id, event: "stale" });
    }
    // failed: the server is gone, and the hub with it (end): the seat sees its socket close.
  });
}

function onLine(s: Seat, line: string): void {
  if (!line.trim()) return;
  let m: unknown;
  try {
    m = JSON.parse(line);
  } catch {
    m = null;
  }
  if (typeof m !== "object" || m === null || Array.isArray(m)) {
    send(s, { event: "error", message: "not a JSON request" });
    return;
  }
  const r = m as Record<string, unknown>;
  const id = typeof r.id === "number" && Number.isSafeInteger(r.id) ? r.id : null;
  if (id !== null && r.op === "kill") {
    const hid = s.calls.get(id);
    if (hid !== undefined) server.kill(hid);
  } else if (r.op === "watch" && typeof r.assignee === "string" && r.assignee !== "") {
    s.watch = r.assignee.toLowerCase();
    if (banner !== null) send(s, { event: "watch", line: banner });
    startWatch();
  } else if (id !== null && r.op === undefined) call(s, r);
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
      const event = parseWatchLine(line).event;
      // Before any event: the banner, for every seat (and for one that subscribes later). After: a line goes
      // to the seats of its task's assignee only — a task of nobody's (`@-`) or not an event goes to none.
      if (event === null) {
        if (!sawEvent) {
          banner = line;
          for (const s of seats) if (s.watch !== null) send(s, { event: "watch", line });
        }
        return;
      }
      sawEvent = true;
      const who = event.assignee?.toLowerCase() ?? null;
      if (who === null) return;
      for (const s of seats) if (s.watch === who) send(s, { event: "watch", line });
    },
  }).then((r) => {
    watchStop = null;
    banner = null;
    sawEvent = false;
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

const MAX_SEATS = 512;
const listener = createServer((sock) => {
  if (seats.size >= MAX_SEATS || ending) {
    sock.destroy();
    return;
  }
  clearTimeout(idle);
  const s: Seat = { sock, calls: new Map(), watch: null };
  seats.add(s);
  // A request is a call's argv and environment: a few MiB at most (a longer line is dropped, not buffered).
  const lines = new LineSplitter((l) => onLine(s, l), 8 * 1024 * 1024);
  sock.on("data", (c: Buffer) => lines.pushBytes(c));
  sock.on("error", () => leave(s));
  sock.on("close", () => leave(s));
  if (ready) send(s, { event: "ready", host: server.host, pid: process.pid, reexec: server.reexec, handshake });
});

// Bound beside the name, then moved onto it: a seat never connects to a half-made socket.
const own = `${spec.socket}.${process.pid}`;
let ino = -1;
function listen(): void {
  if (ending) return;
  listener.listen(own, () => {
    renameSync(own, spec.socket);
    ino = statSync(spec.socket).ino;
    rmSync(spec.lock, { force: true });
    armIdle();
  });
}
listener.on("error", (err) => end(`the hub's socket: ${err.message}`));

/** The socket's name given up (the hub takes no new seat); the seats it has keep their connections. */
function unname(): void {
  if (listener.listening) listener.close();
  try {
    if (ino !== -1 && statSync(spec.socket).ino === ino) rmSync(spec.socket);
  } catch {
    // already gone, or another hub's now
  }
  ino = -1;
}

/**
 * The hub ends: its server is stopped at once — its calls with it (they die with the server) — and only
 * once it is gone are the seats let go, so no seat is told a call failed that could still land.
 */
function end(why: string): void {
  if (ending) return;
  ending = true;
  clearTimeout(idle);
  if (!ready) {
    process.stderr.write(`${why}\n`);
    rmSync(spec.lock, { force: true });
  }
  unname();
  watchStop?.abort(new Error(why));
  const release = () => {
    for (const s of seats) s.sock.destroy();
  };
  if (!server.alive) release();
  else {
    server.closed.then(release, release);
    server.stop(true);
  }
}
process.on("SIGTERM", () => end("SIGTERM"));
