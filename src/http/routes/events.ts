import Router from '@koa/router';
import type * as t from 'io-ts';
import type { ParameterizedContext } from 'koa';
import type { EventFeed } from '../../eventstore/eventFeed';
import type { TailSubscription } from '../../feed/sharedTail';
import type { EventStore } from '../../eventstore/eventStore';
import { presetStreamName } from '../../presets/streamName';
import { ApiError, notFound } from '../errors';
import { requireScope } from '../middleware/auth';
import type { KeyRing } from '../../auth/apiKeys';
import { keyGoneEnvelope, watchKey } from '../keyGone';
import type { SseRegistry } from '../sse';
import { queryReader } from '../query';
import type { EventsBackwardsPage, EventsPage, PresetEventsPage } from '../schemas';
import type { AppContext, AppState } from '../types';
import { workspaceStreamPrefix } from '../../events/workspaceStreams';
import { eventJson, eventJsonText, revisionNumber } from '../../workspaceLog/eventJson';
import { WORKSPACE_EVENT_TYPES } from '../../workspaceLog/catalog';

/**
 * The events as stored, read from the event store (not the read model), for auditors (one
 * preset's stream) and analytics consumers (the workspace's events in global order, paged or as a
 * live server-sent event stream). Every answer is scoped by the caller's workspace through the
 * stream name, so another workspace's events are never read at all.
 */
export interface EventRouteDeps {
  /** One preset's stream. */
  eventStore: Pick<EventStore, 'read'>;
  /** The workspace's events, paged and live. */
  feed: EventFeed;
  sse: SseRegistry;
  sseHeartbeatMs: number;
  /** Tells a live stream when its key is revoked or expires (src/keys/keyRing.ts); absent: keys never change. */
  keyRing?: Pick<KeyRing, 'watch'>;
}

export const EVENTS_DEFAULT_LIMIT = 100;
export const EVENTS_MAX_LIMIT = 1000;

type Ctx = ParameterizedContext<AppState, AppContext>;

export const eventRoutes = (router: Router<AppState, AppContext>, deps: EventRouteDeps) => {
  const read = requireScope('presets:read');

  router.get('/api/v1/presets/:slug/events', read, async (ctx) =>
    streamHistory(
      ctx,
      deps,
      presetStreamName(ctx.state.workspaceId, ctx.params.slug!),
      `no preset ${JSON.stringify(ctx.params.slug)} in this workspace`,
    ),
  );

  router.get('/api/v1/events', read, async (ctx) => {
    const streamPrefix = workspaceStreamPrefix(ctx.state.workspaceId);
    // Not on HEAD: a stream without a body would only hold the connection open.
    const live = ctx.method === 'GET' && ctx.accepts('application/json', 'text/event-stream') === 'text/event-stream';
    if (live) return streamEvents(ctx, deps, streamPrefix);
    const q = queryReader(ctx.query);
    const direction = q.oneOf('direction', DIRECTIONS, 'forwards');
    const types = q.someOf('type', WORKSPACE_EVENT_TYPES);
    const limit = q.int('limit', 1, EVENTS_MAX_LIMIT, EVENTS_DEFAULT_LIMIT);
    if (direction === 'backwards') {
      q.absent('after', 'reading backwards pages with "before"');
      const before = q.position('before', ctx.query.before, deps.feed.maxPosition);
      q.done();
      // One more than asked: whether it exists says if there is an older page.
      const page = await deps.feed.readAllBackwards({ before, limit: limit + 1, streamPrefix, types });
      const data = page.slice(0, limit).map((e) => eventJson(e));
      const body: t.TypeOf<typeof EventsBackwardsPage> = {
        data,
        next_before: page.length > limit ? data[data.length - 1]!.position : null,
      };
      ctx.body = body;
      return;
    }
    q.absent('before', 'reading forwards pages with "after" ("before" is for direction=backwards)');
    const after = q.position('after', ctx.query.after, deps.feed.maxPosition);
    q.done();
    const data = (await deps.feed.readAll({ after, limit, streamPrefix, types })).map((e) => eventJson(e));
    // The feed has no end, so the cursor is given on every non-empty page; null: nothing new yet.
    const body: t.TypeOf<typeof EventsPage> = { data, next_after: data.length > 0 ? data[data.length - 1]!.position : null };
    ctx.body = body;
  });
};

/**
 * One stream's events by revision, paged (`from`, `limit`): a preset's history, or the workspace's
 * keys stream (src/http/routes/keys.ts). A stream with no event is a 404 with `missing`.
 */
