import Koa from 'koa';
import compose from 'koa-compose';
import Router from '@koa/router';
import type * as t from 'io-ts';
import type { Logger } from 'pino';
import type { KeyRing } from '../auth/apiKeys';
import { SLUG } from '../presets/names';
import { serveConsole } from './console';
import { badRequest } from './errors';
import { authenticate } from './middleware/auth';
import { errorHandler } from './middleware/errorHandler';
import { rateLimit } from './middleware/rateLimit';
import { requestContext } from './middleware/requestContext';
import { checkParams, routerMiddleware, routesByShape } from './routing';
import { httpMetrics, metricsEndpoint } from './metricsEndpoint';
import type { Metrics } from '../observability/metrics';
import { auditRoutes, type AuditRouteDeps } from './routes/audit';
import { eventRoutes, type EventRouteDeps } from './routes/events';
import { consumerGroupRoutes, type ConsumerGroupRouteDeps } from './routes/consumerGroups';
import { designateRoutes } from './routes/designate';
import { dotpromptRoutes } from './routes/dotprompt';
import { docsRoutes, OPENAPI_PATH } from './routes/docs';
import { keyRoutes, type KeyRouteDeps } from './routes/keys';
import { checkLabel, lifecycleRoutes } from './routes/lifecycle';
import { releaseRoutes } from './routes/release';
import { readRoutes, type ReadDeps } from './routes/reads';
import { resolveRoutes } from './routes/resolve';
import { usageRoutes } from './routes/usage';
import type { UsageCounters } from '../usage/counters';
import type { UsageStore } from '../usage/usageStore';
import { webhookRoutes, type WebhookRouteDeps } from './routes/webhooks';
import { writeRoutes, type WriteDeps } from './routes/writes';
import type { HealthLive, HealthReady } from './schemas';
import type { AppContext, AppState } from './types';
import type { ReadModelQueries } from '../../projections/readmodel/readModel';

export { SLUG };

export interface AppDeps extends WriteDeps, EventRouteDeps, WebhookRouteDeps, ReadDeps, KeyRouteDeps, AuditRouteDeps {
  consumerGroups: ConsumerGroupRouteDeps['consumerGroups'];
  readModel: ReadModelQueries;
  logger: Logger;
  keyRing: KeyRing;
  /** For /health/ready: are the stores open and has the projector caught up? */
  readiness: () => Promise<{ ready: boolean; checks: Record<string, unknown> }>;
  /** Requests per minute per API key; unset: no limit. */
  rateLimitPerMinute?: number;
  /** Where the built web console is (served at `/`); unset: no console. */
  consoleDir?: string;
  /** The service's metrics; unset: nothing is counted. */
  metrics?: Metrics;
  /** Serve GET /metrics on this app (when METRICS_PORT does not give it a server of its own). */
  serveMetrics?: { token?: string };
  /** Usage counts (rollouts): where they are kept, and this process's counters (unset: resolutions are not counted). */
  usage: UsageStore;
  usageCounters?: Pick<UsageCounters, 'count'>;
  /**
   * Other protocols' routes on the API's router, behind the same authentication (the MCP server at
   * /mcp: src/mcp/route.ts), each given the app's deps; the composition root chooses them.
   */
  mounts?: readonly Mount[];
}

/** Routes of another protocol on the API's router: they get the app's deps, with how resolutions are counted. */
export type Mount = (
  api: Router<AppState, AppContext>,
  deps: AppDeps & { countResolution?: (format: string, outcome: string) => void },
) => void;

/** /health/live and /health/ready, which need no key. */
export const healthRoutes = (readiness: AppDeps['readiness']): Router<AppState, AppContext> => {
  const health = new Router<AppState, AppContext>();
  health.get('/health/live', (ctx) => {
    const body: t.TypeOf<typeof HealthLive> = { status: 'ok' };
    ctx.body = body;
  });
  health.get('/health/ready', async (ctx) => {
    const { ready, checks } = await readiness();
    ctx.status = ready ? 200 : 503;
    const body: t.TypeOf<typeof HealthReady> = { status: ready ? 'ready' : 'not_ready', checks };
    ctx.body = body;
  });
  return health;
};

