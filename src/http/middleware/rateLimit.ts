import type { Middleware } from 'koa';
import { ApiError } from '../errors';
import type { AppContext, AppState } from '../types';

/**
 * Per-key rate limiting (RATE_LIMIT_PER_MINUTE; off when unset). A sliding-window counter per key
 * id: the previous minute's count, weighted by how much of it still overlaps the last 60 s, plus
 * this minute's. Unlike a fixed window it allows no double burst at a minute boundary, and it
 * needs two numbers per key. Counters live in memory: per process, lost on restart, not shared
 * between replicas. It runs after authentication, so only known keys get a counter (memory is
 * bounded by the key ring) and the health checks, routed before it, are never limited.
 */
const WINDOW_MS = 60_000;
interface Counter {
  start: number;
  previous: number;
  current: number;
}

/** Takes one request from the key's budget: 0 when allowed, else whole seconds to wait (≥ 1). */
export const createRateLimiter = (perMinute: number, now: () => number = Date.now) => {
  const counters = new Map<string, Counter>();
  return (keyId: string): number => {
    const t = now();
    const start = t - (t % WINDOW_MS);
    const old = counters.get(keyId);
    const c: Counter =
      !old || start - old.start >= 2 * WINDOW_MS
        ? { start, previous: 0, current: 0 }
        : start > old.start
          ? { start, previous: old.current, current: 0 }
          : old;
    counters.set(keyId, c);
    const overlap = 1 - (t - c.start) / WINDOW_MS;
    if (c.previous * overlap + c.current + 1 <= perMinute) {
      c.current++;
      return 0;
    }
    // The earliest moment the estimate leaves room for one more, if no other request comes:
    // later in this window as the previous one fades, or in the next, as this one does.
    const budget = perMinute - 1 - c.current;
    const at = budget >= 0 ? c.start + WINDOW_MS * (1 - budget / c.previous) : c.start + WINDOW_MS * (2 - (perMinute - 1) / c.current);
    return Math.max(1, Math.ceil((at - t) / 1000));
  };
};

export const rateLimit = (
  perMinute: number,
  { now, onRefused }: { now?: () => number; onRefused?: () => void } = {},
): Middleware<AppState, AppContext> => {
  const take = createRateLimiter(perMinute, now);
  return async (ctx, next) => {
    const wait = take(ctx.state.caller.keyId);
    if (wait > 0) {
      onRefused?.();
      throw new ApiError(
        429,
        `this API key is over its limit of ${perMinute} requests per minute; retry in ${wait} s`,
        { limit_per_minute: perMinute, retry_after_seconds: wait },
        { 'Retry-After': String(wait) },
      );
    }
    await next();
  };
};
