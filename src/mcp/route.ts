import Router from '@koa/router';
import type { ParameterizedContext } from 'koa';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import { startMcpSession, type McpSessionDeps } from './session';
import { ApiError, badRequest } from '../http/errors';
import { requireScope } from '../http/middleware/auth';
import { jsonBody } from '../http/middleware/jsonBody';
import { WORKSPACE_PARAMETER } from '../http/middleware/workspace';
import type { AppContext, AppState } from '../http/types';
import type { Mount } from '../http/app';
import type { McpSessions } from './sessions';

/**
 * The MCP server (docs/mcp.md) at /mcp, over MCP's Streamable HTTP transport
 * (@modelcontextprotocol/sdk): POST carries JSON-RPC messages (the first, `initialize`, starts a
 * session and its answer gives the `Mcp-Session-Id` header), GET opens the session's stream of
 * notifications, DELETE ends the session. Every request is authenticated as the API's are (a
 * bearer key with `presets:read`); a session acts for the key that started it, in the workspace
 * it started in (`workspace_id` as elsewhere), and only that key may use it.
 */
export interface McpRouteDeps extends McpSessionDeps {
  bodyLimitBytes: number;
}

export const MCP_PATH = '/mcp';
export const SESSION_HEADER = 'Mcp-Session-Id';
/** How long a client refused for too many sessions is asked to wait. */
const RETRY_AFTER_S = 5;

type Ctx = ParameterizedContext<AppState, AppContext>;

export const mcpRoutes = (router: Router<AppState, AppContext>, deps: McpRouteDeps) => {
  const sessions = deps.mcpSessions;

  /**
   * The transport answers on the Node response itself (a JSON answer, or the session's stream of
   * notifications); the request stays in flight, and its session busy, until that answer is done
   * or the client has gone.
   */
  const handOver = async (ctx: Ctx, handle: () => Promise<void>, sessionId?: string) => {
    const done = sessionId ? sessions.busy(sessionId) : () => undefined;
    ctx.respond = false;
    const closed = new Promise<void>((resolve) => ctx.res.once('close', resolve));
    const handling = handle().catch((err: unknown) => ctx.state.log.error({ err }, 'MCP request failed'));
    try {
      await Promise.race([handling, closed]);
    } finally {
      done();
    }
  };

  const existing = async (ctx: Ctx, id: string, body?: unknown) => {
    const session = sessions.get(id);
    // Another key's session is as unknown as an ended one: which sessions exist is nobody else's business.
    if (!session || session.keyId !== ctx.state.caller.keyId) {
      throw new ApiError(404, `no MCP session ${JSON.stringify(id)} for this API key: it ended, or never was; initialize a new one`, {
        reason: 'mcp_session_unknown',
      });
    }
    if (ctx.query[WORKSPACE_PARAMETER] !== undefined && ctx.state.workspaceId !== session.workspaceId) {
      throw badRequest('invalid workspace_id', [
        {
          path: WORKSPACE_PARAMETER,
          message: `this MCP session acts in workspace ${session.workspaceId}; start another session for another workspace`,
        },
      ]);
    }
    await handOver(ctx, () => session.handleRequest(ctx.req, ctx.res, body), id);
  };

  const start = async (ctx: Ctx) => {
    const refusal = sessions.refusal(ctx.state.caller.keyId);
    if (refusal === 'closing')
      throw new ApiError(503, 'the service is shutting down; start a session again shortly', {}, { 'Retry-After': '1' });
    if (refusal) {
      const limit = refusal === 'per_key' ? sessions.limits.perKey : sessions.limits.perProcess;
      // Which cap, never which key: the operator raises the cap, or finds the client.
      ctx.state.log.warn({ cap: refusal, limit }, 'MCP session refused: too many open sessions');
      throw new ApiError(
        429,
        refusal === 'per_key'
          ? `this API key has ${limit} MCP sessions open, the most it may; end one (DELETE /mcp), or retry later`
          : `the service has ${limit} MCP sessions open, the most it holds; retry later`,
        { cap: refusal, limit, retry_after_seconds: RETRY_AFTER_S },
        { 'Retry-After': String(RETRY_AFTER_S) },
      );
    }
    const { transport, ready } = startMcpSession(deps, ctx.state.caller, ctx.state.workspaceId, ctx.state.log);
    await ready;
    // The initialize request registers the session (startMcpSession's onsessioninitialized) as it is answered.
    await handOver(ctx, () => transport.handleRequest(ctx.req, ctx.res, ctx.state.body));
  };

  const noSession = () =>
    badRequest(`send the ${SESSION_HEADER} header of your MCP session, or POST an initialize request to start one`, [
      { path: SESSION_HEADER, message: 'is missing' },
    ]);

  const read = requireScope('presets:read');
  router.post(MCP_PATH, read, jsonBody(deps.bodyLimitBytes), async (ctx) => {
    const id = ctx.get(SESSION_HEADER);
    if (id) return existing(ctx, id, ctx.state.body);
    if (!isInitializeRequest(ctx.state.body)) throw noSession();
    return start(ctx);
  });
  for (const method of ['get', 'delete'] as const) {
    router[method](MCP_PATH, read, async (ctx) => {
      const id = ctx.get(SESSION_HEADER);
      if (!id) throw noSession();
      return existing(ctx, id);
    });
  }
};

/** The MCP server as the app mounts it (AppDeps.mounts), on these sessions. */
export const mcpMount =
  (mcpSessions: McpSessions): Mount =>
  (api, deps) =>
    mcpRoutes(api, { ...deps, mcpSessions });
