import Router from '@koa/router';
import * as E from 'fp-ts/Either';
import type * as t from 'io-ts';
import type { ParameterizedContext } from 'koa';
import {
  AckAnswer,
  AckBody,
  FETCH_MAX,
  FetchBody,
  GROUP_NAME_RULE,
  groupView,
  isGroupName,
  LAG_CAP,
  leaseView,
  PutConsumerGroupBody,
  type ConsumerGroupAnswer,
  type ConsumerGroupList,
  type FetchAnswer,
} from '../../consumerGroups/codecs';
import { unreadableRefusal, type Ack, type ConsumerGroups, type Refused, type Start } from '../../consumerGroups/consumerGroups';
import { filterFromJson, type ConsumerGroup } from '../../consumerGroups/group';
import { isReadable, isUnreadable } from '../../consumerGroups/store';
import type { KeyGone, KeyRing } from '../../auth/apiKeys';
import { formatErrors } from '../../validation';
import { keyGoneError, watchKey } from '../keyGone';
import { ApiError, badRequest } from '../errors';
import { fetchAnswer, fetchAnswerHead } from '../fetchAnswer';
import { requireScope } from '../middleware/auth';
import { jsonBody } from '../middleware/jsonBody';
import type { AppContext, AppState } from '../types';

/**
 * Consumer groups (scope events:consume): durable, server-side positions in the workspace's
 * events for analytics consumers, with leased batches (src/consumerGroups/). Another workspace's
 * group of the same name is a different group.
 */
export interface ConsumerGroupRouteDeps {
  consumerGroups: ConsumerGroups;
  bodyLimitBytes: number;
  now?: () => Date;
  /** Tells a long poll when its key is revoked or expires (src/keys/keyRing.ts); absent: keys never change. */
  keyRing?: Pick<KeyRing, 'watch'>;
}

type Ctx = ParameterizedContext<AppState, AppContext>;

export const consumerGroupLocation = (name: string) => `/api/v1/consumer-groups/${name}`;

const STATUS: Record<Refused['kind'], number> = {
  not_found: 404,
  too_many: 409,
  lease_open: 409,
  conflict: 409,
  no_lease: 409,
  lease_lost: 409,
  out_of_range: 400,
  group_unreadable: 409,
};

const refused = (r: Refused): ApiError => {
  const retry = 'retryAfterSeconds' in r ? r.retryAfterSeconds : undefined;
  return new ApiError(
    STATUS[r.kind],
    r.message,
    { reason: r.kind, ...(retry !== undefined ? { retry_after_seconds: retry } : {}) },
    retry !== undefined ? { 'Retry-After': String(retry) } : {},
  );
};

/** An acknowledgement's body (of `ack`, or a fetch's `ack` at `path`) as the use case takes it. */
const ackOf = (b: AckBody, path: string): Ack => {
  if (b.lease_id === undefined && b.position === undefined) {
    throw badRequest('an acknowledgement names the lease or the last position handled', [
      { path, message: 'give "lease_id", "position", or both' },
    ]);
  }
  return { leaseId: b.lease_id, position: b.position === undefined ? undefined : BigInt(b.position) };
};

