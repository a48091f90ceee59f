// How a hub is started (hermes.share: host; hub-client.ts decides when). By the host's hub service when one
// serves the share directory (`hermes-bridge hubs`, hub-service.ts; deploy/hermes-bridge-hubs.service): the
// hub is then the service's child — under systemd in the service's unit, so stopping or restarting the seat
// that asked for it ends nothing of the other seats'. Else by the seat itself, detached: it outlives the seat,
// but not the seat's systemd unit (whose stop kills its whole control group). A service socket that is there
// and refuses (the service restarting) is waited for, up to 10 s, before the seat starts the hub itself.
import { systemClock } from "../time/clock.js";
import { type Socket, connect } from "node:net";
import { join } from "node:path";
import { bundledFile } from "../config/paths.js";
import { LineSplitter } from "../process/lines.js";
import { type Started, startChild } from "../process/spawn.js";

/** The hub service's socket, in the share directory beside the hubs' own (`<key>.sock`). */
export const HUB_SERVICE_SOCKET = "hubs.sock";

/** What a hub is started with (hub.mts reads it from its argv). */
export interface HubLaunch {
  socket: string;
  lock: string;
  server: readonly string[];
  watch: readonly string[];
  /** `hermes kanban --help` as a plain process: the handshake the hub makes once, before it takes seats. */
  check?: readonly string[];
  idleMs: number;
}

/** A hub being started: `close` lets go of what this seat holds of the start (the service's connection). */
export interface HubStarting {
  by: "service" | "seat";
  close(): void;
}

/** Starts a hub process from this process (the service's own, or a seat's without a service); `onEnd` is told why it ended. */
export function spawnHub(launch: HubLaunch, env: Record<string, string>, onEnd: (why: string) => void): Started {
  const started = startChild(process.execPath, [bundledFile("dist", "board", "hub.mjs"), JSON.stringify(launch)], {
    cwd: "/",
    env,
    stdin: "ignore",
    stdout: "ignore",
    stderr: "pipe",
    cleanup: false,
  });
  let said = "";
  started.child?.stderr?.on("data", (c: Buffer) => {
    said = (said + c.toString("utf8")).slice(-2000);
  });
  void started.exit.then((e) => onEnd(e.spawnError?.message ?? (said.trim() || `it exited (${e.signal ?? `code ${e.exitCode}`})`)));
  (started.child?.stderr as Socket | null | undefined)?.unref();
  started.child?.unref();
  return started;
}

const tryConnect = (path: string) =>
  new Promise<Socket>((resolve, reject) => {
    const s = connect(path);
    s.once("connect", () => resolve(s));
    s.once("error", reject);
  });

/** The hub service of `dir`, or null: none there (no socket), or one that has not answered for `waitMs`. */
async function service(dir: string, waitMs: number): Promise<Socket | null> {
  const path = join(dir, HUB_SERVICE_SOCKET);
  const until = systemClock.now() + waitMs;
  for (;;) {
    try {
      return await tryConnect(path);
    } catch (err) {
      // ENOENT: no service serves this directory. ECONNREFUSED: its socket is left from a service that stopped
      // (it leaves it so: a restart's seats wait for it rather than start hubs in their own units).
      if ((err as { code?: string }).code !== "ECONNREFUSED" || systemClock.now() >= until) return null;
    }
    await new Promise((r) => setTimeout(r, 100));
  }
}

/**
 * Starts the hub of `launch`: through the host's hub service when it answers, else as this seat's detached
 * child. `onEnd(why)` is told if the hub ends (a server that cannot start: what it said).
 */
export async function startHub(
  dir: string,
  launch: HubLaunch,
  env: Record<string, string>,
  onEnd: (why: string) => void,
  o: { serviceWaitMs?: number } = {},
): Promise<HubStarting> {
  const sock = await service(dir, o.serviceWaitMs ?? 10_000);
  if (!sock) {
    spawnHub(launch, env, onEnd);
    return { by: "seat", close: () => undefined };
  }
  sock.unref();
  sock.on("error", () => undefined);
  const lines = new LineSplitter((l) => {
    let m: { event?: unknown; why?: unknown; message?: unknown };
    try {
      m = JSON.parse(l) as typeof m;
    } catch {
      return;
    }
    if (m.event === "ended" && typeof m.why === "string") onEnd(m.why);
    else if (m.event === "refused") onEnd(`the host's hub service refused it: ${String(m.message)}`);
  }, 64 * 1024);
  sock.on("data", (c: Buffer) => lines.pushBytes(c));
  sock.write(`${JSON.stringify({ op: "start", launch, env })}\n`);
  return { by: "service", close: () => sock.destroy() };
}
