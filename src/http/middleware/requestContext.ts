import { randomUUID } from 'node:crypto';
import type { Middleware, Next, ParameterizedContext } from 'koa';
import type { Logger } from 'pino';
import type { Caller } from '../../auth/apiKeys';
import type { AppContext, AppState } from '../types';

const CLIENT_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/**
 * Before everything else: a request id (the client's, when it is a sane one), a logger bound to
 * it, API headers, and one log line per request. Neither the Authorization header nor bodies
 * are ever logged.
 *
 * Not an async function, like the key's middleware (auth.ts): a request that logs no line passes
 * on `next()`'s own promise, without a frame of its own waiting for it on every request.
 */
export const requestContext =
  (logger: Logger): Middleware<AppState, AppContext> =>
  (ctx, next) => {
    const incoming = ctx.get('X-Request-Id');
    const requestId = CLIENT_REQUEST_ID.test(incoming) ? incoming : randomUUID();
    ctx.state = new RequestState(requestId, logger);
    // On ctx.res, as ctx.set would (no header is sent yet), without the arrays Koa's set makes per call (jsonData.ts).
    ctx.res.setHeader('X-Request-Id', requestId);
    ctx.res.setHeader('X-Content-Type-Options', 'nosniff');
    ctx.res.setHeader('Cache-Control', 'no-store');
    return logger.isLevelEnabled('info') ? logged(logger, requestId, ctx, next) : next();
  };

/** The request's log line, once it is answered. */
const logged = async (logger: Logger, requestId: string, ctx: ParameterizedContext<AppState, AppContext>, next: Next) => {
  const started = process.hrtime.bigint();
  try {
    await next();
  } finally {
    const ms = Number(process.hrtime.bigint() - started) / 1e6;
    // The root logger with the id in the line: the same fields as the bound logger's, without making one.
    logger.info(
      { requestId, method: ctx.method, path: ctx.path, status: ctx.status, ms: Math.round(ms * 10) / 10, keyId: ctx.state.caller?.keyId },
      'request',
    );
  }
};

/**
 * `ctx.state`: the logger bound to the request id is made when something logs through it (an
 * error, a conflict, an event stream), not for every request; making one serializes its bindings.
 */
class RequestState implements AppState {
  declare caller: Caller; // set by the auth middleware
  declare workspaceId: string; // set by the auth middleware (middleware/workspace.ts)
  declare body: unknown; // set by the JSON body middleware
  private bound: Logger | undefined;
  constructor(
    readonly requestId: string,
    private readonly root: Logger,
  ) {}
  get log(): Logger {
    return (this.bound ??= this.root.child({ requestId: this.requestId }));
  }
}
