import type { ParameterizedContext } from 'koa';
import { isUuid } from '../../auth/keysFile';
import { ApiError, badRequest } from '../errors';
import type { AppContext, AppState } from '../types';

/**
 * The workspace a request acts in, as OpenRouter chooses it: `workspace_id` as a query parameter,
 * or as a field of a JSON body; without either, the key's first workspace. A workspace the key
 * does not hold is a 403 that says so. The auth middleware calls `actInWorkspace` with the query's,
 * the JSON body middleware with the body's (and takes the field out of the body, so no route
 * sees it as part of a preset or a request format); nothing else chooses a workspace.
 */
export const WORKSPACE_PARAMETER = 'workspace_id';

export const actInWorkspace = (ctx: ParameterizedContext<AppState, AppContext>, requested: unknown, where: 'query' | 'body'): void => {
  const path = where === 'query' ? WORKSPACE_PARAMETER : `$.${WORKSPACE_PARAMETER}`;
  if (requested === undefined) {
    ctx.state.workspaceId ??= ctx.state.caller.workspaces[0]!;
    return;
  }
  if (typeof requested !== 'string' || !isUuid(requested)) {
    throw badRequest('invalid workspace_id', [{ path, message: 'must be a workspace id (a UUID), given once' }]);
  }
  const workspaceId = requested.toLowerCase();
  if (where === 'body' && ctx.query[WORKSPACE_PARAMETER] !== undefined && ctx.state.workspaceId.toLowerCase() !== workspaceId) {
    throw badRequest('invalid workspace_id', [{ path, message: 'names another workspace than the workspace_id query parameter' }]);
  }
  if (!ctx.state.caller.workspaces.some((w) => w.toLowerCase() === workspaceId)) {
    throw new ApiError(403, `this API key does not hold workspace ${workspaceId}`, {
      reason: 'workspace_not_held',
      workspace_id: workspaceId,
    });
  }
  ctx.state.workspaceId = ctx.state.caller.workspaces.find((w) => w.toLowerCase() === workspaceId)!;
};

/** The body without its `workspace_id` field, once `actInWorkspace` has taken it. */
export const takeWorkspaceField = (ctx: ParameterizedContext<AppState, AppContext>): void => {
  const body = ctx.state.body;
  if (typeof body !== 'object' || body === null || Array.isArray(body) || !Object.hasOwn(body, WORKSPACE_PARAMETER)) return;
  const { [WORKSPACE_PARAMETER]: requested, ...rest } = body as Record<string, unknown>;
  actInWorkspace(ctx, requested, 'body');
  ctx.state.body = rest;
};
