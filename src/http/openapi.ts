import type * as t from 'io-ts';
import { PRESET_EVENT_TYPES } from '../presets/events';
import { toJsonSchema, type JsonSchema } from '../jsonSchema';
import * as chatCompletions from '../formats/chatCompletions';
import * as messages from '../formats/messages';
import * as responses from '../formats/responses';
import { PresetView, VersionView } from '../../projections/readmodel/readModel';
import { ErrorEnvelope } from './errors';
import { EventJson } from './eventJson';
import { DesignateBody } from './routes/designate';
import { DELIVERIES_DEFAULT_LIMIT, DELIVERIES_MAX_LIMIT } from './routes/webhooks';
import {
  CreateWebhookBody,
  DeliveriesPage,
  PatchWebhookBody,
  ReplayBody,
  WebhookAnswer,
  WebhookCreated,
  WebhookList,
  WebhookRotated,
  WebhookView,
} from '../webhooks/codecs';
import { EVENTS_DEFAULT_LIMIT, EVENTS_MAX_LIMIT } from './routes/events';
import { LABEL, LabelBody, PatchBody, RESERVED_LABELS } from './routes/lifecycle';
import { DEFAULT_LIMIT, FEED_POSITION_HEADER, MAX_LIMIT } from './routes/reads';
import { DryRunAnswer } from './routes/dryRun';
import { AUDIT_OPERATIONS, AUDIT_PARAMETERS } from './routes/audit.openapi';
import { DroppedField, RESOLVE_ANSWER_CODECS, RESOLVE_REQUEST_CODECS, ResolvedPreset } from '../resolve/codecs';
import {
  EventsBackwardsPage,
  EventsPage,
  HealthLive,
  HealthReady,
  PendingWrite,
  PresetAnswer,
  PresetEventsPage,
  PresetList,
  VersionAnswer,
  VersionList,
} from './schemas';

/**
 * The service's own contract, OpenAPI 3.1, made by a pure function from the route table below
 * and the io-ts codecs that validate requests and type the answers: every schema in it is
 * generated (src/jsonSchema.ts), none is written by hand. Served at GET /api/v1/openapi.json and
 * rendered at /docs. Tests validate it with an OpenAPI validator, check every answer the HTTP
 * suites receive against it, and check the route table against the routes the app registers.
 */

export const SLUG_PATTERN = '^[A-Za-z0-9][A-Za-z0-9._~-]{0,127}$';
export const VERSION_PATTERN = '^[1-9]\\d{0,8}$';

/** Every schema of the document, by name, with the codec it is generated from. */
const SCHEMAS: ReadonlyArray<[string, t.Any]> = [
  ['ChatCompletionsRequest', chatCompletions.codec],
  ['MessagesRequest', messages.codec],
  ['ResponsesRequest', responses.codec],
  ['ResolveChatCompletionsRequest', RESOLVE_REQUEST_CODECS.chat_completions],
  ['ResolveMessagesRequest', RESOLVE_REQUEST_CODECS.messages],
  ['ResolveResponsesRequest', RESOLVE_REQUEST_CODECS.responses],
  ['ChatCompletionsResolveAnswer', RESOLVE_ANSWER_CODECS.chat_completions],
  ['MessagesResolveAnswer', RESOLVE_ANSWER_CODECS.messages],
  ['ResponsesResolveAnswer', RESOLVE_ANSWER_CODECS.responses],
  ['ResolvedPreset', ResolvedPreset],
  ['DroppedField', DroppedField],
  ['DesignateRequest', DesignateBody],
  ['PresetChanges', PatchBody],
  ['LabelRequest', LabelBody],
  ['WebhookRequest', CreateWebhookBody],
  ['WebhookChanges', PatchWebhookBody],
  ['ReplayRequest', ReplayBody],
  ['Webhook', WebhookView],
  ['WebhookAnswer', WebhookAnswer],
  ['WebhookCreated', WebhookCreated],
  ['WebhookRotated', WebhookRotated],
  ['WebhookList', WebhookList],
  ['WebhookDeliveriesPage', DeliveriesPage],
  ['Preset', PresetView],
  ['PresetVersion', VersionView],
  ['PresetAnswer', PresetAnswer],
  ['PresetList', PresetList],
  ['VersionAnswer', VersionAnswer],
  ['VersionList', VersionList],
  ['PendingWrite', PendingWrite],
  ['Event', EventJson],
  ['PresetEventsPage', PresetEventsPage],
  ['EventsPage', EventsPage],
  ['EventsBackwardsPage', EventsBackwardsPage],
  ['DryRunAnswer', DryRunAnswer],
  ['Error', ErrorEnvelope],
  ['HealthLive', HealthLive],
  ['HealthReady', HealthReady],
];

