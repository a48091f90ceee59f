// A lease: what the bridge holds on a claimed task (run id and lock for fencing, the board's expiry).
// Pure data, so the Board port can name it without depending on the lease logic.
export interface Lease {
  board: string;
  taskId: string;
  /** null only when the run id could not be read after the claim (calls are then unfenced). */
  runId: number | null;
  lock: string | null;
  /** The workspace path `claim` printed (a path on the board host). */
  workspace: string;
  /** Epoch ms, from the bridge's clock, taken just before the claim call. */
  claimedAt: number;
  /** Epoch ms as the board reported it (claimed event `expires`), or claimedAt + ttl. */
  expiresAt: number;
  ttlSeconds: number;
}
