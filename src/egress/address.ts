// What an address is, for the egress proxy: only a public unicast address may be reached without an
// explicit allow-list entry. The host's loopback, the private ranges (RFC 1918, IPv6 unique local,
// carrier-grade NAT), link-local (where the cloud metadata services live: 169.254.169.254, fd00:ec2::254),
// multicast, unspecified and reserved addresses are refused after the name is resolved — a name that
// resolves to 127.0.0.1 is refused like 127.0.0.1 — and the proxy connects to the address it checked,
// never resolving the name again (no DNS rebinding between the check and the connection). ipaddr.js names
// the ranges; what it calls global unicast but is some host's own is in DENIED, beside it.
import { lookup as dnsLookup } from "node:dns/promises";
import { isIP } from "node:net";
import ipaddr from "ipaddr.js";

export type Resolver = (host: string) => Promise<{ address: string; family: number }[]>;

/** The system resolver (/etc/hosts, then DNS), every address of the name. */
export const systemResolver: Resolver = async (host) => dnsLookup(host, { all: true, verbatim: true });

/**
 * Ranges ipaddr.js (2.x) calls global unicast that are no public host: the IPv4-compatible IPv6 addresses
 * (`::/96`, RFC 4291 §2.5.5.1, deprecated — `::7f00:1` is 127.0.0.1 to a stack that still maps them) and
 * Azure's WireServer (`168.63.129.16`: the VM's host agent, its metadata and extensions, reachable from
 * every Azure VM). A range here is refused like loopback: only an exact `host:port` entry opens it.
 */
const DENIED: readonly { cidr: string; range: string }[] = [
  { cidr: "::/96", range: "ipv4Compatible" },
  { cidr: "168.63.129.16/32", range: "metadata" },
];
const deniedRanges = DENIED.map((d) => ({ net: ipaddr.parseCIDR(d.cidr), range: d.range }));

/** `public` for a global unicast address; else the range it is in (loopback, private, linkLocal, metadata, …). */
export function rangeOf(address: string): string {
  try {
    const a = ipaddr.process(address);
    const r = a.range();
    // ipaddr.js names the global ranges "unicast"; everything else is some host's or network's own.
    if (r !== "unicast") return r;
    const denied = deniedRanges.find((d) => d.net[0].kind() === a.kind() && a.match(d.net));
    return denied ? denied.range : "public";
  } catch {
    return "invalid";
  }
}

export interface Resolved {
  address: string;
  family: number;
  range: string;
}

/** Resolves `host` (an IP is itself) and classifies every address; throws when the name does not resolve. */
export async function resolveHost(host: string, resolver: Resolver = systemResolver): Promise<Resolved[]> {
  const bare = host.replace(/^\[|\]$/g, "");
  const found = isIP(bare) ? [{ address: bare, family: isIP(bare) }] : await resolver(bare);
  return found.map((f) => ({ ...f, range: rangeOf(f.address) }));
}

/** The address to connect to: the first public one, or (an explicit entry) the first of any range; null: refused. */
export function pick(resolved: readonly Resolved[], explicit: boolean): Resolved | null {
  if (explicit) return resolved[0] ?? null;
  // Every address must be public: a name that also resolves to a private one is refused (no choosing the safe one).
  if (resolved.length === 0 || resolved.some((r) => r.range !== "public")) return null;
  return resolved[0] ?? null;
}
