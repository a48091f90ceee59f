// Time is injected: everything that compares times takes a Clock, every wait takes an AbortSignal.

export interface Clock {
  /** Milliseconds since the epoch. */
  now(): number;
}

export const systemClock: Clock = { now: () => Date.now() };

export class AbortedError extends Error {
  constructor(reason?: unknown) {
    super("aborted", { cause: reason });
    this.name = "AbortedError";
  }
}

/** Resolves after `ms`, or rejects with AbortedError as soon as `signal` aborts. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(new AbortedError(signal.reason));
      return;
    }
    const onAbort = () => {
      clearTimeout(timer);
      reject(new AbortedError(signal?.reason));
    };
    const timer = setTimeout(
      () => {
        signal?.removeEventListener("abort", onAbort);
        resolve();
      },
      Math.max(0, ms),
    );
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

/** Like sleep, but resolves (false) instead of rejecting when aborted. True when the full time passed. */
export async function sleepUnlessAborted(ms: number, signal?: AbortSignal): Promise<boolean> {
  try {
    await sleep(ms, signal);
    return true;
  } catch (err) {
    if (err instanceof AbortedError) return false;
    throw err;
  }
}

export interface BackoffOptions {
  baseMs: number;
  maxMs: number;
  factor?: number;
}

/** Full-jitter exponential backoff: attempt 1 → [0, base], attempt n → [0, min(max, base·f^(n-1))]. */
export function backoffDelay(attempt: number, opts: BackoffOptions, random: () => number = Math.random): number {
  const factor = opts.factor ?? 2;
  const cap = Math.min(opts.maxMs, opts.baseMs * factor ** Math.max(0, attempt - 1));
  return Math.round(cap / 2 + (random() * cap) / 2);
}

/** The latest instant a JavaScript Date can hold (±8.64e15 ms): anything past it is no time at all. */
const MAX_DATE_MS = 8.64e15;

/** Whether an epoch-ms number is an instant at all (not NaN, ±Infinity, or out of Date's range). */
export function isInstant(ms: number | null | undefined): ms is number {
  return typeof ms === "number" && Number.isFinite(ms) && Math.abs(ms) <= MAX_DATE_MS;
}

/** ISO text of an epoch-ms instant, or null when it is no instant (NaN, ±Infinity, out of Date's range): never throws. */
export function isoOrNull(ms: number | null | undefined): string | null {
  return isInstant(ms) ? new Date(ms).toISOString() : null;
}
