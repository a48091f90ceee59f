// The hosts this seat's runs were refused since it started (agent.isolation.network: proxy), for the
// status snapshot and the fleet row: per host and port a count and the last time, the most recent kept
// (a bounded list — a run that tries a thousand names cannot grow the snapshot).
export interface BlockedHost {
  host: string;
  port: number;
  count: number;
  last: string;
}

const KEEP = 20;

export class EgressSeen {
  private readonly blocked = new Map<string, BlockedHost>();

  note(host: string, port: number, at: number): void {
    const key = `${host}:${port}`;
    const was = this.blocked.get(key);
    this.blocked.delete(key);
    this.blocked.set(key, { host: host.slice(0, 253), port, count: (was?.count ?? 0) + 1, last: new Date(at).toISOString() });
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
