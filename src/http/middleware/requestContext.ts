import { randomUUID } from 'node:crypto';
import type { Middleware } from 'koa';
import type { Logger } from 'pino';
import type { AppContext, AppState } from '../types';

const CLIENT_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/**
 * Before everything else: a request id (the client's, when it is a sane one), a logger bound to
 * it, API headers, and one log line per request. Neither the Authorization header nor bodies
 * are ever logged.
 */
export const requestContext = (logger: Logger): Middleware<AppState, AppContext> => async (ctx, next) => {
  const incoming = ctx.get('X-Request-Id');
  const requestId = CLIENT_REQUEST_ID.test(incoming) ? incoming : randomUUID();
  ctx.state.requestId = requestId;
  ctx.state.log = logger.child({ requestId });
  ctx.set('X-Request-Id', requestId);
  ctx.set('X-Content-Type-Options', 'nosniff');
  ctx.set('Cache-Control', 'no-store');
  const started = process.hrtime.bigint();
  try {
    await next();
  } finally {
    const ms = Number(process.hrtime.bigint() - started) / 1e6;
    ctx.state.log.info(
      { method: ctx.method, path: ctx.path, status: ctx.status, ms: Math.round(ms * 10) / 10, keyId: ctx.state.caller?.keyId },
      'request',
    );
  }
};
