// Retry policy for board calls: everything but a PermanentError (a definitive answer, a bug of the
// call, a lost lease) is retried, with jittered exponential backoff, under an overall deadline.
import pRetry from "p-retry";
import { isPermanent } from "../errors/index.js";
import { AbortedError } from "../time/clock.js";

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
  opts: { signal?: AbortSignal | undefined; onRetry?: (err: Error, attempt: number) => void } = {},
): Promise<T> {
  const retryable = (error: Error) => !isPermanent(error) && !(error instanceof AbortedError) && !opts.signal?.aborted;
  return pRetry(fn, {
    retries: policy.retries,
    minTimeout: policy.minDelayMs,
    maxTimeout: policy.maxDelayMs,
    factor: 2,
    randomize: true,
    maxRetryTime: policy.deadlineMs,
    signal: opts.signal,
    shouldRetry: ({ error }) => retryable(error),
    onFailedAttempt: ({ error, attemptNumber, retriesLeft }) => {
      if (retryable(error) && retriesLeft > 0) opts.onRetry?.(error, attemptNumber);
    },
  });
}
