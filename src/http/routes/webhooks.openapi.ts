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
} from '../../webhooks/codecs';
import { API_ERRORS, json, type Answer, type Operation, type Parameters, type Schemas, type Status } from '../operations';
import { DELIVERIES_DEFAULT_LIMIT, DELIVERIES_MAX_LIMIT } from './webhooks';

/** The operations of ./webhooks.ts. */

const WEBHOOK_BODY_ERRORS: Status[] = ['400', '401', '403', '404', '413', '415', '429', '500', '503'];
const webhookAnswer = (description: string): Partial<Record<Status, Answer>> => ({
  '200': { description, content: json('WebhookAnswer') },
});

/** The webhooks API: every call needs webhooks:manage; another workspace's webhook is a 404. */
export const WEBHOOK_OPERATIONS: Operation[] = [
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

export const WEBHOOK_SCHEMAS: Schemas = [
  ['WebhookRequest', CreateWebhookBody],
  ['WebhookChanges', PatchWebhookBody],
  ['ReplayRequest', ReplayBody],
  ['Webhook', WebhookView],
  ['WebhookAnswer', WebhookAnswer],
  ['WebhookCreated', WebhookCreated],
  ['WebhookRotated', WebhookRotated],
  ['WebhookList', WebhookList],
  ['WebhookDeliveriesPage', DeliveriesPage],
];

export const WEBHOOK_PARAMETERS: Parameters = {
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
};
