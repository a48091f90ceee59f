// What a seat's jailed agents may reach (agent.isolation.network: proxy), made once at start: the agent
// kind's own API and login hosts, the operator's allowHosts and denyHosts (a bad entry is a config error
// naming it), and the API the proxy forwards for the CLI with the seat's keys. Per run: the keys become
// placeholders — what the jail's environment holds — and the proxy's routes the real values.
import { randomBytes } from "node:crypto";
import { ConfigError } from "../errors/index.js";
import { AllowList, type HostRule, parseHostRule, urlRule } from "./allow.js";
import type { ApiRoute } from "./proxy.js";

/** Where the relay listens inside a jail; HTTPS_PROXY and the CLI's base URL point at it. */
export const RELAY_PORT = 3128;
export const RELAY = `http://127.0.0.1:${RELAY_PORT}`;
/** Where the run's proxy socket is bound inside the jail. */
export const JAIL_EGRESS_SOCKET = "/run/hkb/egress.sock";

/** What an agent kind's CLI talks to (agents/<kind>/kind.ts `egress`). */
export interface KindEgress {
  /** Its API and login hosts (host, or host:port), reached by CONNECT. */
  hosts: readonly string[];
  /** The API the proxy forwards for it, with the seat's keys (the environment variables that hold them), when it has one. */
  api?: { name: string; upstream: string; keyEnvs: readonly string[] } | undefined;
}

export interface EgressPlan {
  allow: AllowList;
  api: { name: string; upstream: string; keys: readonly { env: string; value: string }[] } | null;
  /** The kind's API and login host names (and its base URL's): no answer from one is the agent's API out of reach. */
  apiHosts: readonly string[];
}

export function egressPlan(o: {
  kind: KindEgress;
  allowHosts: readonly string[];
  denyHosts: readonly string[];
  env: Readonly<Record<string, string>>;
}): EgressPlan {
  const issues: { path: string; message: string }[] = [];
  const rules = (list: readonly string[], key: string): HostRule[] =>
    list.flatMap((entry, i) => {
      try {
        return [parseHostRule(entry, `agent.isolation.${key}.${i}`)];
      } catch (err) {
        issues.push({ path: `agent.isolation.${key}.${i}`, message: (err as Error).message });
        return [];
      }
    });
  const kindRules = o.kind.hosts.map((h) => parseHostRule(h, "the agent kind's API and login hosts"));
  const api = o.kind.api;
  const apiRule = api ? [urlRule(api.upstream, "the agent kind's API (its base URL)")] : [];
  const allow = new AllowList([...kindRules, ...apiRule, ...rules(o.allowHosts, "allowHosts")], rules(o.denyHosts, "denyHosts"));
  if (issues.length) throw new ConfigError(issues);
  const keys = (api?.keyEnvs ?? []).flatMap((env) => (o.env[env] ? [{ env, value: o.env[env] ?? "" }] : []));
  const apiHosts = [
    ...o.kind.hosts.map((h) => parseHostRule(h, "the agent kind's API and login hosts").host),
    ...(api ? [new URL(api.upstream).hostname] : []),
  ];
  return { allow, api: api ? { name: api.name, upstream: api.upstream, keys } : null, apiHosts: [...new Set(apiHosts.map((h) => h.toLowerCase()))] };
}

/** One run's placeholders: the jail's environment for the keys, and the proxy's route that puts the real ones back. */
export function runEgress(plan: EgressPlan): { routes: ApiRoute[]; env: Record<string, string> } {
  if (!plan.api) return { routes: [], env: {} };
  const secrets = new Map<string, string>();
  const env: Record<string, string> = {};
  for (const k of plan.api.keys) {
    const placeholder = `hkb-placeholder-${k.env.toLowerCase()}-${randomBytes(12).toString("hex")}`;
    secrets.set(placeholder, k.value);
    env[k.env] = placeholder;
  }
  return { routes: [{ name: plan.api.name, upstream: plan.api.upstream, secrets }], env };
}

/**
 * The host loopback services the seat allows by exact `host:port` (a local model server, a stand-in
 * registry): the jail's relay listens on each at the same address, so a client that goes direct to
 * loopback (NO_PROXY) reaches the allowed host service — and nothing else of the host's loopback.
 */
export function loopbackForwards(plan: EgressPlan): string[] {
  const out = new Set<string>();
  for (const r of plan.allow.allow) {
    if (r.wildcard || r.port === null || r.port === RELAY_PORT) continue;
    const v4 = /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(r.host);
    if (v4 || r.host === "localhost") out.add(`${r.host}:${r.port}`);
  }
  return [...out];
}

/** The base URL the CLI is pointed at for its API inside the jail. */
export const apiBase = (name: string) => `${RELAY}/hkb-api/${name}`;

/** A path that needs no quoting in a shell or in ssh's ProxyCommand. */
const PLAIN_PATH = /^\/[A-Za-z0-9_./+@-]+$/;

/**
 * The proxy's environment inside the jail: every client that reads one of these goes through the relay;
 * git over ssh too (`GIT_SSH_COMMAND`, a ProxyCommand of the relay's own `--connect`), where the operator
 * allows the git host's port 22 (`agent.isolation.allowHosts: [github.com:22]`).
 */
export function proxyEnv(relay?: { argv: readonly string[]; at: string }): Record<string, string> {
  const env: Record<string, string> = {};
  if (relay && [...relay.argv, relay.at].every((p) => PLAIN_PATH.test(p)))
    env.GIT_SSH_COMMAND = `ssh -o 'ProxyCommand=${relay.argv.join(" ")} --connect %h:%p ${relay.at}'`;
  for (const k of ["HTTPS_PROXY", "HTTP_PROXY", "ALL_PROXY", "https_proxy", "http_proxy", "all_proxy", "npm_config_proxy", "npm_config_https_proxy"])
    env[k] = RELAY;
  // The jail's own loopback is the jail's (its network namespace): a server the agent starts there (a dev
  // server, a test's) is reached directly; the host's loopback is not in the namespace at all.
  env.NO_PROXY = "localhost,127.0.0.1,::1";
  env.no_proxy = "localhost,127.0.0.1,::1";
  return env;
}