/** A route's `:slug` (every route that names one). */
const checkSlug = (slug: string): void => {
  if (!SLUG.test(slug)) {
    throw badRequest('invalid slug', [
      { path: 'slug', message: 'must be 1–128 characters of A–Z a–z 0–9 . _ ~ -, starting with a letter or digit' },
    ]);
  }
};

/** The API's routes, which need a key (the auth middleware runs before them). */
export const apiRoutes = (deps: AppDeps): Router<AppState, AppContext> => {
  const api = new Router<AppState, AppContext>();
  readRoutes(api, deps);
  const { metrics } = deps;
  // The resolve endpoints and the MCP server's resolve tool count their resolutions alike.
  const resolving = {
    ...deps,
    countResolution: metrics ? (format: string, outcome: string) => metrics.resolutions.inc({ format, outcome }) : undefined,
  };
  resolveRoutes(api, resolving);
  usageRoutes(api, deps);
  eventRoutes(api, deps);
  writeRoutes(api, deps);
  dotpromptRoutes(api, deps);
  designateRoutes(api, deps);
  lifecycleRoutes(api, deps);
  releaseRoutes(api, deps);
  webhookRoutes(api, deps);
  consumerGroupRoutes(api, deps);
  keyRoutes(api, deps);
  auditRoutes(api, deps);
  for (const mount of deps.mounts ?? []) mount(api, resolving);
  checkParams(api, { slug: checkSlug, label: checkLabel });
  return api;
};

/** The Koa application, with every dependency passed in: no module-level state. */
export const createApp = (deps: AppDeps): Koa<AppState, AppContext> => {
  const app = new Koa<AppState, AppContext>();
  app.proxy = false;
  if (deps.metrics) app.use(httpMetrics(deps.metrics));
  app.use(requestContext(deps.logger));
  app.use(errorHandler({ onStoreFault: () => deps.metrics?.storeFaults.inc() }));
  // What needs no key: /metrics, /health/*, the contract and its page, the web console. An API
  // path (/api/…, but the contract) is none of them and skips them: a dispatch less for each.
  const open: Koa.Middleware<AppState, AppContext>[] = [];
  // Prometheus holds no API key: /metrics is open, or asks for METRICS_TOKEN.
  if (deps.metrics && deps.serveMetrics) open.push(metricsEndpoint(deps.metrics, deps.serveMetrics.token));

  // Each router consulted only for its own paths: a router costs every request it sees a dispatch.
  const health = routerMiddleware(healthRoutes(deps.readiness));
  open.push((ctx, next) => (ctx.path.startsWith('/health/') ? health(ctx, next) : next()));

  const docs = routerMiddleware(docsRoutes());
  const isDocs = (path: string) => path === OPENAPI_PATH || path === '/docs' || path.startsWith('/docs/');
  // A path under /docs that names nothing is a 404 (or 405), not a request for a key.
  open.push((ctx, next) => (isDocs(ctx.path) ? docs(ctx, async () => undefined) : next()));

  // Every API call the console's page makes needs a key; the page and its assets do not.
  if (deps.consoleDir) open.push(serveConsole(deps.consoleDir));
  const openPaths = compose(open);
  app.use((ctx, next) => {
    const path = ctx.path;
    return path.startsWith('/api/') && path !== OPENAPI_PATH ? next() : openPaths(ctx, next);
  });

  const api = apiRoutes(deps);
  app.use(authenticate(deps.keyRing));
  if (deps.rateLimitPerMinute) app.use(rateLimit(deps.rateLimitPerMinute, { onRefused: () => deps.metrics?.rateLimited.inc() }));
  app.use(routesByShape(api));
  return app;
};
