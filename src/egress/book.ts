// What one run's proxy did, counted (the run's card and the seat's status read it): each refused
// host:port — how often, why, the allowHosts entry that lets it through where one may be suggested
// (allow.ts), whether it was the CLI's own housekeeping — each allowed host it could not reach, the bytes
// per host it let through, and the agent CLI's API on the books (api-usage.ts). Bounded: a run that tries a
// thousand names cannot grow the card.
import { type Decision, allowAdvice } from "./allow.js";
import { ApiMeter, type ApiUse } from "./api-usage.js";

/** Refused and failed hosts kept per run (the rest counted together). */
const MAX_HOSTS = 50;

/** One refused host:port: how often, why, and the allowHosts entry that lets it through (public names only). */
export interface Refused {
  host: string;
  port: number;
  count: number;
  why: string;
  advice?: string;
  /** The CLI's own housekeeping call (an update check, metrics): not needed, never advised. */
  housekeeping?: boolean;
}

export interface Failed {
  host: string;
  port: number;
  count: number;
  why: string;
}

export interface EgressCounts {
  blocked: Refused[];
  /** Refusals of hosts beyond the first MAX_HOSTS. */
  blockedOther?: number;
  /** Allowed hosts the proxy could not reach (no such name, refused, timed out). */
  failed?: Failed[];
  allowed: { host: string; bytes: number }[];
  /** The agent CLI's API through the proxy's route (the seat's key), when it was used. */
  api?: ApiUse;
}

export interface BookHooks {
  /** The first refusal of each host:port (metrics, log), with the entry that lets it through where one may be suggested. */
  onBlocked?: ((host: string, port: number, why: string, r: Pick<Refused, "advice" | "housekeeping">) => void) | undefined;
  /** The first failure to reach each allowed host:port (log). */
  onFailed?: ((host: string, port: number, why: string) => void) | undefined;
  /** Every change of the API's count (the run's budget counts it as it goes). */
  onApiUse?: ((use: ApiUse) => void) | undefined;
}

export class EgressBook {
  private readonly blocked = new Map<string, Refused>();
  private readonly failedHosts = new Map<string, Failed>();
  private readonly bytes = new Map<string, number>();
  private blockedOther = 0;
  readonly api: ApiMeter;

  constructor(private readonly hooks: BookHooks = {}) {
    this.api = new ApiMeter(hooks.onApiUse);
  }

  counts(): EgressCounts {
    const api = this.api.snapshot();
    return {
      blocked: [...this.blocked.values()],
      ...(this.blockedOther ? { blockedOther: this.blockedOther } : {}),
      ...(this.failedHosts.size ? { failed: [...this.failedHosts.values()] } : {}),
      allowed: [...this.bytes].map(([host, bytes]) => ({ host, bytes })),
      ...(api.requests ? { api } : {}),
    };
  }

  /** A refusal, counted; the answer's text (it names the host and why). */
  refused(host: string, port: number, why: string, refusal?: Decision["refusal"]): string {
    const advice = allowAdvice(host, port, refusal);
    const entry = { host, port, why, ...(advice ? { advice } : {}), ...(refusal === "housekeeping" ? { housekeeping: true } : {}) };
    const first = (e: Refused) => this.hooks.onBlocked?.(e.host, e.port, e.why, { advice: e.advice, housekeeping: e.housekeeping });
    if (!tally(this.blocked, entry, first)) this.blockedOther += 1;
    return `blocked-by-allowlist: ${host}:${port} (${why})`;
  }

  /** An allowed host that gave no answer. */
  failed(host: string, port: number, why: string): void {
    tally(this.failedHosts, { host, port, why }, (e) => this.hooks.onFailed?.(e.host, e.port, e.why));
  }

  /** Bytes let through to or from `host`. */
  carried(host: string, n: number): void {
    this.bytes.set(host, (this.bytes.get(host) ?? 0) + n);
  }
}

/** Counted per host:port (the first MAX_HOSTS; the rest together); `first` once per host:port. */
function tally<T extends { host: string; port: number; count: number; why: string }>(
  map: Map<string, T>,
  entry: Omit<T, "count">,
  first?: (e: T) => void,
): boolean {
  const key = `${entry.host}:${entry.port}`;
  const b = map.get(key);
  if (b) b.count += 1;
  else if (map.size >= MAX_HOSTS) return false;
  else {
    const e = { ...entry, count: 1 } as T;
    map.set(key, e);
    first?.(e);
  }
  return true;
}
