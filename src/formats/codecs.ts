import * as t from 'io-ts';
import * as E from 'fp-ts/Either';

/**
 * Building blocks shared by the three request codecs. Each name is what `formatErrors` prints
 * after "expected", so names are written as phrases a client can act on.
 */

/** A refinement under a readable name. A real `RefinementType`, so error paths see through it. */
export const refine = <C extends t.Any>(codec: C, predicate: (a: t.TypeOf<C>) => boolean, name: string) =>
  new t.RefinementType<C, t.TypeOf<C>, t.OutputOf<C>, unknown>(
    name,
    (u): u is t.TypeOf<C> => codec.is(u) && predicate(u),
    (u, c) => {
      const result = codec.validate(u, c);
      return E.isLeft(result) || predicate(result.right) ? result : t.failure(u, c);
    },
    codec.encode,
    codec,
    predicate,
  );

export const named = <C extends t.Any>(name: string, codec: C) => refine(codec, () => true, name);

type Kind = 'string' | 'number' | 'boolean' | 'null' | 'array' | 'object';
type Members<M> = { [K in keyof M]: M[K] extends t.Mixed ? t.TypeOf<M[K]> : never }[keyof M];
const kindOf = (u: unknown): string => (u === null ? 'null' : Array.isArray(u) ? 'array' : typeof u);

/**
 * A union that picks its member by the JSON kind of the value. io-ts's own union reports the
 * failure of every member, which buries the one problem that matters under noise.
 */
export const oneOf = <M extends Partial<Record<Kind, t.Mixed>>>(
  name: string,
  members: M,
): t.Type<Members<M>, unknown, unknown> => {
  const kinds = Object.keys(members);
  const types = Object.values(members) as t.Mixed[];
  return new t.UnionType(
    name,
    (u): u is Members<M> => types.some((m) => m.is(u)),
    (u, c) => {
      const i = kinds.indexOf(kindOf(u));
      const member = types[i];
      // The member index goes into the context like io-ts's union does, so paths skip it.
      return member ? member.validate(u, t.appendContext(c, String(i), member, u)) : t.failure(u, c);
    },
    t.identity,
    types as [t.Mixed, t.Mixed, ...t.Mixed[]],
  );
};

/** `codec`, or null (null means "not set"); a failure reports the codec's own problem only. */
export const nullable = <C extends t.Mixed>(codec: C): t.Type<t.TypeOf<C> | null, unknown, unknown> =>
  new t.UnionType(
    `${codec.name} or null`,
    (u): u is t.TypeOf<C> | null => u === null || codec.is(u),
    (u, c) => (u === null ? t.success(null) : codec.validate(u, t.appendContext(c, '0', codec, u))),
    t.identity,
    [codec, t.null],
  );

/**
 * `t.array` that stops at MAX_ITEM_ERRORS failing items: a hostile list of a million wrong items
 * costs no more to reject than a short one. Still an `ArrayType`, so error paths read `[i]`.
 */
export const MAX_ITEM_ERRORS = 100;
export const listOf = <C extends t.Mixed>(item: C): t.ArrayC<C> =>
  new t.ArrayType(
    `Array<${item.name}>`,
    (u): u is t.TypeOf<C>[] => Array.isArray(u) && u.every((x) => item.is(x)),
    (u, c) => {
      if (!Array.isArray(u)) return t.failure(u, c);
      const errors: t.Errors = [];
      for (let i = 0; i < u.length && errors.length < MAX_ITEM_ERRORS; i++) {
        const result = item.validate(u[i], t.appendContext(c, String(i), item, u[i]));
        if (E.isLeft(result)) errors.push(...result.left);
      }
      return errors.length > 0 ? t.failures(errors) : t.success(u);
    },
    t.identity,
    item,
  );

export const object = named('object', t.UnknownRecord);
export const objects = named('list of objects', listOf(object));
export const strings = named('list of strings', listOf(t.string));

// JSON such as 1e400 parses to Infinity, which t.number accepts: every number must be finite.
export const finite = refine(t.number, Number.isFinite, 'finite number');
export const between = (lo: number, hi: number) =>
  refine(t.number, (n) => n >= lo && n <= hi, `number from ${lo} to ${hi}`);
export const integer = refine(t.number, Number.isInteger, 'integer');
export const tokenCount = refine(t.number, (n) => Number.isInteger(n) && n >= 0, 'non-negative integer');
export const integerBetween = (lo: number, hi: number) =>
  refine(t.number, (n) => Number.isInteger(n) && n >= lo && n <= hi, `integer from ${lo} to ${hi}`);

export const toolChoice = oneOf('string or object', { string: t.string, object });
export const imageConfig = oneOf('string, number, or list', { string: t.string, number: finite, array: listOf(t.unknown) });

/** Characters are Unicode code points, so an emoji counts once, as a user would count it. */
export const charCount = (s: string): number => (s.length <= 1 ? s.length : [...s].length);
export const maxChars = (n: number) => refine(t.string, (s) => charCount(s) <= n, `string of at most ${n} characters`);
export const charsBetween = (min: number, max: number) =>
  refine(t.string, (s) => charCount(s) >= min && charCount(s) <= max, `string of ${min} to ${max} characters`);
export const sessionId = maxChars(256);

/**
 * Metadata of chat-completions and responses: at most 16 pairs, keys up to 64 characters, values
 * up to 512. Checked by hand because io-ts's record drops a key that fails its codec silently.
 */
export const metadata = (keysWithoutBrackets: boolean) => {
  const keyName = `key of at most 64 characters${keysWithoutBrackets ? ' without [ or ]' : ''}`;
  const Key = refine(t.string, (k) => charCount(k) <= 64 && !(keysWithoutBrackets && /[[\]]/.test(k)), keyName);
  const Map = t.record(t.string, maxChars(512));
  const fits = (m: Record<string, string>) => Object.keys(m).length <= 16 && Object.keys(m).every(Key.is);
  return new t.RefinementType<typeof Map, Record<string, string>, Record<string, string>, unknown>(
    'map of at most 16 string pairs',
    (u): u is Record<string, string> => Map.is(u) && fits(u),
    (u, c) => {
      const result = Map.validate(u, c);
      if (E.isLeft(result)) return result;
      const keys = Object.keys(result.right);
      if (keys.length > 16) return t.failure(u, c);
      const bad = keys.filter((k) => !Key.is(k));
      return bad.length === 0
        ? result
        : t.failures(bad.map((k) => ({ value: k, context: t.appendContext(c, k, Key, k) })));
    },
    t.identity,
    Map,
    fits,
  );
};
