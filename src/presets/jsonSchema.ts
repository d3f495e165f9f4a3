import type * as t from 'io-ts';

/**
 * io-ts codec → JSON Schema (draft 2020-12), for the published event contract. There is no
 * JSON Schema library in the project, and the codecs are the truth: the schemas are derived from
 * them, never written by hand. Only the codec kinds the events use are known; any other kind
 * (a refinement, whose predicate JSON Schema cannot see) throws, so a codec change that cannot be
 * published fails the generator and its test instead of publishing a looser schema.
 */
export type JsonSchema = { [keyword: string]: unknown };

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
}

const objectSchema = (props: Record<string, Node>, required: boolean): JsonSchema => {
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

const isPlainObject = (s: JsonSchema) => s.type === 'object' && s.properties !== undefined && Object.keys(s).every((k) => ['type', 'properties', 'required'].includes(k));

export const toJsonSchema = (codec: t.Any): JsonSchema => walk(codec as unknown as Node);

const walk = (node: Node): JsonSchema => {
  switch (node._tag) {
    case 'StringType': return { type: 'string' };
    case 'NumberType': return { type: 'number' };
    case 'BooleanType': return { type: 'boolean' };
    case 'NullType': return { type: 'null' };
    case 'UnknownType': return {};
    case 'UnknownRecordType': return { type: 'object' };
    case 'LiteralType': return { const: node.value };
    case 'KeyofType': return { type: 'string', enum: Object.keys(node.keys!) };
    case 'InterfaceType': return objectSchema(node.props!, true);
    case 'PartialType': return objectSchema(node.props!, false);
    case 'ArrayType': return { type: 'array', items: walk(node.type!) };
    case 'UnionType': return { anyOf: node.types!.map(walk) };
    case 'IntersectionType': {
      const parts = node.types!.map(walk);
      return parts.every(isPlainObject) ? mergeObjects(parts) : { allOf: parts };
    }
    case 'DictionaryType': {
      if (node.domain?._tag !== 'StringType') break;
      const values = walk(node.codomain!);
      return Object.keys(values).length === 0 ? { type: 'object' } : { type: 'object', additionalProperties: values };
    }
  }
  throw new Error(`cannot express codec ${node.name} (${node._tag ?? 'untagged'}) as JSON Schema; teach src/presets/jsonSchema.ts`);
};
