import { randomUUID } from 'node:crypto';
import Router from '@koa/router';
import * as E from 'fp-ts/Either';
import type * as t from 'io-ts';
import type { ParameterizedContext } from 'koa';
import type { EventFeed } from '../../eventstore/eventFeed';
import { formatErrors } from '../../validation';
import {
  CreateWebhookBody,
  deliveryView,
  PatchWebhookBody,
  ReplayBody,
  webhookView,
  type DeliveriesPage,
  type WebhookAnswer,
  type WebhookCreated,
  type WebhookList,
  type WebhookRotated,
} from '../../webhooks/codecs';
import { checkDestination, type DestinationPolicy } from '../../webhooks/destination';
import { newSecret } from '../../webhooks/signing';
import {
  MAX_WEBHOOKS_PER_WORKSPACE,
  newWebhook,
  patchWebhook,
  rotateSecret,
  type StoredWebhook,
  type Webhook,
} from '../../webhooks/webhook';
import { InvalidCursor, type WebhookStore } from '../../webhooks/webhookStore';
import { ApiError, badRequest, notFound } from '../errors';
import { requireScope } from '../middleware/auth';
import { jsonBody } from '../middleware/jsonBody';
import { queryReader } from '../query';
import type { AppContext, AppState } from '../types';
import { workspaceStreamPrefix } from '../../events/workspaceStreams';

/**
 * The webhooks API (scope webhooks:manage): registrations, their recent delivery attempts,
 * replay and secret rotation. Every webhook belongs to the caller's workspace; another
 * workspace's is a 404. Each change is passed to the deliverer at once, so a paused, changed or
 * deleted webhook sends nothing more with its old settings after the answer.
 */
export interface WebhookRouteDeps {
  webhooks: WebhookStore;
  /** Where a new webhook starts: after the workspace's last event (headPosition). */
  feed: EventFeed;
  destinationPolicy: DestinationPolicy;
  /** The deliverer of this process; undefined with WEBHOOKS=off (the delivering replica resyncs on its own). */
  webhookChanged?: (workspaceId: string, id: string) => Promise<void>;
  bodyLimitBytes: number;
}

export const DELIVERIES_DEFAULT_LIMIT = 50;
export const DELIVERIES_MAX_LIMIT = 100;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

type Ctx = ParameterizedContext<AppState, AppContext>;

export const webhookLocation = (id: string) => `/api/v1/webhooks/${id}`;

