import {
  ConcurrencyConflict,
  StoreUnavailable,
  type EventStoreAdapter,
  type NewEvent,
  type RecordedEvent,
  type StreamName,
} from './eventStore';
import { MAX_INT64_POSITION } from './eventFeed';
import { createPoller } from './poller';
import { streamShare } from './streamReader';
import { GENESIS_HASH, HASH_KEY, isJsonObject, linkBody, linkHash, metadataToStore, storedHash } from './hashChain';
import { storedJson } from './canonicalJson';

/**
 * An event store in memory, held to the same contract as the stored ones (test/contract): for
 * unit tests of anything that appends or follows events, with no file or server. Events are
 * copied through JSON on the way in, as a stored one would be serialized, so a caller can never
 * change what it holds. Positions count from 1 in append order.
 */
export const openMemoryEventStore = (): EventStoreAdapter => {
  const all: RecordedEvent[] = []; // position n is all[n - 1]
  const streams = new Map<StreamName, RecordedEvent[]>();
  const byId = new Map<string, RecordedEvent>();
  const sealed = new Map<bigint, string>();
  let closed = false;

  const matches = (e: RecordedEvent, prefix?: string, types?: readonly string[]) =>
    (!prefix || e.stream.startsWith(prefix)) && (!types || types.includes(e.type));
  const readAfter = (after: bigint, limit: number, prefix?: string, types?: readonly string[]) => {
    const found: RecordedEvent[] = [];
    for (let i = Number(after); i < all.length && found.length < limit; i++) {
      if (matches(all[i]!, prefix, types)) found.push(all[i]!);
    }
    return found;
  };
  const poller = createPoller(readAfter, () => all.at(-1)?.position ?? null);

  const append = (stream: StreamName, events: NewEvent[], expected: 'no_stream' | bigint) => {
    const existing = streams.get(stream) ?? [];
    const current = existing.length === 0 ? 'no_stream' : BigInt(existing.length - 1);
    if (current !== expected) {
      // A retried append whose events are already stored answers as the first time did.
      const first = byId.get(events[0]!.id);
      const firstRevision = expected === 'no_stream' ? 0n : expected + 1n;
      if (first && first.stream === stream && first.revision === firstRevision) {
        const last = byId.get(events[events.length - 1]!.id)!;
        return { revision: last.revision, position: last.position };
      }
      throw new ConcurrencyConflict(stream, expected, current);
    }
    if (events.some((e) => byId.has(e.id))) throw new ConcurrencyConflict(stream, expected, current);
    const recordedAt = new Date();
    const head = existing[existing.length - 1];
    let previous = head ? (storedHash(head.metadata) ?? sealed.get(head.position)) : GENESIS_HASH;
    if (previous === undefined) throw new Error(`${stream}@${head!.revision} has no chain hash: the log is not sealed`);
    // Kept as a store keeps them: the parse of their JSON text, which the link covers; every text
    // made before anything is kept, so an event with no JSON text fails the append as a whole.
    const texts = events.map((e, i) => {
      const what = `${stream}@${existing.length + i}`;
      return [storedJson(e.data === undefined ? null : e.data), storedJson(metadataToStore(e.metadata, what))] as const;
    });
    events.forEach((e, i) => {
      const revision = BigInt(existing.length);
      const [dataJson, metadataJson] = texts[i]!;
      previous = linkHash(previous!, linkBody(e.type, dataJson, metadataJson, stream, revision));
      const recorded: RecordedEvent = {
        id: e.id,
        type: e.type,
        stream,
        revision,
        position: BigInt(all.length + 1),
        data: JSON.parse(dataJson) as unknown,
        metadata: { ...(JSON.parse(metadataJson) as Record<string, unknown>), [HASH_KEY]: previous },
        recordedAt,
      };
      existing.push(recorded);
      all.push(recorded);
      byId.set(e.id, recorded);
    });
    streams.set(stream, existing);
    const last = existing[existing.length - 1]!;
    return { revision: last.revision, position: last.position };
  };

  return {
    maxPosition: MAX_INT64_POSITION,
    reportsScanned: true,
    async append(stream, events, expected) {
      if (closed) throw new StoreUnavailable('event store is closed');
      if (events.length === 0) throw new Error('append needs at least one event');
      if (!events.every((e) => isJsonObject(e.metadata)))
        throw new TypeError("an event's metadata must be a JSON object (it carries the chain's hash)");
      const result = append(stream, events, expected);
      poller.notify();
      return result;
    },
    async read(stream, { fromRevision = 0n, limit } = {}) {
      const events = (streams.get(stream) ?? []).slice(Number(fromRevision));
      return limit === undefined ? events : events.slice(0, limit);
    },
    async readAll({ after = 0n, limit, streamPrefix, types }) {
      return readAfter(after, limit, streamPrefix, types);
    },
    async countAll({ after = 0n, limit, streamPrefix, types }) {
      return readAfter(after, limit, streamPrefix, types).length; // the events are in memory already
    },
    async readAllBackwards({ before, limit, streamPrefix, types }) {
      const found: RecordedEvent[] = [];
      const start = before === undefined ? all.length - 1 : Math.min(Number(before) - 2, all.length - 1);
      for (let i = start; i >= 0 && found.length < limit; i--) {
        if (matches(all[i]!, streamPrefix, types)) found.push(all[i]!);
      }
      return found;
    },
    async *readStreams({ until, streamPrefix = '', pageSize = 1000, share }) {
      let page: RecordedEvent[] = [];
      for (const [name, events] of streams) {
        if (!name.startsWith(streamPrefix) || (share && streamShare(name, share.count) !== share.index)) continue;
        for (const e of events) {
          if (e.position > until) break;
          page.push(e);
          if (page.length >= pageSize) {
            yield page;
            page = [];
          }
        }
      }
      if (page.length > 0) yield page;
    },
    subscribe(from, onEvent, options = {}) {
      // Every append of this store notifies its subscriptions: the poll is only a safety net.
      return poller.subscribe(from, onEvent, { ...options, pollIntervalMs: 1000 });
    },
    async headPosition({ streamPrefix } = {}) {
      for (let i = all.length - 1; i >= 0; i--) if (!streamPrefix || all[i]!.stream.startsWith(streamPrefix)) return all[i]!.position;
      return null;
    },
    async sealedHashes(positions) {
      return new Map(positions.flatMap((p) => (sealed.has(p) ? [[p, sealed.get(p)!] as const] : [])));
    },
    async recordSeal(links) {
      for (const { position, hash } of links) sealed.set(position, hash);
    },
    async close() {
      closed = true;
      await poller.stopAll();
    },
  };
};
