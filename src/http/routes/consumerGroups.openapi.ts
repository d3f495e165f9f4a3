import {
  AckAnswer,
  AckBody,
  ConsumerGroupAnswer,
  ConsumerGroupList,
  ConsumerGroupView,
  FETCH_MAX,
  FetchAnswer,
  FetchBody,
  LAG_CAP,
  LeaseView,
  PutConsumerGroupBody,
  UnreadableGroupView,
  WAIT_MS_MAX,
} from '../../consumerGroups/codecs';
import { API_ERRORS, json, type Operation, type Parameters, type Schemas, type Status } from '../operations';

/** The operations of ./consumerGroups.ts: every call needs events:consume; another workspace's group is a 404. */
const BODY_ERRORS: Status[] = ['400', '401', '403', '404', '409', '413', '415', '429', '500', '503'];

export const CONSUMER_GROUP_OPERATIONS: Operation[] = [
  {
    method: 'put',
    path: '/api/v1/consumer-groups/{name}',
    operationId: 'putConsumerGroup',
    tag: 'Events',
    scope: 'events:consume',
    summary: 'Create or change a consumer group',
    description:
      "A durable, server-side position in the workspace's events, shared by the consumers that fetch from it. `filter` narrows the events (types, slug prefix); " +
      '`start` is where a new group begins ("beginning", the default; "now"; or after an event position) and, on an existing group, moves it there and drops its lease; ' +
      '`lease_ms` (default 30000) is how long a fetched batch is held before it is handed out again. A `start` past the largest position the store holds is a 400 ' +
      '(`$.start`), and nothing is stored. A group that cannot be read (`group_unreadable`) is repaired by a PUT with a `start`; without one it is a 409.',
    parameters: ['consumerGroupName'],
    requestBody: 'ConsumerGroupRequest',
    answers: {
      '200': { description: 'Changed.', content: json('ConsumerGroupAnswer') },
      '201': { description: 'Created.', content: json('ConsumerGroupAnswer'), headers: ['Location'] },
    },
    errors: BODY_ERRORS,
  },
  {
    method: 'get',
    path: '/api/v1/consumer-groups',
    operationId: 'listConsumerGroups',
    tag: 'Events',
    scope: 'events:consume',
    summary: "The workspace's consumer groups",
    description:
      `Each with its position, the head of its events and its lag (events not yet acknowledged, counted up to ${LAG_CAP}). ` +
      'A stored group that cannot be read (written so by an earlier version, or damaged) is listed in `unreadable` with why, and takes nothing else down.',
    answers: { '200': { description: 'Every group of the workspace, by name.', content: json('ConsumerGroupList') } },
    errors: API_ERRORS,
  },
  {
    method: 'get',
    path: '/api/v1/consumer-groups/{name}',
    operationId: 'getConsumerGroup',
    tag: 'Events',
    scope: 'events:consume',
    summary: 'A consumer group',
    description: 'Its filter, position, head, lag and open lease. A group that cannot be read is a 409 (`group_unreadable`).',
    parameters: ['consumerGroupName'],
    answers: { '200': { description: 'The group.', content: json('ConsumerGroupAnswer') } },
    errors: [...API_ERRORS, '404', '409'],
  },
  {
    method: 'delete',
    path: '/api/v1/consumer-groups/{name}',
    operationId: 'deleteConsumerGroup',
    tag: 'Events',
    scope: 'events:consume',
    summary: 'Remove a consumer group',
    description: 'Its position is forgotten; the events are not touched.',
    parameters: ['consumerGroupName'],
    answers: { '204': { description: 'Removed.' } },
    errors: [...API_ERRORS, '404'],
  },
  {
    method: 'post',
    path: '/api/v1/consumer-groups/{name}/fetch',
    operationId: 'fetchConsumerGroup',
    tag: 'Events',
    scope: 'events:consume',
    summary: 'Lease the next batch of events',
    description:
      `Up to \`max\` (1–${FETCH_MAX.max}, default ${FETCH_MAX.default}) events after the group's position, in order, leased to the caller until \`lease.expires_at\`. ` +
      `With none yet, waits up to \`wait_ms\` (0–${WAIT_MS_MAX}) for new ones (a long poll), then answers an empty batch. ` +
      'One lease at a time per group: while one is open, a fetch is a 409 with Retry-After. A lease not acknowledged in time is handed out again (at least once, in order).',
    parameters: ['consumerGroupName'],
    requestBody: 'ConsumerGroupFetch',
    answers: { '200': { description: 'The batch and its lease (null when empty).', content: json('ConsumerGroupBatch') } },
    errors: BODY_ERRORS,
  },
  {
    method: 'post',
    path: '/api/v1/consumer-groups/{name}/ack',
    operationId: 'ackConsumerGroup',
    tag: 'Events',
    scope: 'events:consume',
    summary: 'Acknowledge a batch',
    description:
      "Moves the group's position to the end of the lease (`lease_id`), or to a `position` inside it (the events after it come again), durably, and ends the lease. " +
      'A lease handed out again to another consumer is a 409 (`lease_lost`).',
    parameters: ['consumerGroupName'],
    requestBody: 'ConsumerGroupAck',
    answers: { '200': { description: 'The group at its new position.', content: json('ConsumerGroupAcknowledged') } },
    errors: BODY_ERRORS,
  },
];

export const CONSUMER_GROUP_SCHEMAS: Schemas = [
  ['ConsumerGroupRequest', PutConsumerGroupBody],
  ['ConsumerGroupFetch', FetchBody],
  ['ConsumerGroupAck', AckBody],
  ['ConsumerGroup', ConsumerGroupView],
  ['ConsumerGroupLease', LeaseView],
  ['ConsumerGroupAnswer', ConsumerGroupAnswer],
  ['ConsumerGroupList', ConsumerGroupList],
  ['UnreadableConsumerGroup', UnreadableGroupView],
  ['ConsumerGroupBatch', FetchAnswer],
  ['ConsumerGroupAcknowledged', AckAnswer],
];

export const CONSUMER_GROUP_PARAMETERS: Parameters = {
  consumerGroupName: {
    name: 'name',
    in: 'path',
    required: true,
    description: "The group's name: 1–128 characters of A–Z a–z 0–9 . _ ~ -, starting with a letter or digit.",
    schema: { type: 'string', pattern: '^[A-Za-z0-9][A-Za-z0-9._~-]{0,127}$' },
  },
};