export const webhookRoutes = (router: Router<AppState, AppContext>, deps: WebhookRouteDeps) => {
  const manage = requireScope('webhooks:manage');
  // Deliveries carry presets' content (system prompts, configs): a key that could point a webhook
  // anywhere, or replay one, without presets:read could read through it what it may not read itself.
  const readsPresets = requireScope('presets:read');
  const body = jsonBody(deps.bodyLimitBytes);
  const changed = async (workspaceId: string, id: string) => deps.webhookChanged?.(workspaceId, id);

  const decode = <C extends t.Any>(codec: C, ctx: Ctx, what: string): t.TypeOf<C> => {
    const r = codec.decode(ctx.state.body);
    if (E.isLeft(r)) throw badRequest(`the body is not ${what}`, formatErrors(r.left));
    return r.right;
  };
  const checkUrl = async (url: string) => {
    const checked = await checkDestination(url, deps.destinationPolicy);
    if (!checked.ok) throw badRequest('the webhook URL cannot be used', [{ path: '$.url', message: checked.problem }]);
  };
  const find = async (ctx: Ctx): Promise<StoredWebhook> => {
    const id = ctx.params.id!;
    const stored = UUID.test(id) ? await deps.webhooks.get(ctx.state.workspaceId, id) : null;
    if (!stored) throw notFound(`no webhook ${JSON.stringify(id)} in this workspace`);
    return stored;
  };
  /** Read, change, write if nobody wrote in between; a few tries, since the deliverer may disable it meanwhile. */
  const change = async (ctx: Ctx, apply: (w: Webhook) => { webhook: Webhook; resetFailures?: boolean } | null): Promise<StoredWebhook> => {
    for (let tries = 0; tries < 3; tries++) {
      const stored = await find(ctx);
      const next = apply(stored.webhook);
      if (!next) return stored;
      if (await deps.webhooks.update(next.webhook, stored.webhook.revision, { resetFailures: next.resetFailures })) {
        await changed(stored.webhook.workspaceId, stored.webhook.id);
        return (await deps.webhooks.get(stored.webhook.workspaceId, stored.webhook.id)) ?? { ...stored, webhook: next.webhook };
      }
    }
    throw new ApiError(409, 'the webhook was changed by a concurrent request; retry');
  };

  router.post('/api/v1/webhooks', manage, readsPresets, body, async (ctx) => {
    const input = decode(CreateWebhookBody, ctx, 'a webhook: {"url": "https://…", "events"?: […], "description"?: "…"}');
    await checkUrl(input.url);
    const { workspaceId } = ctx.state;
    if ((await deps.webhooks.list(workspaceId)).length >= MAX_WEBHOOKS_PER_WORKSPACE) {
      throw new ApiError(409, `a workspace has at most ${MAX_WEBHOOKS_PER_WORKSPACE} webhooks; delete one first`, {
        limit: MAX_WEBHOOKS_PER_WORKSPACE,
      });
    }
    const secret = newSecret();
    const stored = newWebhook(
      { url: input.url, events: input.events && [...new Set(input.events)], description: input.description },
      {
        id: randomUUID(),
        workspaceId,
        secret,
        now: new Date(),
        checkpoint: await deps.feed.headPosition({ streamPrefix: workspaceStreamPrefix(workspaceId) }),
      },
    );
    await deps.webhooks.insert(stored);
    await changed(workspaceId, stored.webhook.id);
    ctx.status = 201;
    ctx.set('Location', webhookLocation(stored.webhook.id));
    ctx.body = { data: { ...webhookView(stored), secret } } satisfies t.TypeOf<typeof WebhookCreated>;
  });

  router.get('/api/v1/webhooks', manage, async (ctx) => {
    const all = await deps.webhooks.list(ctx.state.workspaceId);
    ctx.body = { data: all.map(webhookView), total_count: all.length } satisfies t.TypeOf<typeof WebhookList>;
  });

  router.get('/api/v1/webhooks/:id', manage, async (ctx) => {
    ctx.body = { data: webhookView(await find(ctx)) } satisfies t.TypeOf<typeof WebhookAnswer>;
  });

  router.patch('/api/v1/webhooks/:id', manage, readsPresets, body, async (ctx) => {
    const patch = decode(PatchWebhookBody, ctx, 'changes to a webhook: any of url, events, description, status (active or paused)');
    if (patch.url !== undefined) await checkUrl(patch.url);
    const events = patch.events && [...new Set(patch.events)];
    const stored = await change(ctx, (w) => {
      const next = patchWebhook(w, { ...patch, events }, new Date());
      return next && { webhook: next.webhook, resetFailures: next.reactivated };
    });
    ctx.body = { data: webhookView(stored) } satisfies t.TypeOf<typeof WebhookAnswer>;
  });

  router.delete('/api/v1/webhooks/:id', manage, async (ctx) => {
    const { webhook } = await find(ctx);
    if (!(await deps.webhooks.delete(webhook.workspaceId, webhook.id)))
      throw notFound(`no webhook ${JSON.stringify(webhook.id)} in this workspace`);
    await changed(webhook.workspaceId, webhook.id);
    ctx.status = 204;
  });

  router.get('/api/v1/webhooks/:id/deliveries', manage, async (ctx) => {
    const q = queryReader(ctx.query);
    const limit = q.int('limit', 1, DELIVERIES_MAX_LIMIT, DELIVERIES_DEFAULT_LIMIT);
    const before = ctx.query.before;
    if (before !== undefined && (typeof before !== 'string' || !/^[0-9A-Za-z]{1,64}$/.test(before))) {
      throw badRequest('invalid query parameters', [
        { path: 'before', message: 'must be the id of an attempt, as a previous page gave it' },
      ]);
    }
    q.done();
    const { webhook } = await find(ctx);
    // One more than asked: whether it exists says if there is a next page.
    const attempts = await deps.webhooks.deliveries(webhook.id, { limit: limit + 1, before }).catch((error: unknown) => {
      if (error instanceof InvalidCursor)
        throw badRequest('invalid query parameters', [
          { path: 'before', message: 'must be the id of an attempt, as a previous page gave it' },
        ]);
      throw error;
    });
    const page = attempts.slice(0, limit);
    ctx.body = {
      data: page.map(deliveryView),
      next_before: attempts.length > limit ? page[page.length - 1]!.id : null,
    } satisfies t.TypeOf<typeof DeliveriesPage>;
  });

  router.post('/api/v1/webhooks/:id/replay', manage, readsPresets, body, async (ctx) => {
    const { after } = decode(ReplayBody, ctx, '{"after": "<position>"}, a position as events show theirs');
    if (BigInt(after) > deps.feed.maxPosition)
      throw badRequest('the body is not {"after": "<position>"}', [
        { path: '$.after', message: `must be an event position of at most ${deps.feed.maxPosition} (this store holds none larger)` },
      ]);
    const { webhook } = await find(ctx);
    const progress = await deps.webhooks.rewind(webhook.workspaceId, webhook.id, BigInt(after));
    if (!progress) throw notFound(`no webhook ${JSON.stringify(webhook.id)} in this workspace`);
    await changed(webhook.workspaceId, webhook.id);
    ctx.body = { data: webhookView({ webhook, progress }) } satisfies t.TypeOf<typeof WebhookAnswer>;
  });

  router.post('/api/v1/webhooks/:id/rotate-secret', manage, readsPresets, async (ctx) => {
    const secret = newSecret();
    const now = new Date();
    const stored = await change(ctx, (w) => ({ webhook: rotateSecret(w, secret, now) }));
    const previous = stored.webhook.secrets[1];
    ctx.body = {
      data: { ...webhookView(stored), secret, previous_secret_expires_at: previous?.expiresAt ?? now.toISOString() },
    } satisfies t.TypeOf<typeof WebhookRotated>;
  });
};
