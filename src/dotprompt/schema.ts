import * as E from 'fp-ts/Either';
import { picoschema } from 'dotprompt';
import { canonicalize } from 'json-canonicalize';

/**
 * A version's variables in a Dotprompt file's `input` (./file.ts): written in Picoschema when
 * Picoschema reads back as exactly the same schema, else as the JSON Schema it is, the top-level
 * defaults in `input.default`; read back with the `dotprompt` package's Picoschema parser (which
 * passes a JSON Schema through).
 */
type Json = Record<string, unknown>;
const isObject = (u: unknown): u is Json => typeof u === 'object' && u !== null && !Array.isArray(u);
/** Equal as JSON values, key order aside. */
export const sameJson = (a: unknown, b: unknown): boolean => canonicalize(a) === canonicalize(b);

/** `input`: the schema in Picoschema when that reads back as the same schema, else as it is; the top-level defaults beside it. */
export const inputOf = async (variables: Json): Promise<Json> => {
  const defaults: Json = {};
  const properties = isObject(variables.properties) ? variables.properties : {};
  for (const [name, property] of Object.entries(properties)) {
    if (isObject(property) && Object.hasOwn(property, 'default')) defaults[name] = property.default;
  }
  const withoutDefaults = {
    ...variables,
    properties: Object.fromEntries(
      Object.entries(properties).map(([name, p]) => [
        name,
        isObject(p) ? Object.fromEntries(Object.entries(p).filter(([k]) => k !== 'default')) : p,
      ]),
    ),
  };
  const pico = picoOf(withoutDefaults);
  let schema: unknown = variables;
  if (pico !== null) {
    const back = await readSchema(pico, defaults);
    if (E.isRight(back) && sameJson(back.right, variables)) schema = pico;
  }
  return Object.keys(defaults).length > 0 ? { schema, default: defaults } : { schema };
};

const SCALARS = new Set(['boolean', 'integer', 'null', 'number', 'string']);
const typeText = (type: string, description: unknown) => (typeof description === 'string' ? `${type}, ${description}` : type);

/** A Picoschema for a JSON Schema of an object, or null when Picoschema has no words for it (checked by reading it back). */
const picoOf = (schema: Json): Json | null => {
  if (schema.type !== 'object' || schema.additionalProperties !== false || !isObject(schema.properties)) return null;
  const required = Array.isArray(schema.required) ? schema.required : [];
  const out: Json = {};
  for (const [name, property] of Object.entries(schema.properties)) {
    if (!isObject(property) || /[?(),]/.test(name) || name === '(*)') return null;
    const optional = !required.includes(name);
    const key = optional ? `${name}?` : name;
    const type = property.type;
    const scalar = Array.isArray(type) ? type[0] : type;
    if (typeof scalar === 'string' && SCALARS.has(scalar) && (property.items === undefined || scalar !== 'array')) {
      out[key] = typeText(scalar, property.description);
    } else if (scalar === 'array' && isObject(property.items) && typeof property.items.type === 'string') {
      out[`${key}(${typeText('array', property.description)})`] = typeText(property.items.type, property.items.description);
    } else if (scalar === 'object') {
      const inner = picoOf({ ...property, type: 'object' });
      if (inner === null) return null;
      out[`${key}(${typeText('object', property.description)})`] = inner;
    } else if (Array.isArray(property.enum)) {
      out[`${key}(${typeText('enum', property.description)})`] = property.enum.filter((v) => !(optional && v === null));
    } else if (type === undefined && Object.keys(property).every((k) => k === 'description')) {
      out[key] = typeText('any', property.description);
    } else return null;
  }
  return out;
};

/** `input.schema` (Picoschema or JSON Schema) as the JSON Schema of the variables, `input.default` put into its properties. */
export const readSchema = async (
  given: unknown,
  defaults: Json,
): Promise<E.Either<{ path: (string | number)[]; message: string }[], Json>> => {
  let schema: unknown;
  try {
    schema = await picoschema(given);
  } catch (error) {
    return E.left([{ path: ['schema'], message: (error as Error).message }]);
  }
  if (!isObject(schema)) return E.left([{ path: ['schema'], message: 'must be a schema of an object (Picoschema or JSON Schema)' }]);
  // Picoschema leaves `required` undefined when nothing is: no such key in JSON.
  const out = JSON.parse(JSON.stringify(schema)) as Json;
  const names = Object.keys(defaults);
  if (names.length === 0) return E.right(out);
  const properties = isObject(out.properties) ? out.properties : {};
  const problems: { path: (string | number)[]; message: string }[] = [];
  for (const name of names) {
    const property = properties[name];
    if (!isObject(property)) problems.push({ path: ['default', name], message: 'is not a variable input.schema declares' });
    else if (Object.hasOwn(property, 'default') && !sameJson(property.default, defaults[name])) {
      problems.push({ path: ['default', name], message: 'differs from the default input.schema gives it' });
    } else property.default = defaults[name];
  }
  return problems.length > 0 ? E.left(problems) : E.right(out);
};
