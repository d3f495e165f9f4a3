import * as E from 'fp-ts/Either';
import { workspaceStreamPrefix } from '../events/workspaceStreams';

/**
 * A consumer group: a named, durable position in a workspace's events, shared by the consumers
 * that fetch from it. A fetch leases the next batch to one caller; acknowledging the lease moves
 * the position; a lease not acknowledged within `leaseMs` is handed out again. At least once, in
 * order, one lease at a time. The rules are pure; the store (store.ts) keeps the group and changes
 * it only at the revision it was read at, so two consumers (or two replicas) cannot both lease.
 */
export interface ConsumerGroupFilter {
  /** Only events of these types; null: every type. */
  types: string[] | null;
  /** Only presets whose slug starts with this; null: every preset. */
  slugPrefix: string | null;
}

/** The filter as the API and the stores write it: the same two fields, `slug_prefix` for `slugPrefix`. */
export interface ConsumerGroupFilterJson {
  types: string[] | null;
  slug_prefix: string | null;
}

/**
 * The filter with its fields in the order the client named them (what a client stores comes back
 * as it sent it), each renamed the other way round from the other form; a field not named follows,
 * null. Pure; the route, the stores and the view all go through it.
 */
export const filterOf = (sent: Partial<ConsumerGroupFilter> | undefined): ConsumerGroupFilter =>
  ({ ...sent, types: sent?.types ?? null, slugPrefix: sent?.slugPrefix ?? null }) as ConsumerGroupFilter;
export const filterJson = (filter: ConsumerGroupFilter): ConsumerGroupFilterJson =>
  Object.fromEntries(
    Object.entries(filter).map(([k, v]) => [k === 'slugPrefix' ? 'slug_prefix' : k, v]),
  ) as unknown as ConsumerGroupFilterJson;
export const filterFromJson = (json: Partial<ConsumerGroupFilterJson> | undefined): ConsumerGroupFilter =>
  filterOf(
    json &&
      (Object.fromEntries(
        Object.entries(json).map(([k, v]) => [k === 'slug_prefix' ? 'slugPrefix' : k, v]),
      ) as Partial<ConsumerGroupFilter>),
  );

export interface Lease {
  id: string;
  /** Positions of the first and the last event handed out. */
  first: bigint;
  last: bigint;
  count: number;
  expiresAt: string;
}

export interface ConsumerGroup {
  workspaceId: string;
  name: string;
  filter: ConsumerGroupFilter;
  leaseMs: number;
  /** Every event up to this position was acknowledged (or is not the group's); null: none yet. */
  checkpoint: bigint | null;
  lease: Lease | null;
  /** Counts changes; the store changes a group only at the revision it was read at. */
  revision: number;
  createdAt: string;
  updatedAt: string;
}

export const MAX_GROUPS_PER_WORKSPACE = 100;
export const DEFAULT_LEASE_MS = 30_000;

/** Where the group's events are: the workspace's streams, narrowed by the slug prefix. */
export const groupStreamPrefix = (group: Pick<ConsumerGroup, 'workspaceId' | 'filter'>): string =>
  `${workspaceStreamPrefix(group.workspaceId)}${group.filter.slugPrefix ?? ''}`;

/** The lease still held at `now`, or null (none, or expired). */
export const openLease = (group: ConsumerGroup, now: Date): Lease | null =>
  group.lease && Date.parse(group.lease.expiresAt) > now.getTime() ? group.lease : null;

/** Whole seconds until the open lease expires (at least 1). */
export const retryAfterSeconds = (lease: Lease, now: Date): number =>
  Math.max(1, Math.ceil((Date.parse(lease.expiresAt) - now.getTime()) / 1000));

/** The group with a new lease over events `first`..`last`. */
export const leased = (group: ConsumerGroup, lease: Omit<Lease, 'expiresAt'>, now: Date): ConsumerGroup => ({
  ...group,
  lease: { ...lease, expiresAt: new Date(now.getTime() + group.leaseMs).toISOString() },
  revision: group.revision + 1,
  updatedAt: now.toISOString(),
});

export type AckRefusal =
  { kind: 'no_lease'; message: string } | { kind: 'lease_lost'; message: string } | { kind: 'out_of_range'; message: string };

/**
 * An acknowledgement: of the whole lease (its id), or up to a position inside it (the events
 * after it are handed out again by the next fetch). A lease that expired is still acknowledged
 * while nobody else holds it: its events were processed, and re-sending them would only repeat.
 */
export const acknowledged = (
  group: ConsumerGroup,
  ack: { leaseId?: string; position?: bigint },
  now: Date,
): E.Either<AckRefusal, ConsumerGroup> => {
  const lease = group.lease;
  if (!lease) {
    return E.left(
      ack.leaseId !== undefined
        ? { kind: 'lease_lost', message: `lease ${ack.leaseId} is not held: it was acknowledged, or expired and was handed out again` }
        : { kind: 'no_lease', message: 'no lease is open on this group: fetch first' },
    );
  }
  if (ack.leaseId !== undefined && ack.leaseId !== lease.id) {
    return E.left({ kind: 'lease_lost', message: `lease ${ack.leaseId} is not held: it expired and was handed out again` });
  }
  const position = ack.position ?? lease.last;
  if (position < lease.first || position > lease.last) {
    return E.left({
      kind: 'out_of_range',
      message: `position ${position} is not in the lease (positions ${lease.first} to ${lease.last})`,
    });
  }
  return E.right({ ...group, checkpoint: position, lease: null, revision: group.revision + 1, updatedAt: now.toISOString() });
};
