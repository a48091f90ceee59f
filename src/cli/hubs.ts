// `hermes-bridge hubs`: the host's hub service (board/hub-service.ts) in the foreground — the hubs of the
// seats with hermes.share: host are started by it, not by the seat that needs one first (under systemd:
// deploy/hermes-bridge-hubs.service, its own unit). `--wait`: until a service answers there (the unit's
// ExecStartPost=, so seats ordered after it find it listening).
import { systemClock } from "../time/clock.js";
import { connect } from "node:net";
import { join } from "node:path";
import { defaultShareDir, HUB_SERVICE_SOCKET, serveHubs } from "../board/index.js";
import { ExitError } from "../errors/index.js";

const answers = (path: string) =>
  new Promise<boolean>((resolve) => {
    const s = connect(path);
    s.once("connect", () => {
      s.destroy();
      resolve(true);
    });
    s.once("error", () => resolve(false));
  });

export async function hubsCommand(
  o: { shareDir?: string | undefined; wait?: number | undefined },
  env: NodeJS.ProcessEnv = process.env,
  log: (line: string) => void = (l) => process.stderr.write(`${l}\n`),
): Promise<number> {
  const dir = o.shareDir ?? defaultShareDir(env);
  if (o.wait !== undefined) {
    const path = join(dir, HUB_SERVICE_SOCKET);
    for (const until = systemClock.now() + o.wait * 1000; !(await answers(path)); ) {
      if (systemClock.now() >= until) throw new ExitError(1, `hubs --wait: no hub service answered at ${path} within ${o.wait} s`);
      await new Promise((r) => setTimeout(r, 100));
    }
    return 0;
  }
  let socket: string;
  try {
    socket = await serveHubs(dir, log);
  } catch (err) {
    throw new ExitError(1, `hubs: ${(err as Error).message}`, { cause: err });
  }
  log(`hub service: serving the hubs of ${dir} (${socket}); seats with hermes.share: host and this share dir start theirs here`);
  // Until SIGTERM or SIGINT; the socket is left for the next start (seats wait for it meanwhile).
  await new Promise<void>((resolve) => {
    process.once("SIGTERM", () => resolve());
    process.once("SIGINT", () => resolve());
  });
  log("hub service: stopped (its hubs end with its unit, or once no seat is left)");
  return 0;
}
