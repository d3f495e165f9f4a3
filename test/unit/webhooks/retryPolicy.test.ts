import { afterAttempt, retryDelayMs } from '#src/webhooks/retryPolicy';

const settings = { retryMaxMs: 600_000, disableAfterMs: 3 * 24 * 3600_000 };
const now = new Date('2026-03-01T12:00:00.000Z');
const top = () => 0.999999; // the largest draw: the bound itself, less a hair

describe('retryDelayMs: exponential from 1 s, doubling, capped, with full jitter', () => {
  it('draws up to 1 s, 2 s, 4 s… for the 1st, 2nd, 3rd failure, and never more than the cap', () => {
    expect([1, 2, 3, 4].map((n) => retryDelayMs(n, 600_000, top))).toEqual([999, 1999, 3999, 7999]);
    expect(retryDelayMs(30, 600_000, top)).toBe(599_999);
    expect(retryDelayMs(10_000, 600_000, top)).toBe(599_999);
    expect(retryDelayMs(3, 250, top)).toBe(249);
  });

  it('spreads retries from zero to the bound', () => {
    expect(retryDelayMs(3, 600_000, () => 0)).toBe(0);
    expect(retryDelayMs(3, 600_000, () => 0.5)).toBe(2000);
  });
});

describe('afterAttempt', () => {
  it('advances after any 2xx', () => {
    for (const status of [200, 201, 202, 204, 299]) {
      expect(afterAttempt({ status }, { failingSince: null, failedAttempts: 0 }, settings, now, top)).toEqual({ action: 'advance' });
    }
  });

  it.each([[500], [404], [429], [301], [302], [199]])('retries after HTTP %i, the run of failures starting now', (status) => {
    expect(afterAttempt({ status }, { failingSince: null, failedAttempts: 1 }, settings, now, top)).toEqual({
      action: 'retry',
      delayMs: 999,
      failingSince: now,
    });
  });

  it('retries after no answer at all, keeping when the failures began', () => {
    const since = new Date(now.getTime() - 60_000);
    expect(
      afterAttempt({ error: 'connection refused (ECONNREFUSED)' }, { failingSince: since, failedAttempts: 4 }, settings, now, top),
    ).toEqual({ action: 'retry', delayMs: 7999, failingSince: since });
  });

  it('disables at once on 410 Gone', () => {
    expect(afterAttempt({ status: 410 }, { failingSince: null, failedAttempts: 1 }, settings, now, top)).toEqual({
      action: 'disable',
      reason: 'the endpoint answered 410 Gone',
    });
  });

  it('disables once the failures have lasted WEBHOOK_DISABLE_AFTER_MS, saying since when and what failed last', () => {
    const since = new Date(now.getTime() - settings.disableAfterMs);
    const next = afterAttempt({ status: 503 }, { failingSince: since, failedAttempts: 300 }, settings, now, top);
    expect(next).toEqual({ action: 'disable', reason: expect.stringContaining(`from ${since.toISOString()} to ${now.toISOString()}`) });
    expect(next.action === 'disable' && next.reason).toMatch(/the last: HTTP 503$/);
    const justBefore = new Date(since.getTime() + 1);
    expect(afterAttempt({ status: 503 }, { failingSince: justBefore, failedAttempts: 300 }, settings, now, top).action).toBe('retry');
  });

  it('says a redirect was not followed', () => {
    const since = new Date(0);
    const next = afterAttempt({ status: 302 }, { failingSince: since, failedAttempts: 2 }, settings, now, top);
    expect(next.action === 'disable' && next.reason).toMatch(/HTTP 302 \(redirects are not followed\)$/);
  });
});
