// Where a jailed agent may connect (agent.isolation.network: proxy): the agent kind's own API and login
// hosts, plus the operator's `agent.isolation.allowHosts` — from config only, never from task text, and
// nothing a repository's own settings say can widen it. An entry is a host (`github.com`), a wildcard
// (`*.example.com`: any name below it, not the name itself), an IP, each optionally with `:port`
// (`[::1]:8080` for IPv6); without a port it allows 443 and 80. `denyHosts` takes the same entries, and a
// deny wins. The host's loopback and private ranges are refused after DNS resolution unless an entry
// names that host *with its port* (a local LLM's baseUrl, a test's stand-in server): a wildcard or a
// portless entry never opens them (address.ts decides what an address is). A CLI's known housekeeping
// calls (an update check, metrics: the kind's `housekeeping`) are refused like any host not on the list,
// named as what they are. A refusal suggests an `allowHosts` entry only for a public name on 443/80, as the
// portless entry that never opens a private address — never for an IP literal, a local or metadata name.
import { isIP } from "node:net";

export interface HostRule {
  /** Lower case; a wildcard keeps its `*.`; IPv6 without brackets. */
  host: string;
  /** null: 443 and 80. */
  port: number | null;
  wildcard: boolean;
  /** Where the entry came from ("agent.isolation.allowHosts.2", "the agent kind's API"). */
  from: string;
}

export interface Decision {
  allowed: boolean;
  /** An entry names this host and port exactly: a private or loopback address behind it may be reached. */
  explicit: boolean;
  why: string;
  /** Why it was refused: a deny entry, not on the list, or the CLI's own housekeeping (not needed). */
  refusal?: "denied" | "unlisted" | "housekeeping";
}

const DEFAULT_PORTS = [443, 80];
const HOSTNAME = /^(?=.{1,253}$)(\*\.)?([a-z0-9_]([a-z0-9_-]{0,61}[a-z0-9_])?)(\.[a-z0-9_]([a-z0-9_-]{0,61}[a-z0-9_])?)*$/;

/** One entry, parsed; throws an Error naming what is wrong with it. */
export function parseHostRule(entry: string, from: string): HostRule {
  const e = entry.trim().toLowerCase();
  let host = e;
  let port: number | null = null;
  const v6 = /^\[([0-9a-f:.]+)\](?::(\d{1,5}))?$/.exec(e);
  if (v6) {
    host = v6[1] ?? "";
    port = v6[2] !== undefined ? Number(v6[2]) : null;
    if (isIP(host) !== 6) throw new Error(`${entry}: not an IPv6 address in brackets`);
  } else {
    const m = /^([^:]+)(?::(\d{1,5}))?$/.exec(e);
    if (!m) throw new Error(`${entry}: a host, *.domain or IP, with an optional :port (IPv6 as [addr]:port)`);
    host = m[1] ?? "";
    port = m[2] !== undefined ? Number(m[2]) : null;
    if (isIP(host) === 0 && !HOSTNAME.test(host)) throw new Error(`${entry}: not a host name (letters, digits, '-', '.'; a wildcard only as a leading '*.')`);
  }
  if (port !== null && (port < 1 || port > 65535)) throw new Error(`${entry}: port ${port} is not 1–65535`);
  return { host: host.replace(/^\*\./, ""), port, wildcard: host.startsWith("*."), from };
}

const norm = (host: string) =>
  host
    .toLowerCase()
    .replace(/^\[|\]$/g, "")
    .replace(/\.$/, "");

function matches(r: HostRule, host: string, port: number): boolean {
  const portOk = r.port === null ? DEFAULT_PORTS.includes(port) : r.port === port;
  if (!portOk) return false;
  return r.wildcard ? host.endsWith(`.${r.host}`) : host === r.host;
}

export class AllowList {
  constructor(
    readonly allow: readonly HostRule[],
    readonly deny: readonly HostRule[] = [],
    /** The CLI's own calls its work does not need (refused, named as such). */
    readonly housekeeping: readonly HostRule[] = [],
  ) {}

  /** Whether the agent may ask for `host:port` (the CONNECT target or the request URL's host, never a Host header). */
  decide(hostIn: string, port: number): Decision {
    const host = norm(hostIn);
    const denied = this.deny.find((r) => matches(r, host, port));
    if (denied) return { allowed: false, explicit: false, why: `denied by ${denied.from}`, refusal: "denied" };
    const hits = this.allow.filter((r) => matches(r, host, port));
    if (hits.length === 0) {
      const quiet = this.housekeeping.find((r) => matches(r, host, port));
      if (quiet) return { allowed: false, explicit: false, why: `${quiet.from}: not needed for its work`, refusal: "housekeeping" };
      return { allowed: false, explicit: false, why: "not on the seat's allow-list", refusal: "unlisted" };
    }
    const exact = hits.find((r) => !r.wildcard && r.port === port);
    return { allowed: true, explicit: exact !== undefined, why: `allowed by ${(exact ?? hits[0])?.from ?? "?"}` };
  }

  /** The entries, as `doctor` and status show them. */
  describe(): string[] {
    const show = (r: HostRule) => `${r.wildcard ? "*." : ""}${r.host.includes(":") ? `[${r.host}]` : r.host}${r.port !== null ? `:${r.port}` : ""}`;
    return [...this.allow.map((r) => `${show(r)} (${r.from})`), ...this.deny.map((r) => `deny ${show(r)} (${r.from})`)];
  }
}

/** Suffixes of names that are some network's own (RFC 6762, RFC 8375, common private zones): never advised. */
const LOCAL_SUFFIXES = ["localhost", "local", "localdomain", "internal", "intranet", "lan", "home", "home.arpa", "corp", "private", "arpa"];
/** Cloud metadata services reached by name (besides the link-local addresses every cloud uses). */
const METADATA_NAMES = new Set(["metadata.google.internal", "metadata.goog", "metadata.azure.com", "metadata.tencentyun.com", "instance-data.ec2.internal"]);

/**
 * Whether a refused host may be named as an `allowHosts` entry: a public DNS name only — never an IP
 * literal, a single label, a local or private zone, a metadata name, or a name that spells an address
 * (`127.0.0.1.nip.io`, `10-0-0-5.sslip.io`: it resolves to the address it spells).
 */
export function publicName(hostIn: string): boolean {
  const host = norm(hostIn);
  if (isIP(host) !== 0 || !host.includes(".") || !HOSTNAME.test(host)) return false;
  if (LOCAL_SUFFIXES.some((s) => host === s || host.endsWith(`.${s}`)) || METADATA_NAMES.has(host)) return false;
  return !/(^|[.-])\d{1,3}[.-]\d{1,3}[.-]\d{1,3}[.-]\d{1,3}([.-]|$)/.test(host) && !/(^|\.)[0-9a-f]{8}\./.test(host);
}

/**
 * The `allowHosts` entry that lets a refused host through, when the bridge may suggest one: a public name not
 * on the list, on 443 or 80, as the portless entry (which never opens a private or loopback address the name
 * may resolve to). Another port's entry would open those (an entry with a port is exact): none is suggested.
 */
export function allowAdvice(host: string, port: number, refusal: Decision["refusal"]): string | undefined {
  if (refusal !== "unlisted" || !DEFAULT_PORTS.includes(port) || !publicName(host)) return undefined;
  return norm(host);
}

/** The rule of a URL's host and port (an API's base URL): that exact host:port. */
export function urlRule(url: string, from: string): HostRule {
  const u = new URL(url);
  const port = u.port ? Number(u.port) : u.protocol === "http:" ? 80 : 443;
  return { host: norm(u.hostname), port, wildcard: false, from };
}
