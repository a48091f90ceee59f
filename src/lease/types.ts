// A lease: what the bridge holds on a claimed task (run id and lock for fencing, the board's expiry).
// Pure data; the rules about it are in lease.ts and fenced.ts.
export interface Lease {
  board: string;
  taskId: string;
  /** null until the run id is read (show --json after the claim); nothing is written for the lease while it is null. */
  runId: number | null;
  lock: string | null;
  /**
   * The lock Hermes writes for this claim when the CLI runs on this host: `<hostname>:<pid of the claim
   * process>`. It names our run among the `claimed` events even after a reclaim and another claim.
   */
  claimLock?: string;
  /** The workspace path `claim` printed (a path on the board host). */
  workspace: string;
  /** Epoch ms, from the bridge's clock, taken just before the claim call. */
  claimedAt: number;
  /** Epoch ms as the board reported it (claimed event `expires`), or claimedAt + ttl. */
  expiresAt: number;
  ttlSeconds: number;
}
