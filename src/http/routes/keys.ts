import Router from '@koa/router';
import * as E from 'fp-ts/Either';
import type * as t from 'io-ts';
import { CreateKeyBody, keyView, type KeyCreated, type KeyList, type KeyAnswer, type MeAnswer } from '../../keys/codecs';
import type { KeyCommandHandler } from '../../keys/handler';
import type { LiveKeyRing } from '../../keys/keyRing';
import { formatErrors } from '../../validation';
import { badRequest, notFound } from '../errors';
import { requireScope } from '../middleware/auth';
import { jsonBody } from '../middleware/jsonBody';
import type { AppContext, AppState } from '../types';
import { streamHistory, type EventRouteDeps } from './events';
import { keysStreamName } from '../../keys/streamName';

/**
 * The keys API (scope keys:manage): keys made through it, in the workspace the request acts in.
 * A key is shown once, in the answer that makes it; lists show who holds what, never a key or its hash.
 */
export interface KeyRouteDeps extends Pick<EventRouteDeps, 'eventStore'> {
  /** Absent where an app is made without the keys API (some tests): its routes then answer 404. */
  keys?: { handler: KeyCommandHandler; ring: LiveKeyRing };
  bodyLimitBytes: number;
}

export const keyLocation = (id: string) => `/api/v1/keys/${id}`;

export const keyRoutes = (router: Router<AppState, AppContext>, deps: KeyRouteDeps) => {
  const manage = requireScope('keys:manage');
  const keys = () => {
    if (!deps.keys) throw notFound('this service has no keys API');
    return deps.keys;
  };

  // A key that may read may ask who it is.
  router.get('/api/v1/me', requireScope('presets:read'), async (ctx) => {
    const { caller, workspaceId } = ctx.state;
    const answer: t.TypeOf<typeof MeAnswer> = {
      data: {
        user_id: caller.userId,
        workspace_id: workspaceId,
        workspaces: [...caller.workspaces],
        scopes: [...caller.scopes],
        key_id: caller.apiKeyId ?? null,
      },
    };
    ctx.body = answer;
  });

  router.post('/api/v1/keys', manage, jsonBody(deps.bodyLimitBytes), async (ctx) => {
    const decoded = CreateKeyBody.decode(ctx.state.body);
    if (E.isLeft(decoded)) {
      throw badRequest(
        'the body must be a key: {"scopes": [...], "workspaces": [uuid, ...], "user_id"?: "…", "name"?: "…", "expires_at"?: "RFC 3339 date-time"}',
        formatErrors(decoded.left),
      );
    }
    const body = decoded.right;
    const expiresAt = body.expires_at ? new Date(body.expires_at) : null;
    if (expiresAt !== null && expiresAt.getTime() <= Date.now()) {
      throw badRequest('the key would be expired already', [{ path: '$.expires_at', message: 'must be in the future' }]);
    }
    const { key, record } = await keys().handler.create(
      {
        ...(body.user_id === undefined ? {} : { userId: body.user_id }),
        name: body.name ?? null,
        scopes: body.scopes,
        workspaces: body.workspaces,
        expiresAt,
      },
      { requestId: ctx.state.requestId, caller: ctx.state.caller, workspaceId: ctx.state.workspaceId },
    );
    ctx.status = 201;
    ctx.set('Location', keyLocation(record.id));
    const answer: t.TypeOf<typeof KeyCreated> = { data: { ...keyView(record), key } };
    ctx.body = answer;
  });

  router.get('/api/v1/keys', manage, async (ctx) => {
    const all = keys().ring.list(ctx.state.workspaceId).map(keyView);
    const answer: t.TypeOf<typeof KeyList> = { data: all, total_count: all.length };
    ctx.body = answer;
  });

  // The history of the workspace's keys stream, for auditors: who made and revoked which key, when.
  router.get('/api/v1/keys/events', requireScope('presets:read'), async (ctx) =>
    streamHistory(ctx, deps, keysStreamName(ctx.state.workspaceId), null),
  );

  router.delete('/api/v1/keys/:id', manage, async (ctx) => {
    const record = await keys().handler.revoke(ctx.params.id!, {
      requestId: ctx.state.requestId,
      caller: ctx.state.caller,
      workspaceId: ctx.state.workspaceId,
    });
    if (!record) throw notFound(`no key ${JSON.stringify(ctx.params.id)} in this workspace`);
    const answer: t.TypeOf<typeof KeyAnswer> = { data: keyView(record) };
    ctx.body = answer;
  });
};
