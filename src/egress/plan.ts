// What a seat's jailed agents may reach (agent.isolation.network: proxy), made once at start: the hosts
// this seat's CLI uses — its API (its base URL when it has one, a gateway or a loopback server) and the
// login hosts of the way it logs in, never a kind's default host it does not use — the operator's
// allowHosts and denyHosts (a bad entry, or a deny of a host the seat needs, is a config error naming it:
// doctor and run read the same plan), the CLI's known housekeeping calls (refused, named), and the API the
// proxy forwards for the CLI with the seat's keys. Per run: the keys become placeholders — what the
// jail's environment holds — and the proxy's routes the real values.
import { randomBytes } from "node:crypto";
import { ConfigError } from "../errors/index.js";
import { AllowList, type HostRule, parseHostRule, urlRule } from "./allow.js";
import type { ApiRoute } from "./proxy.js";

/** Where the relay listens inside a jail; HTTPS_PROXY and the CLI's base URL point at it. */
export const RELAY_PORT = 3128;
export const RELAY = `http://127.0.0.1:${RELAY_PORT}`;
/** Where the run's proxy socket is bound inside the jail. */
export const JAIL_EGRESS_SOCKET = "/run/hkb/egress.sock";

/** What an agent kind's CLI talks to, for this seat's config (agents/<kind>/kind.ts `egress`). */
export interface KindEgress {
  /** The hosts this seat's CLI needs (host, or host:port), reached by CONNECT: its API and the login hosts it uses. */
  hosts: readonly string[];
  /** The API the proxy forwards for it, with the seat's keys (the environment variables that hold them), when it has one. */
  api?: { name: string; upstream: string; keyEnvs: readonly string[] } | undefined;
  /** Calls the CLI makes that its work does not need (an update check, metrics): refused, counted, never advised. */
  housekeeping?: readonly string[] | undefined;
}

export interface EgressPlan {
  allow: AllowList;
  api: { name: string; upstream: string; keys: readonly { env: string; value: string }[] } | null;
  /** The kind's API and login host names (and its base URL's): no answer from one is the agent's API out of reach. */
  apiHosts: readonly string[];
  /** What the start check tunnels to (host:port): the seat's API, else the first host it needs; null: none. */
  probe: string | null;
}

const hostPort = (r: HostRule) => `${r.host.includes(":") ? `[${r.host}]` : r.host}:${r.port ?? 443}`;

/** A base URL's host and port as a host entry (`api.example.com:443`, `127.0.0.1:8080`, `[::1]:9000`): what a kind's `hosts` names. */
export const urlEntry = (url: string): string => hostPort(urlRule(url, "a base URL"));

export function egressPlan(o: {
  kind: KindEgress;
  allowHosts: readonly string[];
  denyHosts: readonly string[];
  env: Readonly<Record<string, string>>;
  /** Whether the plan is the seat's network (network: proxy in a jail): only then is a deny of a needed host refused. */
  enforced?: boolean;
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
  const deny = rules(o.denyHosts, "denyHosts");
  const housekeeping = (o.kind.housekeeping ?? []).map((h) => parseHostRule(h, "the agent CLI's own housekeeping"));
  const allow = new AllowList([...kindRules, ...apiRule, ...rules(o.allowHosts, "allowHosts")], deny, housekeeping);
  // A host the seat needs that a deny entry refuses: every run would fail — said now, by doctor and run alike.
  // (A kind's default host this seat does not use is not on the list: denying it changes nothing.)
  const needed = [...apiRule, ...kindRules].filter((r, i, all) => all.findIndex((o) => hostPort(o) === hostPort(r)) === i);
  for (const r of o.enforced === false ? [] : needed) {
    const d = new AllowList([], deny).decide(r.host, r.port ?? 443);
    if (d.refusal === "denied")
      issues.push({
        path: d.why.replace(/^denied by /, ""),
        message: `denies ${hostPort(r)}, which this seat needs (${r.from}): every run would fail — remove the entry, or point the seat at another API`,
      });
  }
  if (issues.length) throw new ConfigError(issues);
  const keys = (api?.keyEnvs ?? []).flatMap((env) => (o.env[env] ? [{ env, value: o.env[env] ?? "" }] : []));
  const apiHosts = [
    ...o.kind.hosts.map((h) => parseHostRule(h, "the agent kind's API and login hosts").host),
    ...(api ? [new URL(api.upstream).hostname] : []),
  ];
  const first = needed.find((r) => !r.wildcard);
  return {
    allow,
    api: api ? { name: api.name, upstream: api.upstream, keys } : null,
    apiHosts: [...new Set(apiHosts.map((h) => h.toLowerCase()))],
    probe: first ? hostPort(first) : null,
  };
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
