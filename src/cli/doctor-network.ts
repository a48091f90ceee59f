// doctor's `network` check: what a jailed agent may reach (agent.isolation.network), grouped — the
// hosts this seat's CLI uses (its API — its base URL when it has one — and its login's), how its key is
// kept out of the jail, the operator's allowHosts and denyHosts, the CLI's housekeeping calls (refused).
// It fails where the network is not what a seat needs: the host's (network: host, or no jail to cut it),
// none at all for a kind that calls its API, a deny of a host the seat needs (egress/plan.ts: `run`
// refuses to start on the same plan, with the same words), or an entry that opens nothing (a loopback or
// private address without its port).
import { isIP } from "node:net";
import { agentEnv } from "../agents/env.js";
import { kindOf } from "../agents/kinds.js";
import type { Config } from "../config/schema.js";
import { rangeOf } from "../egress/address.js";
import type { HostRule } from "../egress/allow.js";
import { egressPlan, loopbackForwards } from "../egress/plan.js";
import { ConfigError, describeError } from "../errors/index.js";
import type { Check } from "./check.js";

const pass = (detail: string): Check => ({ name: "network", ok: true, detail, fix: "" });
const fail = (detail: string, fix: string): Check => ({ name: "network", ok: false, detail, fix });

const show = (r: HostRule) => `${r.wildcard ? "*." : ""}${r.host.includes(":") ? `[${r.host}]` : r.host}${r.port !== null ? `:${r.port}` : ""}`;

/** An entry naming the host's own or a private address without its port: refused after resolution anyway. */
const opensNothing = (r: HostRule) =>
  r.port === null && !r.wildcard && (r.host === "localhost" || r.host.endsWith(".localhost") || (isIP(r.host) !== 0 && rangeOf(r.host) !== "public"));

export function networkCheck(c: Config, env: NodeJS.ProcessEnv, jailed: boolean): Check {
  const iso = c.agent.isolation;
  if (!jailed || iso.mode === "none" || iso.mode === "user")
    return fail(
      "the host's network: without a jail of their own nothing cuts it (its loopback, its sockets, any host on the internet)",
      "give the seat a working bubblewrap (the isolation check above) and keep agent.isolation.network: proxy",
    );
  if (iso.network === "host")
    return fail(
      "agent.isolation.network is host: jailed agents reach the host's loopback, its abstract sockets and any host on the internet",
      "set agent.isolation.network: proxy (the default) and name the hosts they need in agent.isolation.allowHosts",
    );
  const kind = kindOf(c);
  if (iso.network === "none")
    return kind.egress
      ? fail(
          `agent.isolation.network is none: it cuts the ${c.agent.kind} CLI's own API too — every run would fail`,
          "set agent.isolation.network: proxy (the default): the agent then reaches its API and the allowHosts only",
        )
      : pass("none: the agent reaches nothing (its model, if any, is called by the bridge)");
  try {
    const plan = egressPlan({
      kind: kind.egress?.(c.agent, env) ?? { hosts: [] },
      allowHosts: iso.allowHosts,
      denyHosts: iso.denyHosts,
      env: agentEnv(env, c.agent.passEnv, c.agent.env),
    });
    const nothing = plan.allow.allow.filter((r) => r.from.startsWith("agent.isolation.") && opensNothing(r));
    if (nothing.length)
      return fail(
        `${nothing.map((r) => `${show(r)} (${r.from})`).join(", ")} opens nothing: the host's own and private addresses are refused unless an entry names the host with its port`,
        `name the port: e.g. ${nothing.map((r) => `${show(r)}:8080`).join(", ")}`,
      );
    const group = (from: (r: HostRule) => boolean) =>
      plan.allow.allow
        .filter(from)
        .map((r) => show(r))
        .join(", ");
    const kinds = group((r) => r.from.startsWith("the agent kind"));
    const housekeeping = plan.allow.housekeeping.map(show).join(", ");
    const loopback = loopbackForwards(plan);
    const parts = [
      kinds ? `the kind's: ${kinds}` : `no API or login host of the kind's (a ${c.agent.kind} agent: only allowHosts)`,
      plan.api
        ? `its API ${plan.api.upstream} (${plan.api.keys.length ? `${plan.api.keys.map((k) => k.env).join(", ")} kept outside the jail: the agent holds a placeholder` : "no key in the environment"})`
        : "",
      `allowHosts: ${group((r) => r.from.startsWith("agent.isolation.allowHosts")) || "none"}`,
      plan.allow.deny.length ? `denyHosts: ${plan.allow.deny.map(show).join(", ")}` : "",
      housekeeping ? `the CLI's housekeeping calls, refused (not needed): ${housekeeping}` : "",
      // A port of the host's loopback the jail does not forward answers "connection refused" inside it, unseen by the proxy.
      `the host's loopback: ${loopback.length ? `${loopback.join(", ")} forwarded` : "nothing forwarded (a loopback service needs its exact host:port in allowHosts)"}`,
      "a host without a port means 443 and 80",
    ].filter(Boolean);
    return pass(`proxy: the agent reaches only ${parts.join("; ")}`);
  } catch (err) {
    if (err instanceof ConfigError && err.issues.some((i) => i.message.includes("which this seat needs")))
      return fail(
        err.issues.map((i) => `${i.path}: ${i.message}`).join("; "),
        "remove that entry from agent.isolation.denyHosts, or point the seat at another API (its base URL)",
      );
    return fail(describeError(err), "correct the entry named (a host, *.domain or IP, with an optional :port)");
  }
}
