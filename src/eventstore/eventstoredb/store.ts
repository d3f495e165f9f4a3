// This file is longer than 400 lines because it is one adapter of three ports (EventStore, EventFeed,
// StreamReader) and the hash chain's links over one client, sharing its error mapping and position codec.
import { randomUUID } from 'node:crypto';
import {
  AccessDeniedError,
  BACKWARDS,
  CancelledError,
  DeadlineExceededError,
  END,
  EventStoreDBClient,
  FORWARDS,
  InvalidArgumentError,
  NO_STREAM,
  NotLeaderError,
  START,
  StreamNotFoundError,
  TimeoutError,
  UnavailableError,
  UnsupportedError,
  WrongExpectedVersionError,
  excludeSystemEvents,
  jsonEvent,
  streamNameFilter,
  type AllStreamSubscription,
  type AppendExpectedRevision,
  type JSONType,
  type ReadPosition,
  type RecordedEvent as EsdbRecordedEvent,
} from '@eventstore/db-client';
import {
  ConcurrencyConflict,
  StoreUnavailable,
  type EventStoreAdapter,
  type ExpectedRevision,
  type RecordedEvent,
  type StreamName,
} from '../eventStore';
import type { EventFeed, Subscription } from '../eventFeed';
import { streamShare, type ReadStreamsOptions } from '../streamReader';
import { decodePosition, encodePosition, knownPosition } from './position';
import { GENESIS_HASH, HASH_KEY, isJsonObject, linkBody, linkHash, metadataToStore, storedHash } from '../hashChain';
import { storedJson } from '../canonicalJson';

/**
 * The event store on EventStoreDB (gRPC client 6.x). Revisions are EventStoreDB's own; positions
 * are its `{ commit, prepare }` packed into one bigint (position.ts). Event ids are the
 * writer's UUIDs, so a retried append is recognised by the server's idempotence check.
 *
 * What the client does that shapes this file (read in node_modules/@eventstore/db-client/dist):
 * - readAll takes no filter in 6.x (readAll.js sends `noFilter`): prefix and system events are
 *   filtered here, page by page. Its `fromPosition` is inclusive (the client's readAll test reads
 *   maxCount 1 from an event's position and gets that same event back).
 * - subscribeToAll from a position delivers only events AFTER it (the client's subscribeToAll
 *   "from position" test: subscribed at a marker's position, it sees the 7 later events, not the
 *   marker), so resuming from the last delivered position neither repeats nor skips.
 * - Read streams and subscriptions are object-mode Readables: `for await` pulls one event at a
 *   time and the gRPC stream is paused while a handler runs (backpressure).
 * - `unsubscribe()` cancels the call but does not end the Readable, so stop() also destroys it.
 */
export interface EsdbLogger {
  warn(obj: object, msg: string): void;
  info(obj: object, msg: string): void;
}

const PAGE = 512;
/**
 * Where `audit:seal` keeps the links of events stored before the chain (the embedded store uses a
 * table): `ChainSealed` events of `{ links: [{ position, hash }] }`, outside the presets' and the
 * audit streams' prefixes, chained like every stream.
 */
const SEAL_STREAM = 'chainseal-links';
const SEAL_PAGE = 1000;
const RETRY_MIN_MS = 100;
const RETRY_MAX_MS = 5_000;

export const toExpectedRevision = (expected: ExpectedRevision): AppendExpectedRevision => (expected === 'no_stream' ? NO_STREAM : expected);

/** Errors a later attempt may not see: the server is unreachable, busy, or not the leader. */
export const isTransient = (error: unknown): boolean =>
  error instanceof UnavailableError ||
  error instanceof DeadlineExceededError ||
  error instanceof TimeoutError ||
  error instanceof CancelledError ||
  error instanceof NotLeaderError ||
  (error instanceof Error && /ECONNREFUSED|ECONNRESET|Failed to discover/.test(error.message));

/** Errors retrying cannot cure: configuration or a server that lacks a feature. */
const isPermanent = (error: unknown): boolean =>
  error instanceof AccessDeniedError || error instanceof InvalidArgumentError || error instanceof UnsupportedError;

export const mapStoreError = (error: unknown): unknown =>
  isTransient(error) ? new StoreUnavailable(`EventStoreDB unavailable: ${(error as Error).message}`, { cause: error }) : error;

