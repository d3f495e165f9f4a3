import { randomUUID } from 'node:crypto';
import * as E from 'fp-ts/Either';
import { LRUCache } from 'lru-cache';
import type { EventFeed } from '../eventstore/eventFeed';
import { pulledProcessor, type PulledEvent, type PulledProcessorDeps } from '../feed/pulled';
import {
  acknowledged,
  DEFAULT_LEASE_MS,
  groupStreamPrefix,
  leased,
  MAX_GROUPS_PER_WORKSPACE,
  openLease,
  retryAfterSeconds,
  type AckRefusal,
  type ConsumerGroup,
  type ConsumerGroupFilter,
} from './group';
import { isUnreadable, type ConsumerGroupStore, type StoredGroup, type UnreadableGroup } from './store';
import { workspaceStreamPrefix } from '../events/workspaceStreams';

/**
 * The consumer groups' use cases over their store and the event feed: define, list, remove,
 * fetch (lease the next batch, waiting for new events up to `waitMs`) and acknowledge. Refusals
 * are values (`Refused`), which the routes turn into answers.
 */
export type Start = 'beginning' | 'now' | { after: bigint };
/** An acknowledgement: of a lease (its id), up to a position inside it, or both. */
export type Ack = { leaseId?: string; position?: bigint };

export interface GroupDefinition {
  filter: ConsumerGroupFilter;
  /** Only on creation, or to move an existing group (which drops its lease). */
  start?: Start;
  leaseMs?: number;
}

export type Refused =
  | { kind: 'not_found'; message: string }
  /** A stored group that cannot be read (store.ts): a PUT with a `start` repairs it, a DELETE removes it. */
  | { kind: 'group_unreadable'; message: string }
  | { kind: 'too_many'; message: string }
  | { kind: 'lease_open'; message: string; retryAfterSeconds: number }
  | { kind: 'conflict'; message: string; retryAfterSeconds: number }
  | AckRefusal;

/** An event handed out: parsed, or as the store keeps it when the feed can read its text (the embedded store). */
export type FetchedEvent = PulledEvent;

export interface Fetched {
  group: ConsumerGroup;
  events: FetchedEvent[];
  /** `prepare`'s answer for these events, when it was made while they were read ahead. */
  prepared?: Buffer;
}

export interface ConsumerGroups {
  /** Creates the group (true) or changes its filter, lease time, and position when `start` is given (false). */
  define(
    workspaceId: string,
    name: string,
    definition: GroupDefinition,
  ): Promise<E.Either<Refused, { group: ConsumerGroup; created: boolean }>>;
  get(workspaceId: string, name: string): Promise<StoredGroup | null>;
  /** The workspace's groups by name, those that cannot be read among them (named, with why). */
  list(workspaceId: string): Promise<StoredGroup[]>;
  /** Every workspace's groups (the operators' metrics). */
  listAll(): Promise<StoredGroup[]>;
  /** The largest position the feed holds: a `start` past it is refused. */
  readonly maxPosition: bigint;
  remove(workspaceId: string, name: string): Promise<boolean>;
  /**
   * `signal`: the caller went away; a wait ends, and nothing is leased to nobody. `ack`: the lease
   * before is acknowledged first, as `ack` would, and saved with the new lease in one write (or
   * alone, before a wait); refused as `ack` refuses it, and then nothing is leased.
   */
  fetch(
    workspaceId: string,
    name: string,
    options: { max: number; waitMs: number; signal?: AbortSignal; ack?: Ack },
  ): Promise<E.Either<Refused, Fetched>>;
  ack(workspaceId: string, name: string, ack: Ack): Promise<E.Either<Refused, ConsumerGroup>>;
  /** Events after the group's position, counted up to `cap`, and the workspace's head. */
  lag(group: ConsumerGroup, cap: number): Promise<{ events: number; head: bigint | null }>;
  /** Ends the long polls waiting now (they answer what they have: nothing). */
  close(): void;
}

const ACK_LOST: Refused = {
  kind: 'lease_lost',
  message: 'the group changed while acknowledging (the lease was handed out again); fetch again',
};
const FETCHED_TOO: Refused = {
  kind: 'conflict',
  message: 'another consumer of this group fetched at the same time; retry',
  retryAfterSeconds: 1,
};

/** What a group that cannot be read answers, and what repairs it. */
export const unreadableRefusal = (group: UnreadableGroup): Refused => ({
  kind: 'group_unreadable',
  message: `consumer group ${JSON.stringify(group.name)} cannot be read: ${group.unreadable}; PUT it with a "start" to repair it, or DELETE it`,
});

/** Next batches read ahead at once, over all groups (src/consumerGroups/consumerGroups.ts, readNext). */
export const PREFETCHED = 8;

