// What a loaded config carries beside the operator's keys: how each key was set (its provenance: an error
// names the flag, variable or file line) and the protocol's own timings (never a key; a test shortens them).

export interface Provenance {
  /** Config path ("claim.ttlSeconds") → how the user set it ("--ttl 120", "HERMES_BRIDGE_TTL=120", "claim.ttlSeconds in config.yaml"). */
  given: Record<string, string>;
  /** The config file the seat was loaded from (absolute), if any: no agent may see it. */
  file?: string;
  /** What the operator should know but is no error (an unknown HERMES_BRIDGE_* variable): printed, logged and shown by doctor. */
  warnings?: string[];
}

/**
 * The protocol's own timings: no key of the config file or the environment sets them; a test gives shorter
 * ones (LoadOptions.protocol) so that a run longer than a claim takes seconds, not half a minute.
 */
export interface Protocol {
  /** The least claim TTL (config/timing.ts MIN_TTL_SECONDS). */
  minTtlSeconds: number;
  /** How often a long-running seat rewrites its status file. */
  statusIntervalMs: number;
}
