/**
 * What follows one delivery attempt, as a pure function of its outcome, the failures before it,
 * the settings, the time and a random number: advance to the next event, retry this one later, or
 * disable the webhook.
 */

/** The first retry waits up to this long; each further one up to twice as long, to the cap. */
export const RETRY_BASE_MS = 1000;

export interface RetrySettings {
  /** WEBHOOK_RETRY_MAX_MS: the longest wait between two attempts. */
  retryMaxMs: number;
  /** WEBHOOK_DISABLE_AFTER_MS: a webhook failing for this long without a success is disabled. */
  disableAfterMs: number;
}

/** How an attempt ended: an HTTP status (redirects included, never followed), or no answer at all. */
export type AttemptResult = { status: number; error?: undefined } | { status?: undefined; error: string };

export type Next = { action: 'advance' } | { action: 'retry'; delayMs: number; failingSince: Date } | { action: 'disable'; reason: string };

export const succeeded = (r: AttemptResult): boolean => r.status !== undefined && r.status >= 200 && r.status < 300;

/**
 * Full jitter (a wait drawn evenly from zero to the exponential bound): receivers that come back
 * after an outage are not met by every webhook's retry at the same instant.
 */
export const retryDelayMs = (failedAttempts: number, retryMaxMs: number, random: () => number): number => {
  const bound = Math.min(retryMaxMs, RETRY_BASE_MS * 2 ** Math.min(Math.max(failedAttempts - 1, 0), 40));
  return Math.floor(random() * bound);
};

export const describeResult = (r: AttemptResult): string =>
  r.status === undefined
    ? r.error
    : r.status >= 300 && r.status < 400
      ? `HTTP ${r.status} (redirects are not followed)`
      : `HTTP ${r.status}`;

/**
 * `failedAttempts` counts this event's failed attempts including this one; `failingSince` is
 * when the webhook's current run of failures began (null when this attempt is its first failure).
 */
export const afterAttempt = (
  result: AttemptResult,
  failure: { failingSince: Date | null; failedAttempts: number },
  settings: RetrySettings,
  now: Date,
  random: () => number,
): Next => {
  if (succeeded(result)) return { action: 'advance' };
  if (result.status === 410) return { action: 'disable', reason: 'the endpoint answered 410 Gone' };
  const failingSince = failure.failingSince ?? now;
  if (now.getTime() - failingSince.getTime() >= settings.disableAfterMs) {
    return {
      action: 'disable',
      reason: `every attempt failed from ${failingSince.toISOString()} to ${now.toISOString()} (WEBHOOK_DISABLE_AFTER_MS ${settings.disableAfterMs}); the last: ${describeResult(result)}`,
    };
  }
  return { action: 'retry', delayMs: retryDelayMs(failure.failedAttempts, settings.retryMaxMs, random), failingSince };
};
