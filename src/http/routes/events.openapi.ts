import { API_ERRORS, json, type Operation, type Parameters, type Schemas } from '../operations';
import { EventsBackwardsPage, EventsPage, PresetEventsPage } from '../schemas';
import { EVENTS_DEFAULT_LIMIT, EVENTS_MAX_LIMIT } from './events';
import { EventJson } from '../../workspaceLog/eventJson';
import { WORKSPACE_EVENT_TYPES } from '../../workspaceLog/catalog';

/** The operations of ./events.ts: a preset's stream, and the workspace's feed (paged or live). */
export const EVENT_OPERATIONS: Operation[] = [
  {
    method: 'get',
    path: '/api/v1/presets/{slug}/events',
    operationId: 'listPresetEvents',
    tag: 'Events',
    scope: 'presets:read',
    summary: "A preset's events",
    description: "The preset's stream as stored (validated and upcast to the current schema version), by revision.",
    parameters: ['slug', 'from', 'eventsLimit'],
    answers: {
      '200': { description: 'A page of events; next_from is null when the stream had no more.', content: json('PresetEventsPage') },
    },
    errors: [...API_ERRORS, '404'],
  },
  {
    method: 'get',
    path: '/api/v1/events',
    operationId: 'listEvents',
    tag: 'Events',
    scope: 'presets:read',
    summary: "The workspace's events, paged or live",
    description:
      'Every preset event of the workspace in the order stored, strictly after `after`. With `Accept: text/event-stream` the answer is a live ' +
      'server-sent event stream (each frame: id = position, event = type, data = the event JSON) that starts after Last-Event-ID (else `after`); ' +
      'on shutdown the service ends it, and a stream opened while shutting down is a 503.',
    parameters: ['after', 'eventsLimit', 'Last-Event-ID', 'Accept', 'direction', 'eventsBefore', 'type'],
    answers: {
      '200': {
        description:
          'A page of events (next_after: the position to poll after; null when nothing came after `after`; newest first with ' +
          'direction=backwards, next_before the position to page on from), or the live stream.',
        content: {
          'application/json': {
            anyOf: [{ $ref: '#/components/schemas/EventsPage' }, { $ref: '#/components/schemas/EventsBackwardsPage' }],
          },
          'text/event-stream': {
            type: 'string',
            description: 'Frames of `id: <position>`, `event: <type>`, `data: <Event JSON>`; `retry: 1000`; `: heartbeat` comments.',
          },
        },
      },
    },
    errors: [...API_ERRORS, '503'],
  },
];

export const EVENT_SCHEMAS: Schemas = [
  ['Event', EventJson],
  ['PresetEventsPage', PresetEventsPage],
  ['EventsPage', EventsPage],
  ['EventsBackwardsPage', EventsBackwardsPage],
];

export const EVENT_PARAMETERS: Parameters = {
  eventsBefore: {
    name: 'before',
    in: 'query',
    description: 'With direction=backwards: events strictly before this position (the next_before of the previous page).',
    schema: { type: 'string', pattern: '^\\d{1,40}$' },
  },
  direction: {
    name: 'direction',
    in: 'query',
    description: '`backwards`: newest first, paged with `before` (not for the live stream).',
    schema: { type: 'string', enum: ['forwards', 'backwards'], default: 'forwards' },
  },
  type: {
    name: 'type',
    in: 'query',
    description: 'Only events of these types (repeated, or comma-separated).',
    style: 'form',
    explode: true,
    schema: { type: 'array', items: { type: 'string', enum: [...WORKSPACE_EVENT_TYPES] } },
  },
  from: {
    name: 'from',
    in: 'query',
    description: 'The revision to start at (inclusive).',
    schema: { type: 'integer', minimum: 0, default: 0 },
  },
  eventsLimit: {
    name: 'limit',
    in: 'query',
    description: 'Events per page (not for the live stream).',
    schema: { type: 'integer', minimum: 1, maximum: EVENTS_MAX_LIMIT, default: EVENTS_DEFAULT_LIMIT },
  },
  after: {
    name: 'after',
    in: 'query',
    description: 'A position (a decimal string: positions can exceed 2^64): events strictly after it. Default: from the start.',
    schema: { type: 'string', pattern: '^\\d{1,40}$' },
  },
  'Last-Event-ID': {
    name: 'Last-Event-ID',
    in: 'header',
    description: 'The live stream resumes after this position (what a reconnecting EventSource sends).',
    schema: { type: 'string', pattern: '^\\d{1,40}$' },
  },
  Accept: { name: 'Accept', in: 'header', description: '`text/event-stream` for the live stream.', schema: { type: 'string' } },
};
