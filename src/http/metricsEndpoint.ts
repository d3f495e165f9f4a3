import { createHash, timingSafeEqual } from 'node:crypto';
import type { Middleware, ParameterizedContext } from 'koa';
import { parseBearer } from '../auth/apiKeys';
import { ApiError } from './errors';
import type { AppContext, AppState } from './types';
import { statusClass, type Metrics } from '../observability/metrics';

/** Where Prometheus scrapes. */
export const METRICS_PATH = '/metrics';

/** The route's template as @koa/router matched it (`/api/v1/presets/:slug`), never the path itself. */
const routeTemplate = (ctx: ParameterizedContext<AppState, AppContext>): string => {
  const matched = (ctx as { _matchedRoute?: unknown })._matchedRoute;
  if (typeof matched === 'string') return matched;
  if (ctx.state.servedBy) return ctx.state.servedBy;
  // Refused before any route matched (401, 429, an unknown path's 404): the path is not a label.
  return '(none)';
};

/**
 * Counts every request and times it, by route template, method and status class. The outermost
 * middleware: it sees the status the error middleware chose.
 */
export const httpMetrics =
  (metrics: Metrics): Middleware<AppState, AppContext> =>
  async (ctx, next) => {
    const end = process.hrtime.bigint();
    try {
      await next();
    } finally {
      const labels = { route: routeTemplate(ctx), method: ctx.method, status_class: statusClass(ctx.status) };
      metrics.httpRequests.inc(labels);
      metrics.httpDuration.observe(labels, Number(process.hrtime.bigint() - end) / 1e9);
    }
  };

/** A constant-time comparison of a bearer token with the configured one (by their digests: equal lengths). */
const tokenMatches = (expected: string) => {
  const want = createHash('sha256').update(expected).digest();
  return (header: string): boolean => {
    const token = parseBearer(header);
    return token !== null && timingSafeEqual(createHash('sha256').update(token).digest(), want);
  };
};

/**
 * GET /metrics in Prometheus' text format. No key by default (a scraper holds no API key);
 * with `token` (METRICS_TOKEN) it asks for `Authorization: Bearer <token>`.
 */
export const metricsEndpoint = (metrics: Metrics, token?: string): Middleware<AppState, AppContext> => {
  const authorized = token ? tokenMatches(token) : () => true;
  return async (ctx, next) => {
    if (ctx.path !== METRICS_PATH) return next();
    ctx.state.servedBy = METRICS_PATH;
    if (ctx.method !== 'GET' && ctx.method !== 'HEAD') {
      throw new ApiError(405, `${ctx.method} is not allowed on ${METRICS_PATH}; use GET`, {}, { Allow: 'GET, HEAD' });
    }
    if (!authorized(ctx.get('Authorization'))) {
      throw new ApiError(401, 'metrics need "Authorization: Bearer <METRICS_TOKEN>"', {}, { 'WWW-Authenticate': 'Bearer realm="metrics"' });
    }
    ctx.set('Content-Type', metrics.registry.contentType);
    ctx.set('Cache-Control', 'no-store');
    ctx.body = await metrics.scrape();
  };
};