export interface ConsumerGroupDeps {
  store: ConsumerGroupStore;
  /** With `readAllStored`, batches are read as stored text: the route passes them on without parsing them. */
  feed: PulledProcessorDeps['feed'] & Pick<EventFeed, 'maxPosition'>;
  /** The process's shared tail, where a long poll waits (the feed's `subscribe` when it is a shared feed). */
  tail: PulledProcessorDeps['tail'];
  now?: () => Date;
  newId?: () => string;
  /**
   * The bytes a batch's answer starts with (the route's JSON of its events: src/http/fetchAnswer.ts),
   * made when a batch is read ahead: then they are ready when the consumer asks, and making them is
   * not in its wait.
   */
  prepare?: (events: FetchedEvent[]) => Buffer;
}

export const createConsumerGroups = ({
  store,
  feed,
  tail,
  now = () => new Date(),
  newId = randomUUID,
  prepare,
}: ConsumerGroupDeps): ConsumerGroups => {
  const closing = new AbortController();
  const notFound = (name: string): Refused => ({
    kind: 'not_found',
    message: `no consumer group ${JSON.stringify(name)} in this workspace`,
  });
  /** A group whose positions are past what the feed holds (stored by an earlier version) cannot be read from either. */
  const past = (position: bigint | null | undefined) => position !== null && position !== undefined && position > feed.maxPosition;
  const readable = (group: StoredGroup): StoredGroup => {
    if (isUnreadable(group) || !(past(group.checkpoint) || past(group.lease?.first) || past(group.lease?.last))) return group;
    const position = past(group.checkpoint) ? group.checkpoint : group.lease!.last;
    return {
      workspaceId: group.workspaceId,
      name: group.name,
      unreadable: `its position ${position} is past the largest this store holds (${feed.maxPosition})`,
    };
  };
  const stored = async (workspaceId: string, name: string) => {
    const group = await store.get(workspaceId, name);
    return group && readable(group);
  };

  const startPosition = async (workspaceId: string, start: Start): Promise<bigint | null> =>
    start === 'beginning' ? null : start === 'now' ? feed.headPosition({ streamPrefix: workspaceStreamPrefix(workspaceId) }) : start.after;

  /**
   * A group is a processor whose handler is its consumer, which pulls (src/feed/pulled.ts): it
   * selects the workspace's streams under its slug prefix and its filter's types; its checkpoint
   * is kept here, with its lease.
   */
  const processorOf = (group: ConsumerGroup) =>
    pulledProcessor({ feed, tail }, { streamPrefix: groupStreamPrefix(group), eventTypes: group.filter.types ?? undefined });
  const read = (group: ConsumerGroup, max: number): Promise<FetchedEvent[]> => processorOf(group).read(group.checkpoint, max);

  // The next batch of a group, read while its consumer handles the batch just leased: a draining
  // consumer's fetch then finds it read, and the service's reading overlaps the consumer's work
  // instead of following it. The log only grows, so a batch read after a position holds the first
  // events after it: one of exactly the `max` asked for is handed out; a short or empty one, or one
  // of another size, is read again. At most PREFETCHED batches are held (the least recently read
  // ahead dropped first), each for at most its group's lease time.
  type Batch = Pick<Fetched, 'events' | 'prepared'>;
  const prefetched = new LRUCache<string, { after: bigint; filter: string; batch: Promise<Batch> }>({
    max: PREFETCHED,
    ttlAutopurge: true,
  });
  const groupKey = (workspaceId: string, name: string) => `${workspaceId}\u0000${name}`;
  const filterKey = (group: ConsumerGroup) => JSON.stringify([groupStreamPrefix(group), group.filter.types ?? null]);

  const prefetch = (group: ConsumerGroup, after: bigint, max: number) => {
    // After the answer to this fetch is on its way: the embedded store reads synchronously.
    const batch = new Promise<void>((resolve) => setImmediate(resolve))
      .then(() => read({ ...group, checkpoint: after }, max))
      .then((events) => ({ events, prepared: events.length === max ? prepare?.(events) : undefined }));
    batch.catch(() => undefined); // a failed read is read again by the fetch that wanted it
    prefetched.set(groupKey(group.workspaceId, group.name), { after, filter: filterKey(group), batch }, { ttl: group.leaseMs });
  };

  const readNext = async (group: ConsumerGroup, max: number): Promise<Batch> => {
    const key = groupKey(group.workspaceId, group.name);
    const ahead = prefetched.get(key);
    prefetched.delete(key);
    if (ahead && ahead.after === group.checkpoint && ahead.filter === filterKey(group)) {
      const batch = await ahead.batch.catch(() => null);
      if (batch?.events.length === max) return batch;
    }
    return { events: await read(group, max) };
  };

  const define: ConsumerGroups['define'] = async (workspaceId, name, { filter, start, leaseMs }) => {
    if (typeof start === 'object' && start.after > feed.maxPosition) {
      return E.left({ kind: 'out_of_range', message: `start must be an event position of at most ${feed.maxPosition}` });
    }
    const at = now();
    const existing = await stored(workspaceId, name);
    if (existing && isUnreadable(existing)) {
      // Repaired by a new start: the group is made again, under its name.
      if (start === undefined) return E.left(unreadableRefusal(existing));
      await store.delete(workspaceId, name);
      const made = await define(workspaceId, name, { filter, start, leaseMs });
      return E.isLeft(made) ? made : E.right({ ...made.right, created: false });
    }
    if (!existing) {
      if ((await store.list(workspaceId)).length >= MAX_GROUPS_PER_WORKSPACE) {
        return E.left({ kind: 'too_many', message: `a workspace has at most ${MAX_GROUPS_PER_WORKSPACE} consumer groups` });
      }
      const group: ConsumerGroup = {
        workspaceId,
        name,
        filter,
        leaseMs: leaseMs ?? DEFAULT_LEASE_MS,
        checkpoint: await startPosition(workspaceId, start ?? 'beginning'),
        lease: null,
        revision: 0,
        createdAt: at.toISOString(),
        updatedAt: at.toISOString(),
      };
      if (await store.insert(group)) return E.right({ group, created: true });
      return E.left({ kind: 'conflict', message: 'the group was created by a concurrent request; retry', retryAfterSeconds: 1 });
    }
    const moved = start !== undefined;
    const group: ConsumerGroup = {
      ...existing,
      filter,
      leaseMs: leaseMs ?? existing.leaseMs,
      checkpoint: moved ? await startPosition(workspaceId, start) : existing.checkpoint,
      lease: moved ? null : existing.lease,
      revision: existing.revision + 1,
      updatedAt: at.toISOString(),
    };
    if (await store.update(group, existing.revision)) return E.right({ group, created: false });
    return E.left({ kind: 'conflict', message: 'the group was changed by a concurrent request; retry', retryAfterSeconds: 1 });
  };

  return {
    define,

    get: stored,
    list: async (workspaceId) => (await store.list(workspaceId)).map(readable),
    listAll: async () => (await store.listAll()).map(readable),
    maxPosition: feed.maxPosition,
    remove: (workspaceId, name) => store.delete(workspaceId, name),

    async fetch(workspaceId, name, { max, waitMs, signal, ack }) {
      const deadline = Date.now() + waitMs;
      const stop = signal ? AbortSignal.any([signal, closing.signal]) : closing.signal;
      let acking = ack;
      for (;;) {
        const found = await stored(workspaceId, name);
        if (!found) return E.left(notFound(name));
        if (isUnreadable(found)) return E.left(unreadableRefusal(found));
        let group = found;
        if (acking) {
          const next = acknowledged(found, acking, now());
          if (E.isLeft(next)) return next;
          group = next.right;
        }
        const held = openLease(group, now());
        if (held) {
          return E.left({
            kind: 'lease_open',
            message: `lease ${held.id} is open on this group until ${held.expiresAt}: acknowledge it, or retry after it expires`,
            retryAfterSeconds: retryAfterSeconds(held, now()),
          });
        }
        // An expired lease's events come again: the position did not move.
        const { events, prepared } = stop.aborted ? { events: [], prepared: undefined } : await readNext(group, max);
        if (events.length > 0) {
          const last = events.at(-1)!.position;
          const next = leased(group, { id: newId(), first: events[0]!.position, last, count: events.length }, now());
          if (await store.update(next, found.revision)) {
            if (events.length === max) prefetch(next, last, max);
            return E.right({ group: next, events, prepared });
          }
          return E.left(acking ? ACK_LOST : FETCHED_TOO);
        }
        if (acking) {
          // Nothing new: the acknowledgement is saved before any wait.
          if (!(await store.update(group, found.revision))) return E.left(ACK_LOST);
          acking = undefined;
        }
        const left = deadline - Date.now();
        if (left <= 0 || stop.aborted) return E.right({ group, events: [] });
        await processorOf(group).waitForMore(group.checkpoint, left, stop);
      }
    },

    async ack(workspaceId, name, ack) {
      const group = await stored(workspaceId, name);
      if (!group) return E.left(notFound(name));
      if (isUnreadable(group)) return E.left(unreadableRefusal(group));
      const next = acknowledged(group, ack, now());
      if (E.isLeft(next)) return next;
      if (await store.update(next.right, group.revision)) return next;
      return E.left(ACK_LOST);
    },

    lag: (group, cap) => processorOf(group).lag(group.checkpoint, cap),

    close: () => {
      closing.abort();
      prefetched.clear();
    },
  };
};