type Status = '200' | '201' | '202' | '204' | '304' | '400' | '401' | '403' | '404' | '409' | '412' | '413' | '415' | '429' | '500' | '503';
type Header = 'X-Request-Id' | 'ETag' | 'Location' | 'Retry-After' | 'WWW-Authenticate' | 'Cache-Control' | typeof FEED_POSITION_HEADER;

interface Answer {
  description: string;
  /** Media type → a schema name of SCHEMAS, or an inline schema. */
  content?: Record<string, string | JsonSchema>;
  headers?: Header[];
}

export interface Operation {
  method: 'get' | 'post' | 'put' | 'patch' | 'delete';
  /** The path as OpenAPI writes it: `/api/v1/presets/{slug}`. */
  path: string;
  operationId: string;
  summary: string;
  description: string;
  tag: 'Presets' | 'Events' | 'Webhooks' | 'Service';
  /** The scope the bearer key needs; none: no key needed. */
  scope?: 'presets:read' | 'presets:write' | 'webhooks:manage' | 'audit:read';
  parameters?: string[];
  /** A schema name of SCHEMAS. */
  requestBody?: string;
  answers: Partial<Record<Status, Answer>>;
  /** Error statuses, answered in the error envelope. */
  errors: Status[];
}

const json = (schema: string | JsonSchema) => ({ 'application/json': schema });

const written = (what: string): Partial<Record<Status, Answer>> => ({
  '200': {
    description: `${what}: the preset as this write left it, read from the read model.`,
    content: json('PresetAnswer'),
    headers: ['ETag', 'Location'],
  },
  '202': {
    description: 'The write happened, but the read model has not shown it within READ_YOUR_WRITES_TIMEOUT_MS: poll Location.',
    content: json('PendingWrite'),
    headers: ['Location'],
  },
});

const FORMATS = [
  [
    'chat/completions',
    'createPresetsChatCompletions',
    'ChatCompletionsRequest',
    'an OpenAI chat-completions body',
    'the first message whose role is system',
  ],
  [
    'messages',
    'createPresetsMessages',
    'MessagesRequest',
    'an Anthropic messages body',
    'system (a string, or text blocks joined with a blank line)',
  ],
  ['responses', 'createPresetsResponses', 'ResponsesRequest', 'an OpenAI responses body', 'instructions'],
] as const;

const API_ERRORS: Status[] = ['400', '401', '403', '429', '500'];
const WEBHOOK_BODY_ERRORS: Status[] = ['400', '401', '403', '404', '413', '415', '429', '500', '503'];
const webhookAnswer = (description: string): Partial<Record<Status, Answer>> => ({
  '200': { description, content: json('WebhookAnswer') },
});

