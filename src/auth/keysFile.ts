/** The keys file named by API_KEYS_FILE, and its validation. */
import { createHash } from 'node:crypto';
import * as t from 'io-ts';
import { SCOPES, type Scope } from './scopes';

export { SCOPES, type Scope };

/** One entry of the keys file, as validated: exactly one of `key` / `key_sha256` is present. */
export interface KeyEntry {
  key?: string;
  key_sha256?: string;
  user_id: string;
  workspace_id: string;
  /** More workspaces the key may act in (by `workspace_id` in a request); `workspace_id` stays its default. */
  workspaces?: string[];
  scopes: Scope[];
  /**
   * Keys made through the API with this key may belong to another user (`user_id`): the right to
   * make identities, which only the keys file grants (docs/keys-and-release.md). Without it, a key
   * it makes is its own user's.
   */
  act_for_others?: boolean;
}

export const hashApiKey = (key: string): string => createHash('sha256').update(key, 'utf8').digest('hex');

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
export const isUuid = (s: string): boolean => UUID.test(s);
export const isScope = (s: string): s is Scope => (SCOPES as readonly string[]).includes(s);
const SHA256_HEX = /^[0-9a-f]{64}$/i;
// Anything parseBearer would accept; a key outside this set could never authenticate.
const TOKEN = /^[\x21-\x7e]+$/;

// Every failure carries its own message, and no message quotes a value that could be a key:
// a misplaced key must not end up in the startup error (which goes to logs).
const check = <A>(name: string, base: t.Decoder<unknown, A>, ok: (a: A) => boolean, message: string) =>
  new t.Type<A, A, unknown>(
    name,
    (u): u is A => base.decode(u)._tag === 'Right' && ok(u as A),
    (u, c) => {
      const r = base.validate(u, c);
      return r._tag === 'Left' || ok(r.right) ? r : t.failure(u, c, message);
    },
    t.identity,
  );
const str = (name: string, ok: (s: string) => boolean, message: string) =>
  new t.Type<string>(
    name,
    (u): u is string => typeof u === 'string' && ok(u),
    (u, c) => (typeof u === 'string' && ok(u) ? t.success(u) : t.failure(u, c, message)),
    t.identity,
  );

const ScopeC = new t.Type<Scope>(
  'Scope',
  (u): u is Scope => typeof u === 'string' && isScope(u),
  (u, c) =>
    typeof u === 'string' && isScope(u)
      ? t.success(u)
      : // Echo only scope-looking strings, never something that could be a pasted key.
        t.failure(
          u,
          c,
          `is an unknown scope${typeof u === 'string' && /^[a-z_]{1,20}:[a-z_]{1,20}$/.test(u) ? ` "${u}"` : ''} (known: ${SCOPES.join(', ')})`,
        ),
  t.identity,
);

const Entry: t.Type<KeyEntry, KeyEntry, unknown> = check(
  'an object',
  t.intersection([
    t.type(
      {
        user_id: str('user id', (s) => s.trim().length > 0, 'must be a non-empty string'),
        workspace_id: str('uuid', (s) => UUID.test(s), 'must be a UUID'),
        scopes: check('a list of scopes', t.array(ScopeC, 'a list of scopes'), (a) => a.length > 0, 'must list at least one scope'),
      },
      'an object',
    ),
    t.partial(
      {
        key: str('key', (s) => TOKEN.test(s), 'must be a non-empty string of visible ASCII characters without spaces'),
        key_sha256: str('sha256', (s) => SHA256_HEX.test(s), 'must be 64 hex characters (the SHA-256 of the key)'),
        workspaces: t.array(
          str('uuid', (s) => UUID.test(s), 'must be a UUID'),
          'a list of workspace ids',
        ),
        act_for_others: new t.Type<boolean>(
          'boolean',
          (u): u is boolean => typeof u === 'boolean',
          (u, c) => (typeof u === 'boolean' ? t.success(u) : t.failure(u, c, 'must be true or false')),
          t.identity,
        ),
      },
      'an object',
    ),
  ]),
  (e) => (e.key === undefined) !== (e.key_sha256 === undefined),
  'must have exactly one of "key" or "key_sha256"',
);

/** Lowercase hex SHA-256 of an entry's key, whichever way the entry gives it. */
export const entryHash = (e: KeyEntry): string => {
  if (e.key !== undefined) return hashApiKey(e.key);
  if (e.key_sha256 !== undefined) return e.key_sha256.toLowerCase();
  throw new Error(`key entry for user ${e.user_id} has neither "key" nor "key_sha256"`);
};

const Entries = new t.Type<KeyEntry[], KeyEntry[], unknown>(
  'a list of key entries',
  (u): u is KeyEntry[] => Array.isArray(u) && u.every(Entry.is),
  (u, c) => {
    const r = t.array(Entry, 'a list of key entries').validate(u, c);
    if (r._tag === 'Left') return r;
    if (r.right.length === 0) return t.failure(u, c, 'is empty, so every request would be rejected');
    // A key listed twice (in plaintext or hashed) would make its identity ambiguous.
    const seen = new Map<string, number>();
    const errors: t.ValidationError[] = [];
    r.right.forEach((e, i) => {
      const h = entryHash(e);
      const first = seen.get(h);
      if (first === undefined) seen.set(h, i);
      else
        errors.push({
          value: e,
          context: [...c, { key: String(i), type: Entry, actual: e }],
          message: `is the same key as keys[${first}]`,
        });
    });
    return errors.length > 0 ? t.failures(errors) : r;
  },
  t.identity,
);

/** The keys file: `{"keys": [...]}`; other top-level fields are allowed and ignored. */
export const KeysFile = t.type({ keys: Entries }, 'an object with a "keys" list');
export type KeysFile = t.TypeOf<typeof KeysFile>;

// `keys[2].workspace_id`. A step that hands the same value on (an intersection's member
// index) is not a step into the value: a step into an object or list always changes it.
const pathOf = (context: t.Context): string => {
  let path = '';
  for (let i = 1; i < context.length; i++) {
    const { key, actual } = context[i]!;
    if (actual === context[i - 1]!.actual) continue;
    path += /^\d+$/.test(key) ? `[${key}]` : `.${key}`;
  }
  return path.replace(/^\./, '');
};

const describeErrors = (errors: t.Errors): string => {
  const lines = errors.map((e) => {
    const last = e.context[e.context.length - 1];
    const message =
      last !== undefined && last.actual === undefined && e.context.length > 1
        ? 'is missing'
        : (e.message ?? `must be ${last?.type.name ?? 'valid'}`);
    return `${pathOf(e.context) || 'the file'} ${message}`;
  });
  return [...new Set(lines)].join('; ');
};

/** Validates a parsed keys file; throws an Error naming each bad entry and what is wrong. */
export const decodeKeysFile = (raw: unknown, source: string): KeyEntry[] => {
  const r = KeysFile.decode(raw);
  if (r._tag === 'Left') throw new Error(`Invalid API keys file ${source}: ${describeErrors(r.left)}`);
  return r.right.keys;
};

/** JSON.parse, minus the source excerpt V8 puts in its messages (it could contain a key). */
export const parseKeysJson = (text: string, source: string): unknown => {
  try {
    return JSON.parse(text) as unknown;
  } catch (err) {
    const where = /at position \d+(?: \(line \d+ column \d+\))?/.exec((err as Error).message)?.[0];
    // eslint-disable-next-line preserve-caught-error -- the cause's message quotes the file, which may hold a key
    throw new Error(`Invalid API keys file ${source}: not valid JSON${where ? ` (${where})` : ''}`);
  }
};
