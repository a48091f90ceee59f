// Retry policy for board calls: only Transient errors, jittered exponential backoff, overall deadline.
import pRetry from "p-retry";
import { Transient } from "./errors.js";

export interface RetryPolicy {
  retries: number;
  minDelayMs: number;
  maxDelayMs: number;
  /** Overall deadline for all attempts together. */
  deadlineMs: number;
}

export const DEFAULT_RETRY: RetryPolicy = { retries: 4, minDelayMs: 500, maxDelayMs: 8000, deadlineMs: 5 * 60_000 };

export function withRetry<T>(
  fn: (attempt: number) => Promise<T>,
  policy: RetryPolicy,
  opts: { signal?: AbortSignal; onRetry?: (err: Error, attempt: number) => void } = {},
): Promise<T> {
  return pRetry(fn, {
    retries: policy.retries,
    minTimeout: policy.minDelayMs,
    maxTimeout: policy.maxDelayMs,
    factor: 2,
    randomize: true,
    maxRetryTime: policy.deadlineMs,
    signal: opts.signal,
    shouldRetry: ({ error }) => error instanceof Transient,
    onFailedAttempt: ({ error, attemptNumber, retriesLeft }) => {
      if (error instanceof Transient && retriesLeft > 0) opts.onRetry?.(error, attemptNumber);
    },
  });
}
