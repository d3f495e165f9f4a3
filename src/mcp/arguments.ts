/**
 * A templated version's variables as MCP prompt arguments, and MCP's arguments (strings, always)
 * as the typed values the version's schema asks for. Pure: the MCP server (./server.ts) lists and
 * renders with these, and the resolve checks what they make against the schema, as it checks a
 * request's `prompt_variables`.
 */
type Json = Record<string, unknown>;
const isObject = (u: unknown): u is Json => typeof u === 'object' && u !== null && !Array.isArray(u);

/** An argument of an MCP prompt, as `prompts/list` gives it. */
export interface PromptArgument {
  name: string;
  description?: string;
  required?: boolean;
}

/** A JSON value's type as JSON Schema names it (`integer` only for whole numbers). */
const jsonTypeOf = (value: unknown): string =>
  value === null
    ? 'null'
    : Array.isArray(value)
      ? 'array'
      : typeof value === 'number'
        ? Number.isInteger(value)
          ? 'integer'
          : 'number'
        : typeof value;

/**
 * The JSON types a property's schema allows, from its `type`, else from its `enum` or `const`,
 * else from the branches of its `anyOf` / `oneOf`; undefined when the schema does not say (any).
 */
export const allowedTypes = (schema: unknown): ReadonlySet<string> | undefined => {
  if (!isObject(schema)) return undefined;
  const { type } = schema;
  if (typeof type === 'string') return new Set([type]);
  if (Array.isArray(type) && type.every((x) => typeof x === 'string')) return new Set(type as string[]);
  if (Array.isArray(schema.enum)) return new Set((schema.enum as unknown[]).map(jsonTypeOf));
  if (Object.hasOwn(schema, 'const')) return new Set([jsonTypeOf(schema.const)]);
  const branches = Array.isArray(schema.anyOf) ? schema.anyOf : Array.isArray(schema.oneOf) ? schema.oneOf : undefined;
  if (!branches) return undefined;
  const types = new Set<string>();
  for (const branch of branches as unknown[]) {
    const own = allowedTypes(branch);
    if (!own) return undefined;
    for (const t of own) types.add(t);
  }
  return types;
};

const fits = (value: unknown, types: ReadonlySet<string>): boolean => {
  const type = jsonTypeOf(value);
  return types.has(type) || (type === 'integer' && types.has('number')) || (type === 'number' && types.has('integer'));
};

const properties = (variables: unknown): Json => (isObject(variables) && isObject(variables.properties) ? variables.properties : {});

/** How a person types a value of this schema into a client's form, said after its description. */
const hint = (schema: unknown): string | undefined => {
  if (!isObject(schema)) return undefined;
  const parts: string[] = [];
  if (Array.isArray(schema.enum)) {
    parts.push(`one of ${(schema.enum as unknown[]).map((v) => (typeof v === 'string' ? v : JSON.stringify(v))).join(', ')}`);
  } else {
    const types = allowedTypes(schema);
    if (types && !(types.size === 1 && types.has('string'))) {
      const said = [...types].map((t) =>
        t === 'boolean'
          ? 'true or false'
          : t === 'integer'
            ? 'a whole number'
            : t === 'number'
              ? 'a number'
              : t === 'string'
                ? 'text'
                : `JSON ${t}`,
      );
      parts.push(said.join(' or '));
    }
  }
  if (Object.hasOwn(schema, 'default')) {
    const d = schema.default;
    parts.push(`default ${typeof d === 'string' ? d : JSON.stringify(d)}`);
  }
  return parts.length > 0 ? parts.join('; ') : undefined;
};

/**
 * The arguments of a version whose variables are `variables` (a JSON Schema of an object, or
 * null): one per top-level property, in the schema's order, with the property's `description`
 * (and, in parentheses, how to write a value that is not text, its choices and its default), and
 * `required` from the schema's `required`.
 */
export const promptArguments = (variables: unknown): PromptArgument[] => {
  const required = new Set(isObject(variables) && Array.isArray(variables.required) ? (variables.required as unknown[]) : []);
  return Object.entries(properties(variables)).map(([name, schema]) => {
    const own = isObject(schema) && typeof schema.description === 'string' ? schema.description : undefined;
    const how = hint(schema);
    const description = own && how ? `${own} (${how})` : (own ?? (how ? `(${how})` : undefined));
    return { name, ...(description !== undefined ? { description } : {}), required: required.has(name) };
  });
};

/**
 * MCP's string arguments as values for the version's variables. For each argument, by the JSON
 * types its property's schema allows: text only, the string as given; otherwise the string read
 * as JSON when it is JSON of an allowed type (`42`, `true`, `["a","b"]`, `{"id":1}`, `null`), else
 * the string as given, which the schema then accepts (text allowed, or no type said) or the
 * resolve refuses naming the argument (`must be number (got string "forty")`). An argument the
 * schema does not declare goes as given: the schema allows it, or the resolve says it may not.
 */
export const parseArguments = (variables: unknown, args: Readonly<Record<string, string>>): Json => {
  const declared = properties(variables);
  const values: Json = {};
  for (const name of Object.keys(args)) {
    const raw = args[name]!;
    const types = Object.hasOwn(declared, name) ? allowedTypes(declared[name]) : new Set(['string']);
    let value: unknown = raw;
    if (!(types?.size === 1 && types.has('string'))) {
      const parsed = readJson(raw);
      if (parsed.ok && (types === undefined || fits(parsed.value, types))) value = parsed.value;
    }
    // `__proto__` is a name like any other: an own property (the resolve copies it as one).
    Object.defineProperty(values, name, { value, enumerable: true, writable: true, configurable: true });
  }
  return values;
};

const readJson = (text: string): { ok: true; value: unknown } | { ok: false } => {
  try {
    return { ok: true, value: JSON.parse(text) as unknown };
  } catch {
    return { ok: false };
  }
};
