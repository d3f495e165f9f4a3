import * as t from 'io-ts';
import { SCOPES, type Scope } from '../auth/scopes';
import { defineStreamType, eventRegistry } from '../events/registry';

/**
 * The events of a workspace's keys stream (streams.ts): who was given which access, and when it
 * was taken back. Who acted is the event's `metadata.actorUserId`, as on every event.
 *
 * `keySha256` is what every replica needs to recognise the key (each follows these events to keep
 * its key ring): the key itself is never stored anywhere, and the API's event answers (history,
 * feed, live stream, webhooks) leave the hash out too (`publicEventData`).
 */
export const KeyScope = t.keyof(Object.fromEntries(SCOPES.map((s) => [s, null])) as Record<Scope, null>, 'Scope');

/**
 * Who made the key: the user of the key that made it, and that key's id (an API key's id, or a
 * keys-file key's 12-hex key id). Optional: keys made before they were recorded have neither, and
 * their maker's user is the event's `metadata.actorUserId`.
 */
const maker = t.partial({ makerUserId: t.string, makerKeyId: t.string });

/** What the API shows of a created key: all of the event but the key's hash. */
const shownFields = {
  keyId: t.string,
  userId: t.string,
  name: t.union([t.string, t.null]),
  scopes: t.array(KeyScope),
  /**
   * The first is where the key acts when a request names none. The event is in the keys stream of
   * each (and of the workspace its maker acted in), the same event with the same `keyId`.
   */
  workspaces: t.array(t.string),
  expiresAt: t.union([t.string, t.null]),
  occurredAt: t.string,
};

// `keyId` first, then the hash: the order the published schemas have.
const { keyId, ...afterKeyId } = shownFields;
export const ApiKeyCreatedData = t.intersection([t.type({ keyId, keySha256: t.string, ...afterKeyId }), maker]);

/** In the keys stream of each workspace the key holds, and of the workspace its revoker acted in. */
export const ApiKeyRevokedData = t.intersection([t.type({ keyId: t.string, occurredAt: t.string }), t.partial({ note: t.string })]);

export type ApiKeyCreated = { type: 'ApiKeyCreated'; data: t.TypeOf<typeof ApiKeyCreatedData> };
export type ApiKeyRevoked = { type: 'ApiKeyRevoked'; data: t.TypeOf<typeof ApiKeyRevokedData> };
export type KeyEvent = ApiKeyCreated | ApiKeyRevoked;
export type KeyEventType = KeyEvent['type'];

export const keyEventDataCodecs = {
  ApiKeyCreated: ApiKeyCreatedData,
  ApiKeyRevoked: ApiKeyRevokedData,
} as const satisfies Record<KeyEventType, t.Mixed>;

export const KEY_EVENT_TYPES = Object.keys(keyEventDataCodecs) as KeyEventType[];

/** The keys stream type, as it registers into the log's table (src/events/registry.ts): stored since schema version 2, unchanged since. */
export const keysStreamType = defineStreamType<KeyEvent>({ name: 'keys', codecs: keyEventDataCodecs, since: 2 });

/** Decodes the events of a keys stream (and only those: its readers select them by type first). */
export const keyEvents = eventRegistry<KeyEvent>(keysStreamType);

/** An ApiKeyCreated as the API shows it: without the key's hash. */
export const ApiKeyCreatedPublicData = t.intersection([t.type(shownFields), maker]);
