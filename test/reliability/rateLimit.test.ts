import * as E from 'fp-ts/Either';
import { loadConfig } from '#src/config';
import { createRateLimiter } from '#src/http/middleware/rateLimit';
import { useApiSpecification } from '../support/apiSpecification';
import { KEYS } from '../support/service';

/** Per-key rate limiting: a sliding-window counter per key id, off unless RATE_LIMIT_PER_MINUTE is set. */
describe('the sliding-window counter', () => {
  it('allows the budget, then names the earliest second a request fits again', () => {
    let t = 120_000; // the start of a minute
    const take = createRateLimiter(3, () => t);
    expect([take('k'), take('k'), take('k')]).toEqual([0, 0, 0]);
    expect(take('k')).toBe(80); // 3 in this minute: room again once the estimate 3·(1−x) ≤ 2, at x = 1/3 of the next
    expect(take('other')).toBe(0); // budgets are per key
    t += 79_000;
    expect(take('k')).toBe(1);
    t += 1_000;
    expect(take('k')).toBe(0);
    t += 200_000; // long idle: a fresh budget
    expect([take('k'), take('k'), take('k'), take('k') > 0]).toEqual([0, 0, 0, true]);
  });

  it('never lets more than the limit through in any 60 s span of steady traffic', () => {
    let t = 0;
    const take = createRateLimiter(10, () => t);
    const allowed: number[] = [];
    for (let i = 0; i < 6000; i++, t += 100) if (take('k') === 0) allowed.push(t); // 10 requests per second, 10 minutes
    for (let i = 0; i + 10 < allowed.length; i++) expect(allowed[i + 10]! - allowed[i]!).toBeGreaterThanOrEqual(60_000 - 100 * 10);
    // ...and does not starve: the estimate errs on the safe side, measured 91 of 100 under saturation.
    expect(allowed.length).toBeGreaterThanOrEqual(85);
  });
});

describe('RATE_LIMIT_PER_MINUTE', () => {
  it('is off when unset and must be a whole number from 1', () => {
    const config = loadConfig({});
    expect(E.isRight(config) && config.right.rateLimitPerMinute).toBeUndefined();
    for (const bad of ['0', '-1', '1.5', 'ten']) {
      const c = loadConfig({ RATE_LIMIT_PER_MINUTE: bad });
      expect(E.isLeft(c) && c.left.join()).toMatch(/RATE_LIMIT_PER_MINUTE must be a whole number from 1/);
    }
    const ok = loadConfig({ RATE_LIMIT_PER_MINUTE: '600' });
    expect(E.isRight(ok) && ok.right.rateLimitPerMinute).toBe(600);
  });
});

describe('over HTTP, with a limit of 3 per minute', () => {
  const svc = useApiSpecification({ RATE_LIMIT_PER_MINUTE: '3' });

  it('answers 429 with Retry-After in the error envelope past the budget, per key; health checks are not limited', async () => {
    for (let i = 0; i < 3; i++) expect((await svc.request('/api/v1/presets')).status).toBe(200);
    const limited = await svc.request('/api/v1/presets/x/chat/completions', { method: 'POST', json: { messages: [] } });
    expect(limited.status).toBe(429);
    const wait = Number(limited.headers.get('retry-after'));
    expect(wait).toBeGreaterThanOrEqual(1);
    expect(wait).toBeLessThanOrEqual(120);
    expect(limited.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(await limited.json()).toEqual({
      error: {
        code: 429,
        message: expect.stringMatching(/3 requests per minute/),
        metadata: { limit_per_minute: 3, retry_after_seconds: wait },
      },
    });
    expect((await svc.request('/api/v1/presets/x')).status).toBe(429); // nothing was stored by the limited POST either
    expect((await svc.request('/api/v1/presets', { key: KEYS.readerOnly })).status).toBe(200); // another key has its own budget
    for (let i = 0; i < 10; i++) expect((await svc.request('/health/live', { key: null })).status).toBe(200);
    expect((await svc.request('/health/ready', { key: null })).status).toBe(200);
    expect((await svc.request('/api/v1/presets', { key: 'pk_unknown' })).status).toBe(401); // unknown keys are rejected before counting
  });
});
