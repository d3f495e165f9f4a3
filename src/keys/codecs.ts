import * as t from 'io-ts';
import * as E from 'fp-ts/Either';
import { charsBetween, closed, listOf, nullable, refine } from '../formats/codecs';
import { withJsonSchema } from '../jsonSchema';
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

/**
 * A user id a key may be made for: printable text of bounded length. Letters, digits, marks,
 * punctuation and symbols, but no space, control or format character, and none of the markup
 * characters `< > & " ' \``: it is shown in the console, in reports and in CSVs, and must read as
 * what it is. Enough for e-mail addresses and identity providers' subjects (`auth0|5f7c…`).
 */
export const USER_ID_PATTERN = /^[^\p{C}\p{Z}<>&"'`\\]{1,200}$/u;
export const UserId = refine(
  t.string,
  (s) => USER_ID_PATTERN.test(s),
  'user id (1–200 printable characters: no spaces, control characters or < > & " \' ` \\)',
  { minLength: 1, maxLength: 200, pattern: USER_ID_PATTERN.source },
);

/**
 * Distinct workspace ids, a UUID's letter case aside: `ABC…` and `abc…` are one workspace, so a
 * key naming both is refused at the second, like any other repeat.
 */
const Workspaces = withJsonSchema(
  new t.ArrayType<typeof WorkspaceId, string[], string[], unknown>(
    'non-empty list of distinct workspace ids',
    (u): u is string[] =>
      Array.isArray(u) && u.length > 0 && u.every((w) => WorkspaceId.is(w)) && new Set(u.map((w) => w.toLowerCase())).size === u.length,
    (u, c) => {
      const items = listOf(WorkspaceId).validate(u, c);
      if (E.isLeft(items)) return items;
      if (items.right.length === 0) return t.failure(u, c, 'must name at least one workspace');
      const seen = new Set<string>();
      const repeats: t.Errors = [];
      items.right.forEach((w, i) => {
        const key = w.toLowerCase();
        if (seen.has(key)) {
          repeats.push({
            value: w,
            context: t.appendContext(c, String(i), WorkspaceId, w),
            message: 'names a workspace listed before it (letter case aside)',
          });
        }
        seen.add(key);
      });
      return repeats.length > 0 ? t.failures(repeats) : items;
    },
    t.identity,
    WorkspaceId,
  ),
  (walk) => ({ type: 'array', items: walk(WorkspaceId), minItems: 1, uniqueItems: true }),
);

export const CreateKeyBody = closed(
  'key',
  {
    scopes: distinct(listOf(KeyScope), 'scopes'),
    workspaces: Workspaces,
  },
  {
    /** Absent: the maker's own user. Another user only when the maker's key may act for others (a keys-file right). */
    user_id: UserId,
    name: nullable(charsBetween(1, 200)),
    expires_at: nullable(Timestamp),
  },
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
    /** The user of the key that made it. */
    created_by: t.string,
    /** The key that made it: an API key's id, or a keys-file key's 12-hex key id; null for keys made before it was recorded. */
    created_by_key_id: t.union([t.string, t.null]),
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
  created_by_key_id: r.createdByKeyId,
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
