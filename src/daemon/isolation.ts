// How the seat's agents are confined, said where an operator looks: on /metrics always, and — when they
// run without a jail of their own (agent.isolation fell back, or is user or none), or in one on the
// host's network (network: host, or no jail: nothing between them and loopback or the internet) — one
// alert per start; and the hosts the seat's runs were refused since it started (network: proxy), for the
// status snapshot and the fleet row: per host and port a count and the last time, the most recent kept (a
// bounded list — a run that tries a thousand names cannot grow the snapshot).
import { ConfigError } from "../errors/index.js";
import { mib, probeImageCache } from "../jail/image-cache.js";
import type { Jail } from "../jail/jail.js";
import { recoverHandbacks } from "../jail/live.js";
import { type LimitsPolicy, explicitCaps, resolveLimits } from "../jail/limits.js";
import { hostTool } from "../jail/policy.js";
import { workspaceHost } from "../jail/run-jail.js";
import type { Config } from "../config/schema.js";
import type { Metrics } from "../observe/metrics.js";
import type { AlertPayload } from "../outbox/webhook.js";
import type { Clock } from "../time/clock.js";

/**
 * The jail's cache of execute-only images at start: a folder that can hold and run them, with room for the
 * seat's (or the seat does not start: a bad cache would block every task of its lane); then the images
 * not copied yet are copied in the background, so the first run does not wait for them.
 */
export async function imagesAtStart(jail: Jail, images: readonly string[]): Promise<void> {
  if (jail.mode !== "bwrap" || !jail.images) return;
  const dir = jail.images.dir;
  const probe = await probeImageCache(dir, images);
  if (probe.problem)
    throw new ConfigError([
      {
        path: "agent.isolation.imageCache",
        message: `${probe.problem} — set it to a folder this user can write, on a filesystem that runs programs, with ${mib(probe.images.reduce((n, i) => n + i.bytes, 0))} free`,
      },
    ]);
  for (const i of probe.images) if (!i.cached) void jail.images.copyOf(i.image).catch(() => undefined);
}

/** The seat's caps (agent.limits, with the caps the operator set and the host's prlimit), or a ConfigError naming the mode. */
export async function seatLimits(c: Pick<Config, "agent" | "provenance">, env: NodeJS.ProcessEnv): Promise<LimitsPolicy> {
  try {
    return await resolveLimits(c.agent.limits, env, { explicit: explicitCaps(c.provenance?.given), prlimit: hostTool("prlimit", env.PATH) });
  } catch (err) {
    throw new ConfigError([{ path: "agent.limits.mode", message: (err as Error).message }], { cause: err });
  }
}

/** How the seat's agents are confined and their runs capped, as its status says. */
export const confinementOf = (jail: Jail | undefined) => ({
  isolation: jail ? { mode: jail.mode, why: jail.policy.why } : undefined,
  limits: jail?.policy.limits ? { mode: jail.policy.limits.mode, why: jail.policy.limits.why } : undefined,
});

/** At start: the workspaces a run of this seat's last process handed over and never gave back (it died mid-run), given back. */
export async function handbacksAtStart(jail: Jail, log: { warn(o: object, msg: string): void }): Promise<void> {
  if (jail.mode === "none") return;
  const n = await recoverHandbacks(workspaceHost(jail));
  if (n) log.warn({ workspaces: n }, "gave back workspaces the seat's last process left handed to the agent's user");
}

export function announceIsolation(d: {
  jail?: Jail | undefined;
  metrics?: Metrics | undefined;
  alerts: { enqueue(p: AlertPayload): void };
  boards: readonly { slug: string }[];
  config: { seat: { name: string } };
  clock: Clock;
}): void {
  const p = d.jail?.policy;
  if (!p) return;
  d.metrics?.isolation.set({ mode: p.mode }, 1);
  if (p.limits) d.metrics?.limits.set({ mode: p.limits.mode }, 1);
  const network = p.mode === "bwrap" ? p.network : "host";
  d.metrics?.network.set({ mode: network }, 1);
  if (p.mode === "bwrap" && network !== "host") return;
  const why =
    p.mode === "bwrap"
      ? "agent.isolation.network is host: jailed agents reach the host's loopback, its abstract sockets and any host on the internet"
      : `agent.isolation ${p.mode}: ${p.why} (and the host's network)`;
  d.alerts.enqueue({
    event: "isolation_off",
    board: d.boards[0]?.slug ?? "",
    task_id: "",
    run_id: null,
    trace_id: "",
    intended_close: null,
    error: `seat ${d.config.seat.name}: agents run with ${why}`,
    at: new Date(d.clock.now()).toISOString(),
  });
}

export interface BlockedHost {
  host: string;
  port: number;
  count: number;
  last: string;
  /** The allowHosts entry that lets it through (a public name only: egress/allow.ts `allowAdvice`). */
  advice?: string;
  /** The CLI's own housekeeping call: not needed, never advised. */
  housekeeping?: boolean;
}

const KEEP = 20;

export class EgressSeen {
  private readonly blocked = new Map<string, BlockedHost>();

  note(host: string, port: number, at: number, r: { advice?: string | undefined; housekeeping?: boolean | undefined } = {}): void {
    const key = `${host}:${port}`;
    const was = this.blocked.get(key);
    this.blocked.delete(key);
    this.blocked.set(key, {
      host: host.slice(0, 253),
      port,
      count: (was?.count ?? 0) + 1,
      last: new Date(at).toISOString(),
      ...(r.advice ? { advice: r.advice.slice(0, 253) } : {}),
      ...(r.housekeeping ? { housekeeping: true } : {}),
    });
    for (const k of this.blocked.keys()) {
      if (this.blocked.size <= KEEP) break;
      this.blocked.delete(k);
    }
  }

  /** Most recent first. */
  list(): BlockedHost[] {
    return [...this.blocked.values()].reverse();
  }
}

/** The seat's network as status shows it: the jail's mode (no jail: the host's) and the refused hosts. */
export function seatNetwork(jail: Jail | undefined, seen: EgressSeen): { mode: string; blocked: BlockedHost[] } | undefined {
  return jail ? { mode: jail.mode === "bwrap" ? jail.policy.network : "host", blocked: seen.list() } : undefined;
}