export const consumerGroupRoutes = (router: Router<AppState, AppContext>, deps: ConsumerGroupRouteDeps) => {
  const consume = requireScope('events:consume');
  const body = jsonBody(deps.bodyLimitBytes);
  const now = deps.now ?? (() => new Date());
  const groups = deps.consumerGroups;

  const decode = <C extends t.Any>(codec: C, ctx: Ctx, what: string): t.TypeOf<C> => {
    const r = codec.decode(ctx.state.body ?? {});
    if (E.isLeft(r)) throw badRequest(`the body is not ${what}`, formatErrors(r.left));
    return r.right;
  };
  const name = (ctx: Ctx): string => {
    const n = ctx.params.name!;
    if (!isGroupName(n)) throw badRequest('invalid consumer group name', [{ path: 'name', message: GROUP_NAME_RULE }]);
    return n;
  };
  const view = async (group: ConsumerGroup) => groupView(group, await groups.lag(group, LAG_CAP), now());
  const unwrap = <A>(r: E.Either<Refused, A>): A => {
    if (E.isLeft(r)) throw refused(r.left);
    return r.right;
  };

  router.put('/api/v1/consumer-groups/:name', consume, body, async (ctx) => {
    const n = name(ctx);
    const b = decode(PutConsumerGroupBody, ctx, 'a consumer group: {"filter"?: {"types"?, "slug_prefix"?}, "start"?, "lease_ms"?}');
    const start: Start | undefined =
      b.start === undefined || b.start === 'beginning' || b.start === 'now' ? b.start : { after: BigInt(b.start) };
    // As ?after= on the feed: a position past any the store can hold is refused, and nothing is stored.
    if (typeof start === 'object' && start.after > groups.maxPosition) {
      throw badRequest('the body is not a consumer group', [
        { path: '$.start', message: `must be an event position of at most ${groups.maxPosition} (this store holds none larger)` },
      ]);
    }
    const { group, created } = unwrap(
      await groups.define(ctx.state.workspaceId, n, {
        filter: filterFromJson(b.filter),
        start,
        leaseMs: b.lease_ms,
      }),
    );
    ctx.status = created ? 201 : 200;
    if (created) ctx.set('Location', consumerGroupLocation(n));
    const answer: t.TypeOf<typeof ConsumerGroupAnswer> = { data: await view(group) };
    ctx.body = answer;
  });

  router.get('/api/v1/consumer-groups', consume, async (ctx) => {
    const list = await groups.list(ctx.state.workspaceId);
    const answer: t.TypeOf<typeof ConsumerGroupList> = {
      data: await Promise.all(list.filter(isReadable).map(view)),
      unreadable: list.filter(isUnreadable).map((g) => ({ name: g.name, message: unreadableRefusal(g).message })),
    };
    if (answer.unreadable.length > 0) ctx.state.log.warn({ unreadable: answer.unreadable }, 'consumer groups that cannot be read');
    ctx.body = answer;
  });

  router.get('/api/v1/consumer-groups/:name', consume, async (ctx) => {
    const n = name(ctx);
    const group = await groups.get(ctx.state.workspaceId, n);
    if (!group) throw refused({ kind: 'not_found', message: `no consumer group ${JSON.stringify(n)} in this workspace` });
    if (isUnreadable(group)) throw refused(unreadableRefusal(group));
    const answer: t.TypeOf<typeof ConsumerGroupAnswer> = { data: await view(group) };
    ctx.body = answer;
  });

  router.delete('/api/v1/consumer-groups/:name', consume, async (ctx) => {
    const n = name(ctx);
    if (!(await groups.remove(ctx.state.workspaceId, n)))
      throw refused({ kind: 'not_found', message: `no consumer group ${JSON.stringify(n)} in this workspace` });
    ctx.status = 204;
  });

  router.post('/api/v1/consumer-groups/:name/fetch', consume, body, async (ctx) => {
    const n = name(ctx);
    const b = decode(FetchBody, ctx, 'a fetch: {"max"?: 1–1000, "wait_ms"?: 0–30000, "ack"?: {"lease_id"?, "position"?}}');
    const ack = b.ack === undefined ? undefined : ackOf(b.ack, '$.ack');
    // The caller gone, or its key revoked or expired: the wait ends with it, and nothing is leased to nobody.
    const gone = new AbortController();
    const onClose = () => {
      if (!ctx.res.writableFinished) gone.abort();
    };
    ctx.res.once('close', onClose);
    let keyGone: KeyGone | undefined;
    const unwatch = watchKey(deps.keyRing, ctx.state.caller, (why) => {
      keyGone = why;
      gone.abort();
    });
    const outcome = await groups
      .fetch(ctx.state.workspaceId, n, { max: b.max ?? FETCH_MAX.default, waitMs: b.wait_ms ?? 0, signal: gone.signal, ack })
      .finally(() => {
        ctx.res.off('close', onClose);
        unwatch();
      });
    // A batch leased as the key went is not handed to it: its lease expires and the events come again.
    if (keyGone) throw keyGoneError(keyGone);
    const fetched = unwrap(outcome);
    const lease: t.TypeOf<typeof FetchAnswer>['lease'] =
      fetched.events.length > 0 && fetched.group.lease ? leaseView(fetched.group.lease) : null;
    // A FetchAnswer written as bytes: the events' JSON from the store's own text where it can be
    // (src/workspaceLog/eventJson.ts), a batch of 1,000 not parsed and serialized again; made while the
    // batch was read ahead, when it was.
    ctx.type = 'application/json';
    ctx.body = fetchAnswer(fetched.prepared ?? fetchAnswerHead(fetched.events), lease);
  });

  router.post('/api/v1/consumer-groups/:name/ack', consume, body, async (ctx) => {
    const n = name(ctx);
    const b = decode(AckBody, ctx, 'an acknowledgement: {"lease_id"} or {"position"} or both');
    const group = unwrap(await groups.ack(ctx.state.workspaceId, n, ackOf(b, '$')));
    const answer: t.TypeOf<typeof AckAnswer> = {
      data: {
        name: group.name,
        position: group.checkpoint === null ? null : group.checkpoint.toString(),
        acknowledged_at: group.updatedAt,
      },
    };
    ctx.body = answer;
  });
};
