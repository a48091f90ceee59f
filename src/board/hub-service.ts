// The host's hub service (`hermes-bridge hubs`; deploy/hermes-bridge-hubs.service): it starts the hubs the
// seats of its share directory ask for (hub-start.ts), as its own children — so under systemd a hub lives in
// the service's unit, and stopping or restarting the seat that asked for it cuts no other seat's calls. It
// listens on `<share dir>/hubs.sock`; a seat sends one line, `{"op":"start","launch":{…},"env":{…}}`, and is
// told `{"event":"started","pid":n}`, then `{"event":"ended","why":…}` should the hub end while it still
// listens (a server that cannot start: what the hub said). Who may ask: whoever can enter the share directory
// — the bridge's user alone (hubDir: 0700, its own), the same trust as a seat starting the hub itself; a
// request that is not a hub of this directory (its socket and lock there, argvs and environment of strings)
// is refused. On SIGTERM the service leaves its socket: seats that need a hub while it restarts wait for it.
import { rmSync } from "node:fs";
import { type Socket, connect, createServer } from "node:net";
import { basename, dirname, join, resolve } from "node:path";
import { LineSplitter } from "../process/lines.js";
import { hubDir } from "./hub-client.js";
import { HUB_SERVICE_SOCKET, type HubLaunch, spawnHub } from "./hub-start.js";

const KEY = /^[0-9a-f]{20}\.sock$/;
const MAX_ARG = 64 * 1024;
const strings = (v: unknown): v is string[] =>
  Array.isArray(v) && v.length > 0 && v.length <= 4096 && v.every((x) => typeof x === "string" && x.length <= MAX_ARG);
const stringMap = (v: unknown): v is Record<string, string> =>
  typeof v === "object" && v !== null && !Array.isArray(v) && Object.values(v).every((x) => typeof x === "string" && x.length <= MAX_ARG);

/** A seat's request, checked: a hub of this directory, or why not. */
export function launchOf(dir: string, m: unknown): { launch: HubLaunch; env: Record<string, string> } | string {
  if (typeof m !== "object" || m === null) return "not a JSON object";
  const r = m as { op?: unknown; launch?: Record<string, unknown>; env?: unknown };
  if (r.op !== "start" || typeof r.launch !== "object" || r.launch === null) return 'not {"op":"start","launch":{…},"env":{…}}';
  const { socket, lock, server, watch, check, idleMs } = r.launch;
  if (typeof socket !== "string" || dirname(resolve(socket)) !== resolve(dir) || !KEY.test(basename(socket)))
    return `launch.socket: not a hub's socket in ${dir}`;
  if (lock !== `${socket}.lock`) return "launch.lock: not the socket's start lock";
  if (!strings(server) || !strings(watch)) return "launch.server and launch.watch: argvs of strings";
  if (check !== undefined && !strings(check)) return "launch.check: an argv of strings";
  if (typeof idleMs !== "number" || !Number.isSafeInteger(idleMs) || idleMs < 1 || idleMs > 86_400_000) return "launch.idleMs: 1 ms to a day";
  if (!stringMap(r.env)) return "env: a map of strings";
  return { launch: { socket, lock, server, watch, ...(check ? { check } : {}), idleMs }, env: r.env };
}

const answers = (path: string) =>
  new Promise<boolean>((resolve) => {
    const s = connect(path);
    s.once("connect", () => {
      s.destroy();
      resolve(true);
    });
    s.once("error", () => resolve(false));
  });

/** The board a hub is for (its watch's `--board`), for the log. */
const boardOf = (watch: readonly string[]) => watch[watch.indexOf("--board") + 1] ?? "?";

/**
 * Serves the hubs of `dir` (checked as hermes.shareDir is) until the process ends; resolves with its socket
 * once it listens. Refused when another service answers there.
 */
export async function serveHubs(dir: string, log: (line: string) => void): Promise<string> {
  const root = hubDir(dir);
  const path = join(root, HUB_SERVICE_SOCKET);
  if (await answers(path)) throw new Error(`another hub service serves ${root} (${path} answers)`);
  rmSync(path, { force: true }); // sync-io: a socket left by a service that stopped, in the hubs' own directory
  const server = createServer((sock) => serve(root, sock, log));
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(path, () => resolve());
  });
  server.on("error", (err) => log(`hub service: ${err.message}`));
  return path;
}

function serve(dir: string, sock: Socket, log: (line: string) => void): void {
  sock.on("error", () => undefined);
  const send = (m: Record<string, unknown>) => {
    if (!sock.destroyed) sock.write(`${JSON.stringify(m)}\n`);
  };
  let asked = false;
  const lines = new LineSplitter(
    (l) => {
      if (asked) return;
      asked = true;
      let m: unknown;
      try {
        m = JSON.parse(l);
      } catch {
        m = null;
      }
      const req = launchOf(dir, m);
      if (typeof req === "string") {
        log(`hub service: a request refused: ${req}`);
        send({ event: "refused", message: req });
        sock.end();
        return;
      }
      const key = basename(req.launch.socket, ".sock");
      const started = spawnHub(req.launch, req.env, (why) => {
        log(`hub ${started.child?.pid ?? "?"} (${key}, board ${boardOf(req.launch.watch)}) ended: ${why}`);
        send({ event: "ended", why });
      });
      if (started.child?.pid !== undefined) {
        log(`hub ${started.child.pid} (${key}, board ${boardOf(req.launch.watch)}) started`);
        send({ event: "started", pid: started.child.pid });
      }
    },
    8 * 1024 * 1024,
  );
  sock.on("data", (c: Buffer) => lines.pushBytes(c));
}