/** The webhooks API: every call needs webhooks:manage; another workspace's webhook is a 404. */
const WEBHOOK_OPERATIONS: Operation[] = [
  {
    method: 'post',
    path: '/api/v1/webhooks',
    operationId: 'createWebhook',
    tag: 'Webhooks',
    scope: 'webhooks:manage',
    summary: 'Register a webhook',
    description:
      'Preset events of the workspace (all types, or those named) are sent to the URL, signed (Standard Webhooks), in feed order, at least once, ' +
      'from the events after its creation. The secret is in this answer only. A URL that is not http(s) or resolves to a private address is a 400.',
    requestBody: 'WebhookRequest',
    answers: {
      '201': { description: 'Registered, with its secret (shown this once).', content: json('WebhookCreated'), headers: ['Location'] },
    },
    errors: ['400', '401', '403', '409', '413', '415', '429', '500', '503'],
  },
  {
    method: 'get',
    path: '/api/v1/webhooks',
    operationId: 'listWebhooks',
    tag: 'Webhooks',
    scope: 'webhooks:manage',
    summary: "The workspace's webhooks",
    description: 'Never their secrets.',
    answers: { '200': { description: 'Every webhook of the workspace.', content: json('WebhookList') } },
    errors: API_ERRORS,
  },
  {
    method: 'get',
    path: '/api/v1/webhooks/{id}',
    operationId: 'getWebhook',
    tag: 'Webhooks',
    scope: 'webhooks:manage',
    summary: 'A webhook',
    description: 'Its configuration, status and checkpoint; never its secret.',
    parameters: ['webhookId'],
    answers: webhookAnswer('The webhook.'),
    errors: [...API_ERRORS, '404'],
  },
  {
    method: 'patch',
    path: '/api/v1/webhooks/{id}',
    operationId: 'updateWebhook',
    tag: 'Webhooks',
    scope: 'webhooks:manage',
    summary: 'Change a webhook',
    description: 'Any of url, events, description and status (active or paused); another field is a 400.',
    parameters: ['webhookId'],
    requestBody: 'WebhookChanges',
    answers: webhookAnswer('The webhook as changed.'),
    errors: [...WEBHOOK_BODY_ERRORS, '409'],
  },
  {
    method: 'delete',
    path: '/api/v1/webhooks/{id}',
    operationId: 'deleteWebhook',
    tag: 'Webhooks',
    scope: 'webhooks:manage',
    summary: 'Delete a webhook',
    description: 'Delivery stops at once.',
    parameters: ['webhookId'],
    answers: { '204': { description: 'Deleted.' } },
    errors: [...API_ERRORS, '404'],
  },
  {
    method: 'get',
    path: '/api/v1/webhooks/{id}/deliveries',
    operationId: 'listWebhookDeliveries',
    tag: 'Webhooks',
    scope: 'webhooks:manage',
    summary: "A webhook's latest delivery attempts",
    description: 'Newest first, each with its event, attempt number, outcome, HTTP status or error, latency and next retry.',
    parameters: ['webhookId', 'deliveriesLimit', 'before'],
    answers: { '200': { description: 'A page of attempts; next_before is null at the end.', content: json('WebhookDeliveriesPage') } },
    errors: [...API_ERRORS, '404'],
  },
  {
    method: 'post',
    path: '/api/v1/webhooks/{id}/replay',
    operationId: 'replayWebhook',
    tag: 'Webhooks',
    scope: 'webhooks:manage',
    summary: 'Deliver again from a position',
    description: 'Every matching event after the position is delivered again (the checkpoint never moves forward this way).',
    parameters: ['webhookId'],
    requestBody: 'ReplayRequest',
    answers: webhookAnswer('The webhook with its new checkpoint.'),
    errors: WEBHOOK_BODY_ERRORS,
  },
  {
    method: 'post',
    path: '/api/v1/webhooks/{id}/rotate-secret',
    operationId: 'rotateWebhookSecret',
    tag: 'Webhooks',
    scope: 'webhooks:manage',
    summary: "Rotate a webhook's secret",
    description: 'A new secret, shown this once; for 24 hours deliveries carry signatures under the old one too.',
    parameters: ['webhookId'],
    answers: { '200': { description: 'The webhook with its new secret.', content: json('WebhookRotated') } },
    errors: [...API_ERRORS, '404', '409'],
  },
];
const WRITE_ERRORS: Status[] = ['400', '401', '403', '409', '412', '413', '415', '429', '500', '503'];

const RESOLVE = [
  [
    'chat/completions',
    'resolveChatCompletions',
    'ResolveChatCompletionsRequest',
    'ChatCompletionsResolveAnswer',
    'an OpenAI chat-completions request',
    'a leading system message',
  ],
  ['messages', 'resolveMessages', 'ResolveMessagesRequest', 'MessagesResolveAnswer', 'an Anthropic messages request', 'system'],
  ['responses', 'resolveResponses', 'ResolveResponsesRequest', 'ResponsesResolveAnswer', 'an OpenAI responses request', 'instructions'],
] as const;

/** Using a preset: one endpoint per format; nothing is stored. */
const RESOLVE_OPERATIONS: Operation[] = RESOLVE.map(([path, operationId, request, answer, body, system]): Operation => ({
  method: 'post',
  path: `/api/v1/resolve/${path}`,
  operationId,
  tag: 'Presets',
  scope: 'presets:read',
  summary: `Resolve ${body} that names a preset`,
  description:
    'The body names a preset as OpenRouter does: "model": "@preset/<slug>" (the preset supplies the model), "<model>@preset/<slug>" (the model given wins), ' +
    'or "preset": "<slug>" beside the body\'s own model; after the slug, @<n> pins a version, @latest the newest, @<label> a label (default: the designated version). ' +
    "The answer is the request to send: the version's config, translated to this format, under the body (a top-level field the body sets wins; tools are merged by identity), " +
    `its system prompt as ${system} unless the body has one. What could not be translated is listed in dropped. ` +
    '400: the body names no preset, names one malformed, or is not a valid request of its format; 404: no such preset, version or label; 409: the preset is disabled or archived.',
  requestBody: request,
  answers: { '200': { description: 'The request to send, the version used and what was dropped on the way.', content: json(answer) } },
  errors: ['400', '401', '403', '404', '409', '413', '415', '429', '500'],
}));

