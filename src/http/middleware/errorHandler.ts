import type { Middleware } from 'koa';
import { CommandRejected, PreconditionFailed, type RejectionKind } from '../../eventstore/commandHandler';
import { ConcurrencyConflict, StoreUnavailable } from '../../eventstore/eventStore';
import { ApiError, defaultMessage, envelope } from '../errors';
import type { AppContext, AppState } from '../types';

/**
 * The first middleware: whatever goes wrong below answers in the error envelope. Expected
 * failures map to their status; anything else is a 500 whose detail goes to the log only.
 */
export const errorHandler =
  ({ onStoreFault }: { onStoreFault?: () => void } = {}): Middleware<AppState, AppContext> =>
  async (ctx, next) => {
    try {
      await next();
      // Nothing answered (no route) or a bare status was set (405 from allowedMethods).
      if (ctx.status >= 400 && ctx.body == null) {
        const status = ctx.status;
        const message = status === 404 ? `no route for ${ctx.method} ${ctx.path}` : defaultMessage(status);
        ctx.body = envelope(status, message);
        ctx.status = status; // setting a body on an unset status would make it 200
      }
    } catch (error) {
      const { status, message, metadata, headers } = classify(error);
      if (error instanceof StoreUnavailable) onStoreFault?.();
      if (status >= 500) ctx.state.log.error({ err: error }, 'request failed');
      else if (status === 409) ctx.state.log.info({ conflict: (error as Error).message }, 'concurrency conflict');
      ctx.status = status;
      ctx.set(headers);
      ctx.body = envelope(status, message, metadata);
    }
  };

interface Classified {
  status: number;
  message: string;
  metadata: Record<string, unknown>;
  headers: Record<string, string>;
}

/** A decider's rejection, by its kind: the middleware knows no domain's rejections. */
const KIND_STATUS: Record<RejectionKind, number> = { not_found: 404, conflict: 409, forbidden: 403, precondition: 412, internal: 500 };

const rejected = ({ rejection }: CommandRejected): Classified => {
  const status = KIND_STATUS[rejection.kind];
  if (status >= 500) return { status, message: 'internal error; it has been logged', metadata: {}, headers: {} };
  return { status, message: rejection.message, metadata: rejection.reason ? { reason: rejection.reason } : {}, headers: {} };
};

const classify = (error: unknown): Classified => {
  if (error instanceof ApiError) return { status: error.status, message: error.message, metadata: error.metadata, headers: error.headers };
  // Before ConcurrencyConflict, of which it is a subclass.
  if (error instanceof PreconditionFailed) {
    return { status: 412, message: 'the preset is no longer at the revision named in If-Match; read it again', metadata: {}, headers: {} };
  }
  if (error instanceof ConcurrencyConflict) {
    return { status: 409, message: 'the preset (or the keys) was changed by a concurrent request; retry', metadata: {}, headers: {} };
  }
  if (error instanceof CommandRejected) return rejected(error);
  if (error instanceof StoreUnavailable) {
    return {
      status: 503,
      message: 'storage is unavailable; nothing was stored, retry later',
      metadata: {},
      headers: { 'Retry-After': '5' },
    };
  }
  // http-errors thrown by Koa or its libraries carry a status and an `expose` flag for 4xx.
  const httpError = error as { status?: unknown; expose?: unknown; message?: unknown };
  if (typeof httpError.status === 'number' && httpError.status >= 400 && httpError.status < 500 && httpError.expose === true) {
    return { status: httpError.status, message: String(httpError.message), metadata: {}, headers: {} };
  }
  return { status: 500, message: 'internal error; it has been logged', metadata: {}, headers: {} };
};