export const mapAppendError = (error: unknown, stream: StreamName, expected: ExpectedRevision): unknown =>
  error instanceof WrongExpectedVersionError ? new ConcurrencyConflict(stream, expected, error.actualVersion) : mapStoreError(error);

const toRecorded = (e: EsdbRecordedEvent): RecordedEvent | null => {
  const position = knownPosition(e.position);
  if (!position) return null;
  return {
    id: e.id,
    type: e.type,
    stream: e.streamId,
    revision: e.revision,
    position: encodePosition(position),
    data: e.data,
    metadata: e.metadata ?? null,
    recordedAt: e.created,
  };
};

/** EventStoreDB's own events ($-prefixed types: stream metadata, projections' links, statistics). */
const isSystem = (e: RecordedEvent) => e.type.startsWith('$');
const wanted = (e: RecordedEvent, prefix?: string, types?: readonly string[]) =>
  !isSystem(e) && (!prefix || e.stream.startsWith(prefix)) && (!types || types.includes(e.type));

/** Marks an error thrown by the subscriber's handler: reported, never retried. */
class HandlerFailed {
  constructor(readonly cause: unknown) {}
}

// A read is consumed to its end rather than left early: a read left half-consumed keeps its gRPC call open.
const collect = async <T>(items: AsyncIterable<T>): Promise<T[]> => {
  const all: T[] = [];
  for await (const item of items) all.push(item);
  return all;
};