/** A GET whose answer carries an ETag: If-None-Match naming it (or *) gets a 304. */
const notModified: Partial<Record<Status, Answer>> = {
  '304': { description: 'Not modified: If-None-Match names the current ETag (or is *).', headers: ['ETag'] },
};

/** The route table: every endpoint of the service. */
export const OPERATIONS: readonly Operation[] = [
  ...FORMATS.map(([path, operationId, schema, body, system]): Operation => ({
    method: 'post',
    path: `/api/v1/presets/{slug}/${path}`,
    operationId,
    summary: `Create or version a preset from ${body}`,
    description:
      `Creates the preset (version 1) if the slug is new in the workspace, else adds the next version, which becomes the designated one. ` +
      `Accepts every body OpenRouter's reference accepts (within part 8 of the spec and the limits the reference states); keeps the fields that configure a model in config, ` +
      `as sent, a null meaning "not set"; the system prompt is ${system}. Other fields are ignored.`,
    tag: 'Presets',
    scope: 'presets:write',
    parameters: ['slug', 'If-Match', 'Preset-Note', 'dry_run'],
    requestBody: schema,
    answers: {
      ...written('Created (version 1) or versioned'),
      '200': {
        description:
          'Created (version 1) or versioned: the preset as this write left it; with ?dry_run=true, what a version would keep, and nothing stored.',
        content: json({ anyOf: [{ $ref: '#/components/schemas/PresetAnswer' }, { $ref: '#/components/schemas/DryRunAnswer' }] }),
        headers: [],
      },
    },
    errors: WRITE_ERRORS,
  })),
  {
    method: 'get',
    path: '/api/v1/presets',
    operationId: 'listPresets',
    tag: 'Presets',
    scope: 'presets:read',
    summary: 'List presets',
    description: "The workspace's presets, most recently updated first.",
    parameters: ['offset', 'limit', 'status', 'q'],
    answers: {
      '200': {
        description: 'A page of presets and how many the filter lists.',
        content: json('PresetList'),
        headers: [FEED_POSITION_HEADER],
      },
    },
    errors: API_ERRORS,
  },
  {
    method: 'get',
    path: '/api/v1/presets/{slug}',
    operationId: 'getPreset',
    tag: 'Presets',
    scope: 'presets:read',
    summary: 'Get a preset',
    description: 'One preset with its designated version. The ETag is its stream revision, for If-Match (writes) and If-None-Match (304).',
    parameters: ['slug', 'as_of', 'If-None-Match'],
    answers: { '200': { description: 'The preset.', content: json('PresetAnswer'), headers: ['ETag'] }, ...notModified },
    errors: [...API_ERRORS, '404'],
  },
  {
    method: 'get',
    path: '/api/v1/presets/{slug}/versions',
    operationId: 'listPresetVersions',
    tag: 'Presets',
    scope: 'presets:read',
    summary: "List a preset's versions",
    description: "Its versions, ascending. The ETag is the preset's stream revision: the list changes only with it.",
    parameters: ['slug', 'offset', 'limit', 'as_of', 'If-None-Match'],
    answers: {
      '200': { description: 'A page of versions and how many there are.', content: json('VersionList'), headers: ['ETag'] },
      ...notModified,
    },
    errors: [...API_ERRORS, '404'],
  },
  {
    method: 'get',
    path: '/api/v1/presets/{slug}/versions/{version}',
    operationId: 'getPresetVersion',
    tag: 'Presets',
    scope: 'presets:read',
    summary: 'Get one version of a preset',
    description: 'One version, by its number. A version never changes: its ETag is its id.',
    parameters: ['slug', 'version', 'as_of', 'If-None-Match'],
    answers: { '200': { description: 'The version.', content: json('VersionAnswer'), headers: ['ETag'] }, ...notModified },
    errors: [...API_ERRORS, '404'],
  },
  {
    method: 'put',
    path: '/api/v1/presets/{slug}/designated-version',
    operationId: 'designatePresetVersion',
    tag: 'Presets',
    scope: 'presets:write',
    summary: 'Designate a version (rollback)',
    description:
      'Makes an existing version the designated one; the versions stay as they are. Designating the designated version stores nothing. ' +
      'Refused (409) while the preset is archived.',
    parameters: ['slug', 'If-Match', 'Preset-Note'],
    requestBody: 'DesignateRequest',
    answers: written('Designated'),
    errors: [...WRITE_ERRORS, '404'],
  },
  {
    method: 'patch',
    path: '/api/v1/presets/{slug}',
    operationId: 'updatePreset',
    tag: 'Presets',
    scope: 'presets:write',
    summary: "Change a preset's name, description or status",
    description:
      'Any of name, description and status; another field is a 400. Only what differs is stored (PresetDetailsChanged, PresetStatusChanged); ' +
      'a change that changes nothing stores nothing. `archived` hides the preset from the default list and freezes it until it is set back.',
    parameters: ['slug', 'If-Match', 'Preset-Note'],
    requestBody: 'PresetChanges',
    answers: written('Changed'),
    errors: [...WRITE_ERRORS, '404'],
  },
  {
    method: 'delete',
    path: '/api/v1/presets/{slug}',
    operationId: 'archivePreset',
    tag: 'Presets',
    scope: 'presets:write',
    summary: 'Archive a preset',
    description: 'The same as PATCH {"status":"archived"}: events are never erased, and the slug stays taken.',
    parameters: ['slug', 'If-Match', 'Preset-Note'],
    answers: written('Archived'),
    errors: [...WRITE_ERRORS, '404'],
  },
  {
    method: 'put',
    path: '/api/v1/presets/{slug}/labels/{label}',
    operationId: 'movePresetLabel',
    tag: 'Presets',
    scope: 'presets:write',
    summary: 'Point a label at a version',
    description:
      'Creates the label, or moves it (PresetLabelMoved names the version it named before); moving it to the version it names stores nothing. ' +
      'Refused (409) while the preset is archived.',
    parameters: ['slug', 'label', 'If-Match', 'Preset-Note'],
    requestBody: 'LabelRequest',
    answers: written('Moved'),
    errors: [...WRITE_ERRORS, '404'],
  },
  {
    method: 'delete',
    path: '/api/v1/presets/{slug}/labels/{label}',
    operationId: 'removePresetLabel',
    tag: 'Presets',
    scope: 'presets:write',
    summary: 'Remove a label',
    description: 'PresetLabelRemoved names the version the label named. Refused (409) while the preset is archived.',
    parameters: ['slug', 'label', 'If-Match', 'Preset-Note'],
    answers: written('Removed'),
    errors: [...WRITE_ERRORS, '404'],
  },
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
  ...RESOLVE_OPERATIONS,
  ...WEBHOOK_OPERATIONS,
  ...AUDIT_OPERATIONS,
  {
    method: 'get',
    path: '/health/live',
    operationId: 'getLiveness',
    tag: 'Service',
    summary: 'Liveness',
    description: 'The process answers.',
    answers: { '200': { description: 'Alive.', content: json('HealthLive') } },
    errors: ['500'],
  },
  {
    method: 'get',
    path: '/health/ready',
    operationId: 'getReadiness',
    tag: 'Service',
    summary: 'Readiness',
    description: 'Ready once the read model has caught up with the events stored before the start and the projector runs.',
    answers: {
      '200': { description: 'Ready.', content: json('HealthReady') },
      '503': { description: 'Not ready (yet).', content: json('HealthReady') },
    },
    errors: ['500'],
  },
  {
    method: 'get',
    path: '/api/v1/openapi.json',
    operationId: 'getOpenApiDocument',
    tag: 'Service',
    summary: 'This document',
    description: 'The OpenAPI 3.1 document of the service, generated from its codecs.',
    answers: {
      '200': {
        description: 'The document.',
        content: json({ type: 'object', description: 'An OpenAPI 3.1 document.' }),
        headers: ['ETag', 'Cache-Control'],
      },
      '304': { description: 'Not modified (If-None-Match named its ETag).', headers: ['ETag'] },
    },
    errors: ['500'],
  },
  {
    method: 'get',
    path: '/docs',
    operationId: 'getApiReference',
    tag: 'Service',
    summary: 'The API reference',
    description: 'A readable, interactive rendering of this document (Swagger UI, served by the service itself).',
    answers: { '200': { description: 'An HTML page.', content: { 'text/html': { type: 'string' } } } },
    errors: ['500'],
  },
  {
    method: 'get',
    path: '/',
    operationId: 'getConsole',
    tag: 'Service',
    summary: 'The web console',
    description:
      "The console's page (it needs no key; every API call it makes does). 503 when the service was started without a built console.",
    answers: {
      '200': { description: 'An HTML page.', content: { 'text/html': { type: 'string' } }, headers: ['ETag', 'Cache-Control'] },
      '304': { description: 'Not modified.', headers: ['ETag'] },
    },
    errors: ['500', '503'],
  },
  {
    method: 'get',
    path: '/favicon.svg',
    operationId: 'getConsoleIcon',
    tag: 'Service',
    summary: "The web console's icon",
    description: 'An SVG image.',
    answers: {
      '200': { description: 'The icon.', content: { 'image/svg+xml': { type: 'string' } }, headers: ['ETag', 'Cache-Control'] },
      '304': { description: 'Not modified.', headers: ['ETag'] },
    },
    errors: ['500'],
  },
  {
    method: 'get',
    path: '/assets/{file}',
    operationId: 'getConsoleAsset',
    tag: 'Service',
    summary: "The web console's scripts and styles",
    description: "Files the console's build wrote, named by content hash (cached for a year).",
    parameters: ['consoleFile'],
    answers: {
      '200': {
        description: 'The file.',
        content: { 'text/javascript': { type: 'string' }, 'text/css': { type: 'string' } },
        headers: ['ETag', 'Cache-Control'],
      },
      '304': { description: 'Not modified.', headers: ['ETag'] },
    },
    errors: ['404', '500'],
  },
  {
    method: 'get',
    path: '/docs/{asset}',
    operationId: 'getApiReferenceAsset',
    tag: 'Service',
    summary: "The API reference's scripts, style and icon",
    description: 'Files of the swagger-ui-dist package, served from the service.',
    parameters: ['asset'],
    answers: {
      '200': {
        description: 'The file.',
        content: {
          'application/javascript': { type: 'string' },
          'text/css': { type: 'string' },
          'image/png': { type: 'string', contentMediaType: 'image/png' },
        },
        headers: ['Cache-Control'],
      },
    },
    errors: ['404', '500'],
  },
];

