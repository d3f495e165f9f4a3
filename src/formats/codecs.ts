import * as t from 'io-ts';
import * as E from 'fp-ts/Either';
import { orNull, unionSchema, withJsonSchema, type JsonSchema } from '../jsonSchema';

/**
 * Building blocks shared by the three request codecs. Each name is what `formatErrors` prints
 * after "expected", so names are written as phrases a client can act on. Each also says what it
 * checks in JSON Schema terms, from which the service's OpenAPI document is generated.
 */

/**
 * A refinement under a readable name. A real `RefinementType`, so error paths see through it.
 * `schema`: the JSON Schema keywords that say what the predicate checks, added to the refined
 * codec's schema; without them the codec cannot be published (the generator throws).
 */
export const refine = <C extends t.Any>(codec: C, predicate: (a: t.TypeOf<C>) => boolean, name: string, schema?: JsonSchema) => {
  const refined = new t.RefinementType<C, t.TypeOf<C>, t.OutputOf<C>, unknown>(
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
  return schema ? withJsonSchema(refined, schema) : refined;
};

export const named = <C extends t.Any>(name: string, codec: C) => refine(codec, () => true, name, {});

type Kind = 'string' | 'number' | 'boolean' | 'null' | 'array' | 'object';
type Members<M> = { [K in keyof M]: M[K] extends t.Mixed ? t.TypeOf<M[K]> : never }[keyof M];
const kindOf = (u: unknown): string => (u === null ? 'null' : Array.isArray(u) ? 'array' : typeof u);

/**
 * A union that picks its member by the JSON kind of the value. io-ts's own union reports the
 * failure of every member, which buries the one problem that matters under noise.
 */
export const oneOf = <M extends Partial<Record<Kind, t.Mixed>>>(name: string, members: M): t.Type<Members<M>, unknown, unknown> => {
  const kinds = Object.keys(members);
  const types = Object.values(members) as t.Mixed[];
  const union = new t.UnionType(
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
  return withJsonSchema(union, (walk) => unionSchema(types.map(walk)));
};

/** `codec`, or null (null means "not set"); a failure reports the codec's own problem only. */
export const nullable = <C extends t.Mixed>(codec: C): t.Type<t.TypeOf<C> | null, unknown, unknown> =>
  withJsonSchema(
    new t.UnionType(
      `${codec.name} or null`,
      (u): u is t.TypeOf<C> | null => u === null || codec.is(u),
      (u, c) => (u === null ? t.success(null) : codec.validate(u, t.appendContext(c, '0', codec, u))),
      t.identity,
      [codec, t.null],
    ),
    (walk) => orNull(walk(codec)),
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
// (JSON Schema has no number that is not finite: the schema is the plain number's.)
export const finite = refine(t.number, Number.isFinite, 'finite number', {});
export const between = (lo: number, hi: number) =>
  refine(t.number, (n) => n >= lo && n <= hi, `number from ${lo} to ${hi}`, { minimum: lo, maximum: hi });
export const integer = refine(t.number, Number.isInteger, 'integer', { type: 'integer' });
export const integerBetween = (lo: number, hi: number) =>
  refine(t.number, (n) => Number.isInteger(n) && n >= lo && n <= hi, `integer from ${lo} to ${hi}`, {
    type: 'integer',
    minimum: lo,
    maximum: hi,
  });

/** One of a few strings, under a name that lists them. */
export const enumOf = <V extends string>(what: string, values: readonly V[]) =>
  t.keyof(
    Object.fromEntries(values.map((v) => [v, null])) as Record<V, null>,
    `${what} (${values.length > 1 ? `${values.slice(0, -1).join(', ')} or ${values[values.length - 1]}` : values[0]})`,
  );

/** `"none"`, `"auto"`, `"required"`, or an object naming a tool (chat-completions and responses). */
export const toolChoice = oneOf('none, auto, required, or an object', {
  string: enumOf('tool choice', ['none', 'auto', 'required']),
  object,
});

/** An object whose values are each a string, a number or a list (image_config). */
export const imageConfig = named(
  'object of strings, numbers or lists',
  t.record(
    t.string,
    oneOf('string, number, or list', {
      string: t.string,
      number: finite,
      array: listOf(t.unknown),
    }),
  ),
);

/** Characters are Unicode code points, so an emoji counts once, as a user would count it (and as JSON Schema's maxLength does). */
export const charCount = (s: string): number => (s.length <= 1 ? s.length : [...s].length);
export const maxChars = (n: number) => refine(t.string, (s) => charCount(s) <= n, `string of at most ${n} characters`, { maxLength: n });
export const charsBetween = (min: number, max: number) =>
  refine(t.string, (s) => charCount(s) >= min && charCount(s) <= max, `string of ${min} to ${max} characters`, {
    minLength: min,
    maxLength: max,
  });
export const sessionId = maxChars(256);

/** The routing field every format has: a deprecated enum, null meaning "not set". */
export const route = nullable(enumOf('route', ['fallback', 'sort']));

/**
 * Metadata of chat-completions and responses: at most 16 pairs, keys up to 64 characters, values
 * up to 512. Checked by hand because io-ts's record drops a key that fails its codec silently.
 */
export const metadata = (keysWithoutBrackets: boolean) => {
  const keyName = `key of at most 64 characters${keysWithoutBrackets ? ' without [ or ]' : ''}`;
  const Key = refine(t.string, (k) => charCount(k) <= 64 && !(keysWithoutBrackets && /[[\]]/.test(k)), keyName);
  const Map = t.record(t.string, maxChars(512));
  const fits = (m: Record<string, string>) => Object.keys(m).length <= 16 && Object.keys(m).every(Key.is);
  const codec = new t.RefinementType<typeof Map, Record<string, string>, Record<string, string>, unknown>(
    'map of at most 16 string pairs',
    (u): u is Record<string, string> => Map.is(u) && fits(u),
    (u, c) => {
      const result = Map.validate(u, c);
      if (E.isLeft(result)) return result;
      const keys = Object.keys(result.right);
      if (keys.length > 16) return t.failure(u, c);
      const bad = keys.filter((k) => !Key.is(k));
      return bad.length === 0 ? result : t.failures(bad.map((k) => ({ value: k, context: t.appendContext(c, k, Key, k) })));
    },
    t.identity,
    Map,
    fits,
  );
  return withJsonSchema(codec, {
    maxProperties: 16,
    propertyNames: { maxLength: 64, ...(keysWithoutBrackets ? { pattern: '^[^\\[\\]]*$' } : {}) },
  });
};

/**
 * Limits that apply only to a value of their JSON kind, as JSON Schema's keywords do: inside the
 * fields stored as sent, the service checks the limits the reference states and nothing of the
 * shape around them, so a value of another kind passes.
 */
export const limits = {
  string: (l: { minLength?: number; maxLength?: number; pattern?: string }) => {
    const pattern = l.pattern === undefined ? undefined : new RegExp(l.pattern, 'u');
    const parts = [l.minLength !== undefined ? `at least ${l.minLength}` : '', l.maxLength !== undefined ? `at most ${l.maxLength}` : '']
      .filter(Boolean)
      .join(' and ');
    const name = `string of ${parts || 'any length'} characters${pattern ? ` matching ${l.pattern}` : ''}`;
    const ok = (s: string) => {
      const n = charCount(s);
      return (
        (l.minLength === undefined || n >= l.minLength) && (l.maxLength === undefined || n <= l.maxLength) && (!pattern || pattern.test(s))
      );
    };
    return whenKind(name, (u): u is string => typeof u === 'string', ok, l);
  },
  number: (l: { minimum?: number; maximum?: number }) => {
    const name =
      l.maximum === undefined
        ? `number of at least ${l.minimum}`
        : l.minimum === undefined
          ? `number of at most ${l.maximum}`
          : `number from ${l.minimum} to ${l.maximum}`;
    const ok = (n: number) => (l.minimum === undefined || n >= l.minimum) && (l.maximum === undefined || n <= l.maximum);
    return whenKind(name, (u): u is number => typeof u === 'number', ok, l);
  },
  /** A list's length, and (when given) a codec for its items. */
  array: (l: { minItems?: number; maxItems?: number }, item?: t.Mixed) => {
    const name =
      l.minItems === undefined && l.maxItems === undefined
        ? 'list'
        : l.maxItems === undefined
          ? `list of at least ${l.minItems} items`
          : l.minItems === undefined
            ? `list of at most ${l.maxItems} items`
            : `list of ${l.minItems} to ${l.maxItems} items`;
    const ok = (a: unknown[]) =>
      (l.minItems === undefined || a.length >= l.minItems) && (l.maxItems === undefined || a.length <= l.maxItems);
    const length = whenKind(name, (u): u is unknown[] => Array.isArray(u), ok, l);
    if (!item) return length;
    const items = listOf(item);
    // The length first, then the items: one problem for a list that is too long, at the list.
    const codec = new t.ArrayType<t.Mixed, unknown, unknown, unknown>(
      name,
      (u): u is unknown => !Array.isArray(u) || (length.is(u) && items.is(u)),
      (u, c) => (!Array.isArray(u) ? t.success(u) : E.isLeft(length.validate(u, c)) ? t.failure(u, c) : items.validate(u, c)),
      t.identity,
      item,
    );
    return withJsonSchema(codec, (walk) => ({ ...l, items: walk(item) }));
  },
} as const;

function whenKind<A>(
  name: string,
  isKind: (u: unknown) => u is A,
  ok: (a: A) => boolean,
  schema: JsonSchema,
): t.Type<unknown, unknown, unknown> {
  return withJsonSchema(
    new t.Type<unknown, unknown, unknown>(
      name,
      (u): u is unknown => !isKind(u) || ok(u),
      (u, c) => (!isKind(u) || ok(u) ? t.success(u) : t.failure(u, c)),
      t.identity,
    ),
    { ...schema },
  );
}

/**
 * The properties of an object whose limits are checked, when they are there; the object may have
 * any other property, and a value that is not an object passes (it is stored as sent).
 */
export const props = (shape: t.Props) => {
  const partial = t.partial(shape);
  return withJsonSchema(
    new t.Type<unknown, unknown, unknown>(
      'object',
      (u): u is unknown => !t.UnknownRecord.is(u) || partial.is(u),
      (u, c) => (t.UnknownRecord.is(u) ? partial.validate(u, c) : t.success(u)),
      t.identity,
    ),
    (walk) => ({ properties: Object.fromEntries(Object.entries(shape).map(([k, codec]) => [k, walk(codec)])) }),
  );
};

/**
 * An object whose `key` names its variant, as the reference's discriminated unions do: the named
 * variant's codec checks it; a value with another or no variant, or not an object, passes.
 */
export const variants = (key: string, members: Record<string, t.Mixed>) => {
  const memberOf = (u: unknown): t.Mixed | undefined => {
    if (!t.UnknownRecord.is(u)) return undefined;
    const tag = u[key];
    return typeof tag === 'string' && Object.prototype.hasOwnProperty.call(members, tag) ? members[tag] : undefined;
  };
  return withJsonSchema(
    new t.Type<unknown, unknown, unknown>(
      `object by its ${key}`,
      (u): u is unknown => memberOf(u)?.is(u) ?? true,
      (u, c) => memberOf(u)?.validate(u, c) ?? t.success(u),
      t.identity,
    ),
    (walk) => ({
      allOf: Object.entries(members).map(([tag, codec]) => ({
        if: { properties: { [key]: { const: tag } }, required: [key] },
        then: walk(codec),
      })),
    }),
  );
};

/** An object, checked as `codec` says (a list item that must be an object, with limits inside). */
export const objectWith = (codec: t.Mixed) => named('object', t.intersection([object, codec]));

/**
 * An object with these properties and no others: a misspelt field is a 400, not silently ignored.
 * A refinement of the intersection, so error paths see through it (`$.url`, `$.secret`).
 */
export const closed = <R extends t.Props, O extends t.Props>(name: string, required: R, optional: O) => {
  const known = new Set([...Object.keys(required), ...Object.keys(optional)]);
  const first = t.type(required);
  const shape = t.intersection([first, t.partial(optional)]);
  type A = t.TypeOf<typeof shape>;
  const onlyKnown = (u: A) => Object.keys(u).every((k) => known.has(k));
  const refined = new t.RefinementType<typeof shape, A, t.OutputOf<typeof shape>, unknown>(
    name,
    (u): u is A => shape.is(u) && onlyKnown(u),
    (u, c) => {
      const result = shape.validate(u, c);
      if (E.isLeft(result)) return result;
      const unknown = Object.keys(result.right).filter((k) => !known.has(k));
      const message = `unknown field; the fields are ${[...known].join(', ')}`;
      // Placed under the intersection's first member, as its own errors are, so the path reads `$.<field>`.
      const under = t.appendContext(c, '0', first, u);
      return unknown.length === 0
        ? result
        : t.failures(
            unknown.map((k) => ({
              value: (u as Record<string, unknown>)[k],
              context: t.appendContext(under, k, t.unknown, (u as Record<string, unknown>)[k]),
              message,
            })),
          );
    },
    shape.encode,
    shape,
    onlyKnown,
  );
  return withJsonSchema(refined, { additionalProperties: false });
};
