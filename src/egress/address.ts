// What an address is, for the egress proxy: only a public unicast address may be reached without an
// explicit allow-list entry. The host's loopback, the private ranges (RFC 1918, IPv6 unique local,
// carrier-grade NAT), link-local (where the cloud metadata services live: 169.254.169.254, fd00:ec2::254),
// multicast, unspecified and reserved addresses are refused after the name is resolved — a name that
// resolves to 127.0.0.1 is refused like 127.0.0.1 — and the proxy connects to the address it checked,
// never resolving the name again (no DNS rebinding between the check and the connection).
import { lookup as dnsLookup } from "node:dns/promises";
import { isIP } from "node:net";
import ipaddr from "ipaddr.js";

export type Resolver = (host: string) => Promise<{ address: string; family: number }[]>;

/** The system resolver (/etc/hosts, then DNS), every address of the name. */
export const systemResolver: Resolver = async (host) => dnsLookup(host, { all: true, verbatim: true });

/** `public` for a global unicast address; else the range it is in (loopback, private, linkLocal, …). */
export function rangeOf(address: string): string {
  try {
    const a = ipaddr.process(address);
    const r = a.range();
    // ipaddr.js names the global ranges "unicast"; everything else is some host's or network's own.
    return r === "unicast" ? "public" : r;
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