export const streamHistory = async (ctx: Ctx, deps: Pick<EventRouteDeps, 'eventStore'>, stream: string, missing: string | null) => {
  const q = queryReader(ctx.query);
  const from = q.int('from', 0, Number.MAX_SAFE_INTEGER, 0);
  const limit = q.int('limit', 1, EVENTS_MAX_LIMIT, EVENTS_DEFAULT_LIMIT);
  q.done();
  // One more than asked: whether it exists says if there is a next page, and where it starts.
  const page = await deps.eventStore.read(stream, { fromRevision: BigInt(from), limit: limit + 1 });
  if (missing !== null && page.length === 0 && (from === 0 || (await deps.eventStore.read(stream, { limit: 1 })).length === 0)) {
    throw notFound(missing);
  }
  const next = page[limit];
  const body: t.TypeOf<typeof PresetEventsPage> = {
    data: page.slice(0, limit).map((e) => eventJson(e)),
    next_from: next ? revisionNumber(next.revision) : null,
  };
  ctx.body = body;
};

const DIRECTIONS = ['forwards', 'backwards'] as const;

/**
 * The live form of /api/v1/events: catch up after Last-Event-ID (or ?after, or from the start),
 * then follow. Each frame's id is the event's position and the subscription delivers strictly
 * after a position, so a consumer that reconnects with its Last-Event-ID gets every event once.
 */
const streamEvents = async (ctx: Ctx, deps: EventRouteDeps, streamPrefix: string) => {
  const q = queryReader(ctx.query);
  const lastEventId = ctx.get('Last-Event-ID');
  const afterQuery = q.position('after', ctx.query.after, deps.feed.maxPosition);
  const after = lastEventId !== '' ? q.position('Last-Event-ID', lastEventId, deps.feed.maxPosition) : afterQuery;
  const types = q.someOf('type', WORKSPACE_EVENT_TYPES);
  q.absent('before', 'a live stream reads forwards, after Last-Event-ID or "after"');
  if (ctx.query.direction !== undefined && ctx.query.direction !== 'forwards') q.absent('direction', 'a live stream reads forwards');
  q.done();
  const refusal = deps.sse.refusal(ctx.state.caller.keyId);
  if (refusal === 'closing')
    throw new ApiError(503, 'the service is shutting down; reconnect with Last-Event-ID', {}, { 'Retry-After': '1' });
  if (refusal) {
    const limit = refusal === 'per_key' ? deps.sse.limits.perKey : deps.sse.limits.perProcess;
    // Which cap, never which key: the operator raises SSE_MAX_PER_KEY or SSE_MAX_CONNECTIONS, or finds the client.
    ctx.state.log.warn({ cap: refusal, limit }, 'event stream refused: too many open streams');
    throw new ApiError(
      429,
      refusal === 'per_key'
        ? `this API key has ${limit} event streams open, the most it may; close one, or retry later`
        : `the service has ${limit} event streams open, the most it serves; retry later`,
      { cap: refusal, limit, retry_after_seconds: SSE_RETRY_AFTER_S },
      { 'Retry-After': String(SSE_RETRY_AFTER_S) },
    );
  }
  ctx.status = 200; // before the head is written: Koa ignores a status set after it
  const connection = deps.sse.open(ctx.res, { heartbeatMs: deps.sseHeartbeatMs, keyId: ctx.state.caller.keyId });
  if (!connection) throw new ApiError(503, 'the service is shutting down; reconnect with Last-Event-ID', {}, { 'Retry-After': '1' });
  ctx.respond = false; // the connection writes the response; Koa must not
  const log = ctx.state.log;
  const subscription = deps.feed.subscribe(
    after === undefined ? 'start' : { after },
    async (recorded) => {
      // Decoded and serialized once per event, however many streams it goes to.
      const { position, type, text } = eventJsonText(recorded);
      await connection.send(position, type, text);
    },
    {
      streamPrefix,
      types,
      onError: (error) => {
        log.error({ err: error }, 'event stream failed; ending it');
        connection.end();
      },
    },
  );
  const scanned = (subscription as Partial<TailSubscription>).scanned;
  if (scanned) connection.position(() => String(scanned()));
  // A revoked or expired key gets nothing more: its stream ends with an error frame, on every replica.
  const unwatch = watchKey(deps.keyRing, ctx.state.caller, (gone) => {
    log.info({ reason: gone }, 'event stream ended: its key is no longer honoured');
    connection.fail(JSON.stringify(keyGoneEnvelope(gone)));
  });
  // The request stays in flight (and its log line waits) until the stream closes.
  await connection.closed;
  unwatch();
  await subscription.stop();
};

/** How long a client refused for too many open streams is asked to wait. */
const SSE_RETRY_AFTER_S = 5;
