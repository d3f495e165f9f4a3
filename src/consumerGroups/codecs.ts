import * as t from 'io-ts';
import { closed, integerBetween, listOf, refine } from '../formats/codecs';
import { SLUG } from '../presets/names';
import { EventType, Position } from '../webhooks/codecs';
import { filterJson, openLease, type ConsumerGroup } from './group';
import { EventJson } from '../workspaceLog/eventJson';

/** The consumer groups API's bodies and answers (src/http/routes/consumerGroups.ts), from which its OpenAPI operations are generated. */

export const GROUP_NAME_RULE = 'must be 1–128 characters of A–Z a–z 0–9 . _ ~ -, starting with a letter or digit';
export const isGroupName = (name: string) => SLUG.test(name);

const SlugPrefix = refine(
  t.string,
  (s) => s.length >= 1 && s.length <= 128 && /^[A-Za-z0-9._~-]+$/.test(s),
  'slug prefix (1–128 characters of A–Z a–z 0–9 . _ ~ -)',
  {
    minLength: 1,
    maxLength: 128,
    pattern: '^[A-Za-z0-9._~-]+$',
  },
);
const Types = refine(listOf(EventType), (l) => l.length > 0 && new Set(l).size === l.length, 'non-empty list of distinct event types', {
  minItems: 1,
  uniqueItems: true,
});
export const Filter = closed('filter', {}, { types: Types, slug_prefix: SlugPrefix });
export const StartCodec = t.union([t.literal('beginning'), t.literal('now'), Position], 'start ("beginning", "now" or an event position)');
export const LEASE_MS = { min: 1000, max: 600_000 } as const;

export const PutConsumerGroupBody = closed(
  'consumer group',
  {},
  { filter: Filter, start: StartCodec, lease_ms: integerBetween(LEASE_MS.min, LEASE_MS.max) },
);
export type PutConsumerGroupBody = t.TypeOf<typeof PutConsumerGroupBody>;

export const FETCH_MAX = { default: 100, max: 1000 } as const;
export const WAIT_MS_MAX = 30_000;

export const AckBody = closed(
  'acknowledgement',
  {},
  { lease_id: refine(t.string, (s) => s.length > 0 && s.length <= 64, 'lease id', { minLength: 1, maxLength: 64 }), position: Position },
);
export type AckBody = t.TypeOf<typeof AckBody>;

/** A fetch may acknowledge the lease before it (`ack`, as the ack's body): one request and one durable write a batch. */
export const FetchBody = closed(
  'fetch',
  {},
  { max: integerBetween(1, FETCH_MAX.max), wait_ms: integerBetween(0, WAIT_MS_MAX), ack: AckBody },
);
export type FetchBody = t.TypeOf<typeof FetchBody>;

const Nullable = <C extends t.Mixed>(c: C) => t.union([c, t.null]);
export const LeaseView = t.type(
  { id: t.string, expires_at: t.string, first_position: Position, last_position: Position, count: t.number },
  'ConsumerGroupLease',
);
export const ConsumerGroupView = t.type(
  {
    name: t.string,
    filter: t.type({ types: Nullable(t.array(t.string)), slug_prefix: Nullable(t.string) }),
    lease_ms: t.number,
    /** Every event up to this position was acknowledged; null: none yet. */
    position: Nullable(Position),
    head: Nullable(Position),
    lag: t.number,
    lag_capped: t.boolean,
    lease: Nullable(LeaseView),
    created_at: t.string,
    updated_at: t.string,
  },
  'ConsumerGroup',
);
export type ConsumerGroupView = t.TypeOf<typeof ConsumerGroupView>;
export const ConsumerGroupAnswer = t.type({ data: ConsumerGroupView }, 'ConsumerGroupAnswer');
/** A stored group that cannot be read (written by an earlier version, or damaged): why, and what repairs it. */
export const UnreadableGroupView = t.type({ name: t.string, message: t.string }, 'UnreadableConsumerGroup');
export const ConsumerGroupList = t.type(
  {
    data: t.array(ConsumerGroupView),
    /** Groups that cannot be read, by name: a PUT with a `start` repairs one, a DELETE removes it. They take nothing else down. */
    unreadable: t.array(UnreadableGroupView),
  },
  'ConsumerGroupList',
);
/** An acknowledgement's answer: where the group is now (its lag is GET's: counting it on every ack would cost a count of up to LAG_CAP events, a read of them on EventStoreDB). */
export const AckAnswer = t.type(
  { data: t.type({ name: t.string, position: Nullable(Position), acknowledged_at: t.string }) },
  'ConsumerGroupAcknowledged',
);
export const FetchAnswer = t.type({ data: t.array(EventJson), lease: Nullable(LeaseView) }, 'ConsumerGroupBatch');

/** The lag shown is counted up to this many events (`lag_capped` says when there are more). */
export const LAG_CAP = 10_000;

export const leaseView = (lease: NonNullable<ConsumerGroup['lease']>): t.TypeOf<typeof LeaseView> => ({
  id: lease.id,
  expires_at: lease.expiresAt,
  first_position: lease.first.toString(),
  last_position: lease.last.toString(),
  count: lease.count,
});

/** The group as the API shows it; a lease that expired is not shown (its events are handed out again). */
export const groupView = (g: ConsumerGroup, lag: { events: number; head: bigint | null }, now: Date): ConsumerGroupView => {
  const lease = openLease(g, now);
  return {
    name: g.name,
    filter: filterJson(g.filter),
    lease_ms: g.leaseMs,
    position: g.checkpoint === null ? null : g.checkpoint.toString(),
    head: lag.head === null ? null : lag.head.toString(),
    lag: lag.events,
    lag_capped: lag.events >= LAG_CAP,
    lease: lease ? leaseView(lease) : null,
    created_at: g.createdAt,
    updated_at: g.updatedAt,
  };
};
