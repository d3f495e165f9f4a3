import * as t from 'io-ts';
import { charsBetween, closed, listOf, nullable, refine } from '../formats/codecs';
import { KeyScope } from './events';
import type { ApiKeyRecord } from './keyRing';

/** The keys API's bodies and answers (src/http/routes/keys.ts), from which the OpenAPI document is made too. */
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const ISO_TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;

const WorkspaceId = refine(t.string, (s) => UUID.test(s), 'workspace id (a UUID)', { format: 'uuid' });
const Timestamp = refine(t.string, (s) => ISO_TIMESTAMP.test(s) && !Number.isNaN(Date.parse(s)), 'date-time (RFC 3339)', {
  format: 'date-time',
});
const distinct = <C extends t.Mixed>(codec: t.ArrayC<C>, what: string) =>
  refine(codec, (a) => a.length > 0 && new Set(a).size === a.length, `non-empty list of distinct ${what}`, {
    minItems: 1,
    uniqueItems: true,
  });

export const CreateKeyBody = closed(
  'key',
  {
    user_id: charsBetween(1, 200),
    scopes: distinct(listOf(KeyScope), 'scopes'),
    workspaces: distinct(listOf(WorkspaceId), 'workspace ids'),
  },
  { name: nullable(charsBetween(1, 200)), expires_at: nullable(Timestamp) },
);
export type CreateKeyBody = t.TypeOf<typeof CreateKeyBody>;

/** A key as the API shows it: never the key, nor its hash. */
export const KeyView = t.type(
  {
    id: t.string,
    name: t.union([t.string, t.null]),
    user_id: t.string,
    scopes: t.array(KeyScope),
    workspaces: t.array(t.string),
    created_at: t.string,
    created_by: t.string,
    expires_at: t.union([t.string, t.null]),
    /** When this replica last saw it used, to the minute; null: not since it started. */
    last_used_at: t.union([t.string, t.null]),
    revoked: t.boolean,
    revoked_at: t.union([t.string, t.null]),
    revoked_by: t.union([t.string, t.null]),
  },
  'ApiKey',
);
export type KeyView = t.TypeOf<typeof KeyView>;

export const KeyAnswer = t.type({ data: KeyView }, 'ApiKeyAnswer');
export const KeyList = t.type({ data: t.array(KeyView), total_count: t.number }, 'ApiKeyList');
/** The answer of a creation: the one time the key is shown. */
export const KeyCreated = t.type({ data: t.intersection([KeyView, t.type({ key: t.string })]) }, 'ApiKeyCreated');

export const keyView = (r: ApiKeyRecord): KeyView => ({
  id: r.id,
  name: r.name,
  user_id: r.userId,
  scopes: r.scopes,
  workspaces: r.workspaces,
  created_at: r.createdAt,
  created_by: r.createdBy,
  expires_at: r.expiresAt === null ? null : r.expiresAt.toISOString(),
  last_used_at: r.lastUsedAt === null ? null : r.lastUsedAt.toISOString(),
  revoked: r.revokedAt !== null,
  revoked_at: r.revokedAt,
  revoked_by: r.revokedBy,
});

/** Who the request's key says the caller is (GET /api/v1/me): what a client such as the console needs to know of itself. */
export const MeAnswer = t.type(
  {
    data: t.type({
      user_id: t.string,
      /** The workspace this request acts in. */
      workspace_id: t.string,
      workspaces: t.array(t.string),
      scopes: t.array(KeyScope),
      /** The id of a key made through the API; null for a key of the keys file. */
      key_id: t.union([t.string, t.null]),
    }),
  },
  'MeAnswer',
);
