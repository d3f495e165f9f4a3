import type { Middleware } from 'koa';
import { parseBearer, type KeyRing, type Scope } from '../../auth/apiKeys';
import { connectionDigests } from '../../auth/connectionDigests';
import { ApiError } from '../errors';
import type { AppContext, AppState } from '../types';
import { actInWorkspace, WORKSPACE_PARAMETER } from './workspace';

export const CHALLENGE = { 'WWW-Authenticate': 'Bearer realm="presets"' };

/**
 * Every API request needs a known bearer key; the caller it names goes on `ctx.state.caller`.
 * The key is hashed once per connection while it sends the same one (connectionDigests).
 */
export const authenticate = (keyRing: KeyRing): Middleware<AppState, AppContext> => {
  const digestOf = connectionDigests();
  // Not async: what it throws, Koa's compose turns into a rejection; otherwise next()'s own promise goes on.
  return (ctx, next) => {
    const header = ctx.get('Authorization');
    if (!header) throw new ApiError(401, 'missing Authorization header; send "Authorization: Bearer <key>"', {}, CHALLENGE);
    const token = parseBearer(header);
    if (token === null) throw new ApiError(401, 'malformed Authorization header; expected "Bearer <key>"', {}, CHALLENGE);
    const caller = keyRing.byDigest(digestOf(ctx.req.socket, token));
    if (!caller) throw new ApiError(401, 'unknown API key', {}, CHALLENGE);
    ctx.state.caller = caller;
    actInWorkspace(ctx, ctx.query[WORKSPACE_PARAMETER], 'query');
    return next();
  };
};

export const requireScope =
  (scope: Scope): Middleware<AppState, AppContext> =>
  (ctx, next) => {
    if (!ctx.state.caller.scopes.has(scope)) {
      throw new ApiError(403, `this API key lacks the ${scope} scope`, { required_scope: scope });
    }
    return next();
  };
