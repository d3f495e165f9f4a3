import * as t from 'io-ts';
import { closed, listOf, maxChars, nullable, refine } from '../formats/codecs';
import { WEBHOOK_STATUSES, type StoredWebhook } from './webhook';
import type { DeliveryAttempt } from './webhookStore';
import { WORKSPACE_EVENT_TYPES } from '../workspaceLog/catalog';

/**
 * The webhooks API's request bodies and answers, as io-ts codecs, in one place: the routes
 * (src/http/routes/webhooks.ts) validate with them and type their answers by them, and the OpenAPI
 * document can be generated from them.
 */

/** The preset event types a webhook can name: every type the service stores, now and as types are added. */
export const EVENT_TYPES: readonly string[] = WORKSPACE_EVENT_TYPES;
export const EventType = refine(t.string, (s) => EVENT_TYPES.includes(s), `one of ${EVENT_TYPES.join(', ')}`, { enum: [...EVENT_TYPES] });

export const WebhookUrl = maxChars(2048);
const Events = nullable(refine(listOf(EventType), (a) => a.length > 0, 'non-empty list of event types', { minItems: 1 }));
const Description = nullable(maxChars(2000));

export const CreateWebhookBody = closed('webhook', { url: WebhookUrl }, { events: Events, description: Description });
export type CreateWebhookBody = t.TypeOf<typeof CreateWebhookBody>;

export const PatchWebhookBody = closed(
  'webhook changes',
  {},
  {
    url: WebhookUrl,
    events: Events,
    description: Description,
    status: t.keyof({ active: null, paused: null }),
  },
);
export type PatchWebhookBody = t.TypeOf<typeof PatchWebhookBody>;

/** A feed position: a decimal string, as events show theirs (EventStoreDB's exceed 2^64). */
export const Position = refine(t.string, (s) => /^\d{1,40}$/.test(s), 'event position (a decimal integer string)', {
  pattern: '^\\d{1,40}$',
});
export const ReplayBody = closed('replay', { after: Position }, {});

// Answers.
const Timestamp = t.string;
export const WebhookView = t.type(
  {
    id: t.string,
    url: t.string,
    events: t.union([t.array(t.string), t.null]),
    description: t.union([t.string, t.null]),
    status: t.keyof(Object.fromEntries(WEBHOOK_STATUSES.map((s) => [s, null])) as Record<(typeof WEBHOOK_STATUSES)[number], null>),
    status_reason: t.union([t.string, t.null]),
    failing_since: t.union([Timestamp, t.null]),
    checkpoint: t.union([Position, t.null]),
    created_at: Timestamp,
    updated_at: Timestamp,
  },
  'Webhook',
);
export type WebhookView = t.TypeOf<typeof WebhookView>;

export const WebhookAnswer = t.type({ data: WebhookView }, 'WebhookAnswer');
export const WebhookList = t.type({ data: t.array(WebhookView), total_count: t.number }, 'WebhookList');
/** POST's 201: the only answer with the secret. */
export const WebhookCreated = t.type({ data: t.intersection([WebhookView, t.type({ secret: t.string })]) }, 'WebhookCreated');
/** rotate-secret's 200: the new secret, once, and until when the replaced one still signs. */
export const WebhookRotated = t.type(
  {
    data: t.intersection([WebhookView, t.type({ secret: t.string, previous_secret_expires_at: Timestamp })]),
  },
  'WebhookRotated',
);

export const DeliveryView = t.type(
  {
    id: t.string,
    event_id: t.string,
    event_type: t.string,
    event_position: Position,
    attempt: t.number,
    attempted_at: Timestamp,
    outcome: t.keyof({ succeeded: null, failed: null }),
    http_status: t.union([t.number, t.null]),
    error: t.union([t.string, t.null]),
    latency_ms: t.number,
    next_retry_at: t.union([Timestamp, t.null]),
  },
  'WebhookDelivery',
);
export type DeliveryView = t.TypeOf<typeof DeliveryView>;
export const DeliveriesPage = t.type({ data: t.array(DeliveryView), next_before: t.union([t.string, t.null]) }, 'WebhookDeliveriesPage');

/** A webhook as every answer shows it: never a secret. */
export const webhookView = ({ webhook: w, progress: p }: StoredWebhook): WebhookView => ({
  id: w.id,
  url: w.url,
  events: w.events,
  description: w.description,
  status: w.status,
  status_reason: w.statusReason,
  failing_since: p.failingSince,
  checkpoint: p.checkpoint === null ? null : p.checkpoint.toString(),
  created_at: w.createdAt,
  updated_at: w.updatedAt,
});

export const deliveryView = (a: DeliveryAttempt): DeliveryView => ({
  id: a.id,
  event_id: a.eventId,
  event_type: a.eventType,
  event_position: a.eventPosition.toString(),
  attempt: a.attempt,
  attempted_at: a.attemptedAt,
  outcome: a.outcome,
  http_status: a.httpStatus,
  error: a.error,
  latency_ms: a.latencyMs,
  next_retry_at: a.nextRetryAt,
});