export const openEventStoreDbEventStore = (options: { url: string; logger?: EsdbLogger }): EventStoreAdapter => {
  const client = EventStoreDBClient.connectionString(options.url);
  const { logger } = options;
  const running = new Set<Subscription>();
  let closed = false;
  let sealedLinks: Promise<Map<bigint, string>> | undefined;
  const sealed = () =>
    (sealedLinks ??= (async () => {
      const links = new Map<bigint, string>();
      for (const e of await read(SEAL_STREAM)) {
        for (const { position, hash } of (e.data as { links: { position: string; hash: string }[] }).links)
          links.set(BigInt(position), hash);
      }
      return links;
    })());

  /** One page of `$all` from a position (inclusive), and whether the server had more. */
  const readAllPage = async (from: ReadPosition, direction: typeof FORWARDS | typeof BACKWARDS) => {
    const page = await collect(client.readAll({ fromPosition: from, maxCount: PAGE, direction }));
    const events = page.flatMap(({ event }) => (event && toRecorded(event)) || []);
    return { events, more: page.length === PAGE };
  };

  const positionOfRevision = async (stream: StreamName, revision: bigint): Promise<bigint> => {
    const [found] = await collect(client.readStream(stream, { fromRevision: revision, maxCount: 1, direction: FORWARDS }));
    const recorded = found?.event && toRecorded(found.event);
    if (!recorded) throw new Error(`EventStoreDB gave no position for ${stream}@${revision}`);
    return recorded.position;
  };

  const read: EventStoreAdapter['read'] = async (stream, opts = {}) => {
    if (opts.limit === 0) return [];
    try {
      const resolved = await collect(
        client.readStream(stream, {
          fromRevision: opts.fromRevision ?? START,
          maxCount: opts.limit ?? Number.MAX_SAFE_INTEGER,
          direction: FORWARDS,
        }),
      );
      return resolved.flatMap(({ event }) => {
        if (!event) return [];
        const recorded = toRecorded(event);
        if (!recorded) throw new Error(`EventStoreDB gave no position for ${stream}@${event.revision} (server older than 22.10?)`);
        return [recorded];
      });
    } catch (error) {
      if (error instanceof StreamNotFoundError) return [];
      throw mapStoreError(error);
    }
  };

  /**
   * `$all` from a position (excluded) in one direction, the events `keep` wants, up to `limit`,
   * filtered here page by page. `fromPosition` is inclusive either way, so each page after the
   * first starts with the event the last one ended on: it is skipped.
   */
  const scanAll = async (
    direction: typeof FORWARDS | typeof BACKWARDS,
    start: bigint | undefined,
    limit: number,
    keep: (e: RecordedEvent) => boolean,
  ) => {
    const found: RecordedEvent[] = [];
    let from: ReadPosition = start !== undefined ? decodePosition(start) : direction === FORWARDS ? START : END;
    let last = start;
    const beyond = (e: RecordedEvent) => last === undefined || (direction === FORWARDS ? e.position > last : e.position < last);
    try {
      while (found.length < limit) {
        const page = await readAllPage(from, direction);
        const fresh = page.events.filter(beyond);
        found.push(...fresh.filter(keep));
        const tail = fresh[fresh.length - 1];
        if (!page.more || !tail) break;
        from = decodePosition(tail.position);
        last = tail.position;
      }
    } catch (error) {
      throw mapStoreError(error);
    }
    return found.slice(0, limit);
  };

  const readAll: EventFeed['readAll'] = ({ after, limit, streamPrefix, types }) =>
    scanAll(FORWARDS, after, limit, (e) => wanted(e, streamPrefix, types));
  const readAllBackwards: EventFeed['readAllBackwards'] = ({ before, limit, streamPrefix, types }) =>
    scanAll(BACKWARDS, before, limit, (e) => wanted(e, streamPrefix, types));

  // $all has no index by stream: one pass over it (up to `until`) for the names of the share's
  // streams, then each of them read by name.
  const readStreams = async function* ({
    until,
    streamPrefix,
    pageSize = 1000,
    share,
  }: ReadStreamsOptions): AsyncIterable<RecordedEvent[]> {
    const streams = new Set<StreamName>();
    for (let after: bigint | undefined; ;) {
      const events = await readAll({ after, limit: PAGE * 8, streamPrefix });
      for (const e of events)
        if (e.position <= until && (!share || streamShare(e.stream, share.count) === share.index)) streams.add(e.stream);
      const last = events[events.length - 1];
      if (!last || last.position >= until || events.length < PAGE * 8) break;
      after = last.position;
    }
    let page: RecordedEvent[] = [];
    for (const stream of streams) {
      for (let from = 0n; ;) {
        const events = await read(stream, { fromRevision: from, limit: pageSize });
        const wanted = events.filter((e) => e.position <= until);
        page.push(...wanted);
        if (page.length >= pageSize) {
          yield page;
          page = [];
        }
        if (events.length < pageSize || wanted.length < events.length) break;
        from = events[events.length - 1]!.revision + 1n;
      }
    }
    if (page.length > 0) yield page;
  };

  const append: EventStoreAdapter['append'] = async (stream, events, expected) => {
    if (closed) throw new StoreUnavailable('event store is closed');
    if (events.length === 0) throw new Error('append needs at least one event');
    if (!events.every((e) => isJsonObject(e.metadata)))
      throw new TypeError("an event's metadata must be a JSON object (it carries the chain's hash)");
    try {
      // The chain continues from the event at the expected revision: if the stream has moved past
      // it, the append below fails on its expected revision, so the link is never built on a stale head.
      let previous = GENESIS_HASH;
      if (expected !== 'no_stream') {
        const [head] = await read(stream, { fromRevision: expected, limit: 1 });
        if (!head) throw new ConcurrencyConflict(stream, expected, 'no_stream');
        const link = storedHash(head.metadata) ?? (await sealed()).get(head.position);
        if (link === undefined) throw new Error(`${stream}@${head.revision} has no chain hash: the log is not sealed`);
        previous = link;
      }
      const first = expected === 'no_stream' ? 0n : expected + 1n;
      // The link covers the JSON text of data and metadata as stored: the client writes them with
      // JSON.stringify, which gives that text back from its parse (keys in the order sent).
      const linked = events.map((e, i) => {
        const revision = first + BigInt(i);
        const dataJson = storedJson(e.data ?? null);
        const metadataJson = storedJson(metadataToStore(e.metadata, `${stream}@${revision}`));
        previous = linkHash(previous, linkBody(e.type, dataJson, metadataJson, stream, revision));
        const metadata = { ...(JSON.parse(metadataJson) as Record<string, JSONType>), [HASH_KEY]: previous };
        return jsonEvent({ id: e.id, type: e.type, data: JSON.parse(dataJson) as JSONType, metadata });
      });
      const result = await client.appendToStream(stream, linked, { expectedRevision: toExpectedRevision(expected) });
      const position = knownPosition(result.position);
      return {
        revision: result.nextExpectedRevision,
        // An idempotent (retried) append may be answered without a position: look it up.
        position: position ? encodePosition(position) : await positionOfRevision(stream, result.nextExpectedRevision),
      };
    } catch (error) {
      if (error instanceof ConcurrencyConflict) throw error;
      throw mapAppendError(error, stream, expected);
    }
  };

  return {
    append,

    // The links of events stored before the chain: events of a stream of their own, read once into memory.
    sealedHashes: async (positions) => {
      const all = await sealed();
      return new Map(positions.flatMap((p) => (all.has(p) ? [[p, all.get(p)!] as const] : [])));
    },
    async recordSeal(links) {
      // Chained like any stream, so verify reads it as it reads the others.
      let expected: ExpectedRevision = (await read(SEAL_STREAM)).at(-1)?.revision ?? 'no_stream';
      for (let i = 0; i < links.length; i += SEAL_PAGE) {
        const page = links.slice(i, i + SEAL_PAGE).map(({ position, hash }) => ({ position: position.toString(), hash }));
        const metadata = { requestId: 'audit-seal', actorUserId: 'audit:seal', schemaVersion: 1 };
        ({ revision: expected } = await append(
          SEAL_STREAM,
          [{ id: randomUUID(), type: 'ChainSealed', data: { links: page }, metadata }],
          expected,
        ));
      }
      sealedLinks = undefined;
    },

    read,
    // Positions pack commit and prepare (position.ts): up to 2^128 - 1.
    maxPosition: (1n << 128n) - 1n,
    readAll,
    // $all has no count: the events are read (page by page, as readAll does) and counted.
    countAll: async (options) => (await readAll(options)).length,
    readAllBackwards,
    readStreams,

    subscribe(from, onEvent, opts = {}) {
      let after = from === 'start' ? undefined : from.after;
      let stopped = false;
      let current: AllStreamSubscription | undefined;
      let wake = () => {};
      const pause = (ms: number) =>
        new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, ms);
          wake = () => {
            clearTimeout(timer);
            resolve();
          };
        });

      const loop = (async () => {
        let delay = RETRY_MIN_MS;
        let retrying = false;
        while (!stopped) {
          try {
            const sub = client.subscribeToAll({
              fromPosition: after === undefined ? START : decodePosition(after),
              filter: opts.streamPrefix ? streamNameFilter({ prefixes: [opts.streamPrefix] }) : excludeSystemEvents(),
            });
            current = sub;
            sub.on('error', () => {}); // errors reach the loop through the iterator; this only keeps a late one from crashing the process
            if (retrying)
              sub.once('confirmation', () => logger?.info({ after: after?.toString() ?? 'start' }, 'EventStoreDB subscription resumed'));
            for await (const { event } of sub) {
              if (stopped) break;
              const recorded = event && toRecorded(event);
              if (!recorded || !wanted(recorded, opts.streamPrefix, opts.types)) continue;
              try {
                await onEvent(recorded);
              } catch (error) {
                throw new HandlerFailed(error);
              }
              after = recorded.position;
              delay = RETRY_MIN_MS;
            }
            if (stopped) break;
            logger?.warn({ after: after?.toString() ?? 'start' }, 'EventStoreDB subscription ended; resubscribing');
          } catch (error) {
            if (stopped) break;
            if (error instanceof HandlerFailed || isPermanent(error)) {
              opts.onError?.(error instanceof HandlerFailed ? error.cause : error);
              break;
            }
            logger?.warn(
              { err: error, after: after?.toString() ?? 'start', retryInMs: delay },
              'EventStoreDB subscription dropped; resubscribing',
            );
          } finally {
            const sub = current;
            current = undefined;
            sub?.destroy();
            void sub?.unsubscribe().catch(() => {});
          }
          if (stopped) break;
          retrying = true;
          await pause(delay / 2 + (Math.random() * delay) / 2); // jitter: many consumers do not come back in step
          delay = Math.min(delay * 2, RETRY_MAX_MS);
        }
      })();

      const subscription: Subscription = {
        async stop() {
          stopped = true;
          wake();
          current?.destroy(); // ends the iterator; a handler call in progress finishes first
          await loop;
          running.delete(subscription);
        },
      };
      running.add(subscription);
      return subscription;
    },

    // Other applications' events may follow ours in $all: the head is the last one we want.
    headPosition: async ({ streamPrefix } = {}) =>
      (await scanAll(BACKWARDS, undefined, 1, (e) => wanted(e, streamPrefix)))[0]?.position ?? null,

    async close() {
      if (closed) return;
      closed = true;
      await Promise.all([...running].map((s) => s.stop()));
      await client.dispose();
    },
  };
};
