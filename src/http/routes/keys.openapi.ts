import { CreateKeyBody, KeyAnswer, KeyCreated, KeyList, KeyView, MeAnswer } from '../../keys/codecs';
import { json, type Operation, type Parameters, type Schemas } from '../operations';

/** The keys API in the OpenAPI document (openapi.ts spreads these). */
export const KEY_SCHEMAS: Schemas = [
  ['ApiKeyRequest', CreateKeyBody],
  ['ApiKey', KeyView],
  ['ApiKeyAnswer', KeyAnswer],
  ['ApiKeyList', KeyList],
  ['ApiKeyCreated', KeyCreated],
  ['MeAnswer', MeAnswer],
];

export const KEY_PARAMETERS: Parameters = {
  keyId: { name: 'id', in: 'path', required: true, description: "The key's id (not the key).", schema: { type: 'string' } },
};

export const KEY_OPERATIONS: Operation[] = [
  {
    method: 'get',
    path: '/api/v1/me',
    operationId: 'getMe',
    tag: 'Keys',
    scope: 'presets:read',
    summary: 'Who this key is',
    description:
      'The user, workspaces and scopes of the key the request is made with, and the workspace it acts in (the console shows who is signed in with it).',
    answers: { '200': { description: 'The caller.', content: json('MeAnswer') } },
    errors: ['400', '401', '403', '429', '500'],
  },
  {
    method: 'post',
    path: '/api/v1/keys',
    operationId: 'createApiKey',
    tag: 'Keys',
    scope: 'keys:manage',
    summary: 'Make an API key',
    description:
      "A key with these scopes in these workspaces (the first is its default), optionally named and expiring. It is your own user's: " +
      '`user_id` may name another user only when your key may act for others (a keys-file right, `act_for_others`; else a 403 `user_not_own`). ' +
      'The key is in this answer only: the service keeps its SHA-256. It works at once, on every replica within a second. ' +
      'A workspace or a scope your own key lacks is a 403. Stored as the event ApiKeyCreated, with who made it (`makerUserId`, `makerKeyId`), ' +
      'in the keys stream of the workspace the request acts in and of each workspace the key holds.',
    requestBody: 'ApiKeyRequest',
    answers: { '201': { description: 'Made, with the key (shown this once).', content: json('ApiKeyCreated'), headers: ['Location'] } },
    errors: ['400', '401', '403', '409', '413', '415', '429', '500', '503'],
  },
  {
    method: 'get',
    path: '/api/v1/keys',
    operationId: 'listApiKeys',
    tag: 'Keys',
    scope: 'keys:manage',
    summary: 'The keys that hold the workspace',
    description:
      'Keys made through the API that hold the workspace the request acts in, oldest first: who holds each, its scopes and workspaces, ' +
      'when it was made, expires, was last used (on this replica, to the minute) and revoked. Never a key or its hash.',
    answers: { '200': { description: 'The keys.', content: json('ApiKeyList') } },
    errors: ['400', '401', '403', '429', '500'],
  },
  {
    method: 'get',
    path: '/api/v1/keys/events',
    operationId: 'listKeyEvents',
    tag: 'Events',
    scope: 'presets:read',
    summary: "The workspace's keys stream",
    description:
      "ApiKeyCreated and ApiKeyRevoked of the keys made in the workspace the request acts in, by revision, paged like a preset's history " +
      "(an empty page when none was made). Who acted is each event's metadata.actorUserId. Never a key or its hash.",
    parameters: ['from', 'eventsLimit'],
    answers: { '200': { description: 'A page of events.', content: json('PresetEventsPage') } },
    errors: ['400', '401', '403', '429', '500'],
  },
  {
    method: 'delete',
    path: '/api/v1/keys/{id}',
    operationId: 'revokeApiKey',
    tag: 'Keys',
    scope: 'keys:manage',
    summary: 'Revoke an API key',
    description:
      'Refused (401) from the answer on, on every replica within a second, and its open event streams and long polls end. ' +
      'Revoking a revoked key answers it unchanged. The keys it made are not revoked with it (each is listed with `created_by_key_id`). ' +
      'Stored as ApiKeyRevoked in the keys stream of the workspace the request acts in and of each workspace the key holds. ' +
      'A key of the keys file is not revoked here: remove it from the file.',
    parameters: ['keyId'],
    answers: { '200': { description: 'The key, revoked.', content: json('ApiKeyAnswer') } },
    errors: ['400', '401', '403', '404', '409', '429', '500', '503'],
  },
];