const PARAMETERS: Record<string, JsonSchema> = {
  ...AUDIT_PARAMETERS,
  slug: {
    name: 'slug',
    in: 'path',
    required: true,
    description: 'The preset: 1–128 characters of A–Z a–z 0–9 . _ ~ -, starting with a letter or digit; case-sensitive, per workspace.',
    schema: { type: 'string', pattern: SLUG_PATTERN },
  },
  version: {
    name: 'version',
    in: 'path',
    required: true,
    description: 'A version number, from 1.',
    schema: { type: 'string', pattern: VERSION_PATTERN },
  },
  label: {
    name: 'label',
    in: 'path',
    required: true,
    description: 'A label: 1–36 characters of a–z 0–9 _ . -, starting with a letter or digit; `latest` is reserved.',
    schema: { type: 'string', pattern: LABEL.source, not: { enum: RESERVED_LABELS } },
  },
  status: {
    name: 'status',
    in: 'query',
    description: 'Which presets: active and disabled by default; one status, or all.',
    schema: { type: 'string', enum: ['active', 'disabled', 'archived', 'all'] },
  },
  'Preset-Note': {
    name: 'Preset-Note',
    in: 'header',
    description: 'Why, in your words: percent-encoded UTF-8, at most 1,000 characters once decoded; stored on the event.',
    schema: { type: 'string' },
  },
  webhookId: { name: 'id', in: 'path', required: true, description: "The webhook's id.", schema: { type: 'string', format: 'uuid' } },
  deliveriesLimit: {
    name: 'limit',
    in: 'query',
    description: 'Attempts per page.',
    schema: { type: 'integer', minimum: 1, maximum: DELIVERIES_MAX_LIMIT, default: DELIVERIES_DEFAULT_LIMIT },
  },
  before: {
    name: 'before',
    in: 'query',
    description: 'The next_before of the previous page.',
    schema: { type: 'string', pattern: '^[0-9A-Za-z]{1,64}$' },
  },
  eventsBefore: {
    name: 'before',
    in: 'query',
    description: 'With direction=backwards: events strictly before this position (the next_before of the previous page).',
    schema: { type: 'string', pattern: '^\\d{1,40}$' },
  },
  dry_run: {
    name: 'dry_run',
    in: 'query',
    description: '`true`: validate and answer what a version would keep (config, system prompt, note), storing nothing.',
    schema: { type: 'string', enum: ['true', 'false'] },
  },
  q: {
    name: 'q',
    in: 'query',
    description: 'Only presets whose slug or name contains this text, ignoring case.',
    schema: { type: 'string' },
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
    schema: { type: 'array', items: { type: 'string', enum: [...PRESET_EVENT_TYPES] } },
  },
  consoleFile: { name: 'file', in: 'path', required: true, description: "A file of the console's build.", schema: { type: 'string' } },
  offset: {
    name: 'offset',
    in: 'query',
    description: 'Items to skip.',
    schema: { type: 'integer', minimum: 0, maximum: 999_999_999, default: 0 },
  },
  limit: {
    name: 'limit',
    in: 'query',
    description: 'Items per page.',
    schema: { type: 'integer', minimum: 1, maximum: MAX_LIMIT, default: DEFAULT_LIMIT },
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
  'If-Match': {
    name: 'If-Match',
    in: 'header',
    description: 'An ETag of the preset ("<revision>"), or *: change it only if it is still at that revision (else 412).',
    schema: { type: 'string' },
  },
  'If-None-Match': {
    name: 'If-None-Match',
    in: 'header',
    description: 'ETags (comma-separated) or *: a 304 without a body when one names the current ETag (weak comparison, RFC 9110).',
    schema: { type: 'string' },
  },
  'Last-Event-ID': {
    name: 'Last-Event-ID',
    in: 'header',
    description: 'The live stream resumes after this position (what a reconnecting EventSource sends).',
    schema: { type: 'string', pattern: '^\\d{1,40}$' },
  },
  Accept: { name: 'Accept', in: 'header', description: '`text/event-stream` for the live stream.', schema: { type: 'string' } },
  asset: {
    name: 'asset',
    in: 'path',
    required: true,
    schema: { type: 'string', enum: ['swagger-ui.css', 'swagger-ui-bundle.js', 'init.js', 'favicon-32x32.png'] },
  },
};

const HEADERS: Record<Header, JsonSchema> = {
  'X-Request-Id': {
    description: "The request's id (the client's, when it sent a sane one): it names the request in the log.",
    required: true,
    schema: { type: 'string' },
  },
  ETag: {
    description:
      "A strong ETag: the preset's stream revision, `\"<revision>\"` (a preset, its versions list, a write's answer); a version's id (a version); " +
      'a digest of the document (/api/v1/openapi.json).',
    required: true,
    schema: { type: 'string' },
  },
  [FEED_POSITION_HEADER]: {
    description:
      'The feed position (of /api/v1/events) up to which this answer reflects every event, when the read model has one: follow the feed after it ' +
      '(Last-Event-ID) to keep what was listed current.',
    required: false,
    schema: { type: 'string', pattern: '^\\d+$' },
  },
  Location: { description: 'The preset (200), or what to poll (202).', required: true, schema: { type: 'string' } },
  'Retry-After': { description: 'Seconds to wait before retrying.', required: true, schema: { type: 'string', pattern: '^\\d+$' } },
  'WWW-Authenticate': { description: 'The bearer challenge.', required: true, schema: { type: 'string' } },
  'Cache-Control': { description: 'How long the answer may be cached.', required: true, schema: { type: 'string' } },
};

const ERRORS: Record<Exclude<Status, '200' | '201' | '202' | '204' | '304'>, Answer> = {
  '400': { description: 'Not a valid request: metadata.errors lists each problem with its JSON path (`$.messages[0].role`) or parameter.' },
  '401': { description: 'Missing, malformed or unknown API key.', headers: ['WWW-Authenticate'] },
  '403': { description: 'The key lacks the scope (metadata.required_scope).' },
  '404': { description: 'No such preset, version, label, webhook or route in this workspace.' },
  '409': {
    description:
      'Lost a race with a concurrent write: retry; or the preset is archived (metadata.reason "preset_archived"), or a webhook limit; ' +
      'resolving: the preset is disabled or archived (metadata.reason "preset_disabled", "preset_archived").',
  },
  '412': { description: 'If-Match names a revision the preset is no longer at: read it again.' },
  '413': { description: 'The body is larger than BODY_LIMIT_BYTES.' },
  '415': { description: 'The body is not application/json in UTF-8.' },
  '429': { description: "Past the key's RATE_LIMIT_PER_MINUTE (when rate limiting is on).", headers: ['Retry-After'] },
  '500': { description: 'A fault of the service (logged under the request id; no detail here).' },
  '503': { description: 'Storage cannot take writes (nothing was stored), or the service is shutting down.', headers: ['Retry-After'] },
};

const response = ({ description, content, headers = [] }: Answer) => ({
  description,
  headers: Object.fromEntries(['X-Request-Id' as Header, ...headers].map((h) => [h, { $ref: `#/components/headers/${h}` }])),
  ...(content
    ? {
        content: Object.fromEntries(
          Object.entries(content).map(([type, schema]) => [
            type,
            { schema: typeof schema === 'string' ? { $ref: `#/components/schemas/${schema}` } : schema },
          ]),
        ),
      }
    : {}),
});

const operation = (op: Operation) => ({
  operationId: op.operationId,
  summary: op.summary,
  description: op.scope ? `${op.description}\n\nNeeds an API key with the \`${op.scope}\` scope.` : op.description,
  tags: [op.tag],
  security: op.scope ? [{ bearer: [] }] : [],
  ...(op.scope ? { 'x-required-scope': op.scope } : {}),
  ...(op.parameters ? { parameters: op.parameters.map((p) => ({ $ref: `#/components/parameters/${p}` })) } : {}),
  ...(op.requestBody
    ? { requestBody: { required: true, content: { 'application/json': { schema: { $ref: `#/components/schemas/${op.requestBody}` } } } } }
    : {}),
  responses: {
    ...Object.fromEntries(Object.entries(op.answers).map(([status, answer]) => [status, response(answer)])),
    ...Object.fromEntries(op.errors.map((status) => [status, { $ref: `#/components/responses/${status}` }])),
  },
});

let document: Record<string, unknown> | undefined;

/** The document (made once: it depends on nothing but the code). */
export const openApiDocument = (): Record<string, unknown> => {
  if (document) return document;
  const refs = new Map<t.Any, string>(SCHEMAS.map(([name, codec]) => [codec, name]));
  const paths: Record<string, Record<string, unknown>> = {};
  for (const op of OPERATIONS) (paths[op.path] ??= {})[op.method] = operation(op);
  document = {
    openapi: '3.1.0',
    info: {
      title: 'presets',
      version: '1.0.0',
      summary: 'Named, versioned, reusable LLM inference configurations, event-sourced.',
      description:
        'Create or version a preset by POSTing the body of an inference request (OpenAI chat-completions, Anthropic messages or OpenAI responses), ' +
        "as OpenRouter's presets API does; read presets and versions, designate a version, and follow the events. Errors come in one envelope, " +
        '`{"error":{"code","message","metadata"}}`. Generated from the service\'s own codecs.',
      license: { name: 'MIT', identifier: 'MIT' },
    },
    tags: [
      { name: 'Presets', description: 'Create, version, read and designate presets.' },
      { name: 'Events', description: 'The event streams, for auditors and analytics consumers.' },
      { name: 'Webhooks', description: 'Signed, ordered, at-least-once delivery of preset events to HTTP endpoints.' },
      { name: 'Service', description: 'Health, this document and its reference page.' },
    ],
    paths,
    components: {
      schemas: Object.fromEntries(SCHEMAS.map(([name, codec]) => [name, toJsonSchema(codec, { refs })])),
      parameters: PARAMETERS,
      headers: HEADERS,
      responses: {
        ...Object.fromEntries(Object.entries(ERRORS).map(([status, answer]) => [status, response({ ...answer, content: json('Error') })])),
        '405': response({ description: 'Known path, another method (with Allow).', content: json('Error') }),
      },
      securitySchemes: {
        bearer: {
          type: 'http',
          scheme: 'bearer',
          description:
            'An API key: `Authorization: Bearer <key>`. Keys carry scopes (presets:read, presets:write, webhooks:manage, audit:read).',
        },
      },
    },
  };
  return document;
};
