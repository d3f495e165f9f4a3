import Koa from 'koa';
import Router from '@koa/router';
import type { Logger } from 'pino';
import type { KeyRing } from '../auth/apiKeys';
import { serveConsole } from './console';
import { badRequest } from './errors';
import { authenticate } from './middleware/auth';
import { errorHandler } from './middleware/errorHandler';
import { rateLimit } from './middleware/rateLimit';
import { requestContext } from './middleware/requestContext';
import { eventRoutes, type EventRouteDeps } from './routes/events';
import { designateRoutes } from './routes/designate';
import { lifecycleRoutes } from './routes/lifecycle';
import { readRoutes } from './routes/reads';
import { webhookRoutes, type WebhookRouteDeps } from './routes/webhooks';
import { writeRoutes, type WriteDeps } from './routes/writes';
import type { AppContext, AppState } from './types';
import type { ReadModelQueries } from '../../projections/readmodel/readModel';

/** Slugs are 1–128 URL-safe characters, starting with a letter or digit (so never `.` or `..`). */
export const SLUG = /^[A-Za-z0-9][A-Za-z0-9._~-]{0,127}$/;

export interface AppDeps extends WriteDeps, EventRouteDeps, WebhookRouteDeps {
  readModel: ReadModelQueries;
  logger: Logger;
  keyRing: KeyRing;
  /** For /health/ready: are the stores open and has the projector caught up? */
  readiness: () => Promise<{ ready: boolean; checks: Record<string, unknown> }>;
  /** Requests per minute per API key; unset: no limit. */
  rateLimitPerMinute?: number;
  /** Where the built web console is (served at `/`); unset: no console. */
  consoleDir?: string;
}

/** The Koa application, with every dependency passed in: no module-level state. */
export const createApp = (deps: AppDeps): Koa<AppState, AppContext> => {
  const app = new Koa<AppState, AppContext>();
  app.proxy = false;
  app.use(requestContext(deps.logger));
  app.use(errorHandler());

  const health = new Router<AppState, AppContext>();
  health.get('/health/live', (ctx) => {
    ctx.body = { status: 'ok' };
  });
  health.get('/health/ready', async (ctx) => {
    const { ready, checks } = await deps.readiness();
    ctx.status = ready ? 200 : 503;
    ctx.body = { status: ready ? 'ready' : 'not_ready', checks };
  });
  // Consulted only for its own paths: a router costs every request it sees a dispatch.
  // (Typed as plain Koa middleware: the router's own type asks for the context fields it sets itself.)
  const healthRoutes = health.routes() as unknown as Koa.Middleware<AppState, AppContext>;
  const healthMethods = health.allowedMethods() as unknown as Koa.Middleware<AppState, AppContext>;
  app.use((ctx, next) => (ctx.path.startsWith('/health/') ? healthRoutes(ctx, () => healthMethods(ctx, next)) : next()));
  // The console's page and assets need no key: before the auth middleware.
  if (deps.consoleDir) app.use(serveConsole(deps.consoleDir));

  const api = new Router<AppState, AppContext>();
  api.param('slug', async (slug, ctx, next) => {
    if (!SLUG.test(slug)) {
      throw badRequest('invalid slug', [{ path: 'slug', message: 'must be 1–128 characters of A–Z a–z 0–9 . _ ~ -, starting with a letter or digit' }]);
    }
    await next();
  });
  readRoutes(api, deps.readModel);
  eventRoutes(api, deps);
  writeRoutes(api, deps);
  designateRoutes(api, deps);
  lifecycleRoutes(api, deps);
  webhookRoutes(api, deps);
  app.use(authenticate(deps.keyRing));
  if (deps.rateLimitPerMinute) app.use(rateLimit(deps.rateLimitPerMinute));
  app.use(api.routes()).use(api.allowedMethods());
  return app;
};
