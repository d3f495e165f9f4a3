import type * as t from 'io-ts';

/**
 * io-ts codec → JSON Schema (draft 2020-12), for the published event contract and the service's
 * OpenAPI document. The codecs are the truth: the schemas are derived from them, never written by
 * hand. io-ts's own kinds are known; a codec of another kind, or a refinement whose predicate
 * JSON Schema cannot see, must say what it checks with `withJsonSchema` (the request codecs'
 * `refine` does). Anything else throws, so a codec change that cannot be published fails the
 * generator and its tests instead of publishing a looser schema.
 */
export type JsonSchema = { [keyword: string]: unknown };

/** Given the schema of any codec, the schema of one that knows how it is checked. */
export type SchemaOf = (walk: (codec: t.Any) => JsonSchema) => JsonSchema;

const JSON_SCHEMA = Symbol('jsonSchema');

/**
 * Says what a codec checks in JSON Schema terms: a schema, or a function of the schemas of the
 * codecs it is made of. On a refinement, a plain schema's keywords are added to the refined
 * codec's schema (`refine(t.number, …, { minimum: 0 })` is `{"type":"number","minimum":0}`).
 */
export const withJsonSchema = <C extends t.Any>(codec: C, schema: JsonSchema | SchemaOf): C => {
  const refined = (codec as unknown as Node)._tag === 'RefinementType';
  const of: SchemaOf =
    typeof schema === 'function'
      ? schema
      : refined
        ? (walk) => ({ ...walk((codec as unknown as { type: t.Any }).type), ...schema })
        : () => schema;
  return Object.assign(codec, { [JSON_SCHEMA]: of });
};

interface Node {
  _tag?: string;
  name: string;
  props?: Record<string, Node>;
  types?: Node[];
  type?: Node;
  domain?: Node;
  codomain?: Node;
  value?: unknown;
  keys?: Record<string, unknown>;
  [JSON_SCHEMA]?: SchemaOf;
}

export interface JsonSchemaOptions {
  /** Codecs shown as `{"$ref": "<prefix><name>"}` wherever they occur below the root. */
  refs?: ReadonlyMap<t.Any, string>;
  refPrefix?: string;
}

export const toJsonSchema = (codec: t.Any, options: JsonSchemaOptions = {}): JsonSchema => {
  const { refs = new Map<t.Any, string>(), refPrefix = '#/components/schemas/' } = options;
  const walk = (node: Node, root = false): JsonSchema => {
    const name = root ? undefined : refs.get(node as unknown as t.Any);
    if (name !== undefined) return { $ref: `${refPrefix}${name}` };
    const own = node[JSON_SCHEMA];
    if (own) return own((c) => walk(c as unknown as Node));
    return known(node, walk);
  };
  return walk(codec as unknown as Node, true);
};

const objectSchema = (props: Record<string, Node>, required: boolean, walk: (n: Node) => JsonSchema): JsonSchema => {
  const names = Object.keys(props);
  return {
    type: 'object',
    properties: Object.fromEntries(names.map((name) => [name, walk(props[name]!)])),
    ...(required && names.length > 0 ? { required: names } : {}),
  };
};

/** `t.type(a)` ∩ `t.partial(b)` is one object: merge rather than `allOf`, which reads poorly. */
const mergeObjects = (parts: JsonSchema[]): JsonSchema => ({
  type: 'object',
  properties: Object.assign({}, ...parts.map((p) => p.properties)),
  ...(parts.some((p) => p.required) ? { required: parts.flatMap((p) => (p.required as string[] | undefined) ?? []) } : {}),
});

const isPlainObject = (s: JsonSchema) => s.type === 'object' && Object.keys(s).every((k) => ['type', 'properties', 'required'].includes(k));

/** Schemas whose keywords are all different hold together as one schema: their conjunction. */
const disjoint = (parts: JsonSchema[]): boolean => {
  const seen = new Set<string>();
  for (const part of parts) {
    for (const keyword of Object.keys(part)) {
      if (seen.has(keyword) || keyword === '$ref') return false;
      seen.add(keyword);
    }
  }
  return true;
};

const known = (node: Node, walk: (n: Node) => JsonSchema): JsonSchema => {
  switch (node._tag) {
    case 'StringType':
      return { type: 'string' };
    case 'NumberType':
      return { type: 'number' };
    case 'BooleanType':
      return { type: 'boolean' };
    case 'NullType':
      return { type: 'null' };
    case 'UnknownType':
      return {};
    case 'UnknownRecordType':
    case 'AnyDictionaryType':
      return { type: 'object' };
    case 'AnyArrayType':
      return { type: 'array' };
    case 'LiteralType':
      return { const: node.value };
    case 'KeyofType':
      return { type: 'string', enum: Object.keys(node.keys!) };
    case 'InterfaceType':
      return objectSchema(node.props!, true, walk);
    case 'PartialType':
      return objectSchema(node.props!, false, walk);
    case 'ArrayType':
      return { type: 'array', items: walk(node.type!) };
    case 'UnionType':
      return unionSchema(node.types!.map(walk));
    case 'IntersectionType': {
      const parts = node.types!.map(walk);
      if (parts.every(isPlainObject)) return mergeObjects(parts);
      return disjoint(parts) ? (Object.assign({}, ...parts) as JsonSchema) : { allOf: parts };
    }
    case 'DictionaryType': {
      if (node.domain?._tag !== 'StringType') break;
      const values = walk(node.codomain!);
      return Object.keys(values).length === 0 ? { type: 'object' } : { type: 'object', additionalProperties: values };
    }
  }
  throw new Error(`cannot express codec ${node.name} (${node._tag ?? 'untagged'}) as JSON Schema; teach src/jsonSchema.ts`);
};

// Keywords that constrain one JSON type only: members of a union that each have one type and only
// such keywords can share one schema with a list of types (`{"type":["string","null"]}`).
const TYPE_SPECIFIC = new Set([
  'type',
  'minLength',
  'maxLength',
  'pattern',
  'format',
  'minimum',
  'maximum',
  'items',
  'minItems',
  'maxItems',
  'properties',
  'required',
  'additionalProperties',
  'propertyNames',
  'maxProperties',
  'minProperties',
]);

/** A union of schemas: one schema with a list of types when that says the same, else `anyOf`. */
export const unionSchema = (members: JsonSchema[]): JsonSchema => {
  const types = members.map((m) => m.type);
  const simple =
    members.every((m) => typeof m.type === 'string' && Object.keys(m).every((k) => TYPE_SPECIFIC.has(k))) &&
    new Set(types).size === types.length &&
    disjoint(members.map(({ type: _, ...rest }) => rest));
  if (!simple) return { anyOf: members };
  return { ...(Object.assign({}, ...members) as JsonSchema), type: types };
};

/** A schema, or null. */
export const orNull = (schema: JsonSchema): JsonSchema => {
  if (typeof schema.type === 'string' && Array.isArray(schema.enum))
    return { ...schema, type: [schema.type, 'null'], enum: [...schema.enum, null] };
  if (Array.isArray(schema.type) && !('enum' in schema) && !('const' in schema))
    return { ...schema, type: [...(schema.type as string[]), 'null'] };
  return unionSchema([schema, { type: 'null' }]);
};
