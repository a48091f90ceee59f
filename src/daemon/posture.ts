// The seat's network posture, checked at start and failing closed (agent.isolation.network: proxy): one
// probe jail, through a proxy like a run's, must not reach the host's loopback directly (a listener the
// probe opens for it), must be refused a host that is not on the list (never resolved: refused on its
// name), and must be let through toward the seat's own API (a tunnel tried: an unreachable API still
// counts — the posture is what is checked; a seat with a base URL is probed there, never at its kind's
// default host). A seat whose jail breaks any of these does not start; what the proxy resolved and opened
// is in the log at debug.
import { mkdtemp, rm } from "node:fs/promises";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { JAIL_EGRESS_SOCKET, RELAY_PORT, type EgressPlan, proxyEnv } from "../egress/plan.js";
import { EgressProxy, type EgressTrace } from "../egress/proxy.js";
import { type Jail, launchOf } from "../jail/jail.js";
import { forRun } from "../jail/run-jail.js";
import type { Logger } from "../log/logger.js";
import { runProcess } from "../process/runner.js";
import { newSocketPath, removeSocketDir } from "../tools/socket-path.js";

const PROBE = `
const net = require("net"), http = require("http");
const [loopPort, allowed] = process.argv.slice(1);
const out = {};
const connect = (target) => new Promise((r) => {
  const q = http.request({ host: "127.0.0.1", port: ${RELAY_PORT}, method: "CONNECT", path: target });
  q.on("connect", (res, s) => { s.destroy(); r(res.statusCode); });
  q.on("response", (res) => r(res.statusCode));
  q.on("error", (e) => r(e.code));
  q.setTimeout(8000, () => { q.destroy(); r("timeout"); });
  q.end();
});
const direct = () => new Promise((r) => {
  const s = net.connect(Number(loopPort), "127.0.0.1");
  s.on("connect", () => { s.destroy(); r("connected"); });
  s.on("error", (e) => r(e.code));
});
(async () => {
  out.loopback = await direct();
  out.unlisted = await connect("hkb-posture.invalid:443");
  out.allowed = allowed ? await connect(allowed) : null;
  console.log(JSON.stringify(out));
})();
`;

const checked = new Map<string, Promise<string | null>>();

/** The posture check, once per process and posture (a seat's policy does not change while it runs). */
export function postureOnce(jail: Jail, plan: EgressPlan, log?: Pick<Logger, "debug">): Promise<string | null> {
  // The proxy's own log (debug): every name the check resolved and every address it opened.
  const trace = log ? (t: EgressTrace) => log.debug({ ...t, during: "the start check" }, `egress: ${t.what}`) : undefined;
  const key = JSON.stringify([jail.policy.bwrap, jail.policy.user, jail.policy.limits?.mode, plan.allow.describe(), plan.probe]);
  let p = checked.get(key);
  if (!p) {
    p = checkPosture(jail, plan, plan.probe, trace);
    checked.set(key, p);
  }
  return p;
}

/** Why the jail's network is not what the seat promises, or null. */
export async function checkPosture(jail: Jail, plan: EgressPlan, firstAllowed: string | null, trace?: (t: EgressTrace) => void): Promise<string | null> {
  const dir = await mkdtemp(join(tmpdir(), "hkb-posture-"));
  const socket = newSocketPath({});
  const proxy = new EgressProxy({ allow: plan.allow, routes: [], ...(trace ? { onTrace: trace } : {}) });
  const loop = createServer((c) => {
    c.on("error", () => undefined); // the probe hangs up at once
    c.end("the host's loopback\n");
  });
  await new Promise<void>((r) => loop.listen(0, "127.0.0.1", () => r()));
  const loopPort = (loop.address() as { port: number }).port;
  const run = forRun(jail, {
    workspace: dir,
    runDir: dir,
    egress: { socket, port: RELAY_PORT, at: JAIL_EGRESS_SOCKET, env: proxyEnv() },
  });
  try {
    await proxy.listen(socket);
    const cmd = await run.command(
      [process.execPath, "-e", PROBE, String(loopPort), firstAllowed ?? ""],
      { PATH: "/usr/bin:/bin" },
      { readOnly: [process.execPath] },
    );
    const r = await runProcess({
      ...launchOf(cmd),
      cwd: dir,
      jailed: true,
      timeoutMs: 30_000,
    });
    const line = r.stdout.trim().split("\n").at(-1) ?? "";
    let seen: { loopback?: unknown; unlisted?: unknown; allowed?: unknown };
    try {
      seen = JSON.parse(line) as typeof seen;
    } catch {
      return `the probe jail did not run (${(r.stderr || r.stdout).trim().split("\n").at(-1) ?? `exit ${r.exitCode}`})`;
    }
    if (seen.loopback === "connected") return "a jailed process reached the host's loopback directly";
    if (seen.unlisted !== 403) return `a host not on the allow-list was not refused (the proxy answered ${String(seen.unlisted)})`;
    if (firstAllowed && seen.allowed === 403) return `an allowed host (${firstAllowed}) was refused`;
    return null;
  } finally {
    await run.release();
    await proxy.close();
    removeSocketDir(socket);
    loop.close();
    await rm(dir, { recursive: true, force: true }).catch(() => undefined);
  }
}
