import type { SourceFormat } from '../presets/events';

/**
 * Tools in the three request formats, as OpenRouter's reference shapes them:
 *  - chat_completions: `{"type":"function","function":{name, description, parameters, strict}, cache_control}`
 *  - messages: `{name, description, input_schema, cache_control, defer_loading}` (type absent or "custom")
 *  - responses: `{"type":"function", name, description, parameters, strict, defer_loading}`
 * plus OpenRouter's server tools (`{"type":"openrouter:…", parameters}`, the same shape in every
 * format that lists them) and each provider's own tools, which only their own format knows.
 */
type Json = Record<string, unknown>;
export type ToolProblem = { field: string; reason: string };

const isObject = (u: unknown): u is Json => typeof u === 'object' && u !== null && !Array.isArray(u);

/** OpenRouter's server tools each format's reference lists; a tool of a type not listed is dropped on the way. */
export const SERVER_TOOLS: Readonly<Record<SourceFormat, readonly string[]>> = {
  chat_completions: [
    'advisor',
    'bash',
    'datetime',
    'experimental__search_models',
    'files',
    'fusion',
    'image_generation',
    'subagent',
    'web_fetch',
    'web_search',
  ].map((t) => `openrouter:${t}`),
  messages: ['bash', 'datetime', 'experimental__search_models', 'image_generation', 'shell', 'tool_search', 'web_fetch', 'web_search'].map(
    (t) => `openrouter:${t}`,
  ),
  responses: [
    'advisor',
    'apply_patch',
    'bash',
    'datetime',
    'experimental__search_models',
    'files',
    'fusion',
    'image_generation',
    'shell',
    'subagent',
    'tool_search',
    'web_fetch',
    'web_search',
  ].map((t) => `openrouter:${t}`),
};

/** A function tool, whatever its format: what the three shapes have in common, and what only some have. */
interface FunctionTool {
  name: string;
  /** Each known part, by its neutral name (`parameters` for messages' `input_schema`), with where it was. */
  parts: Array<{ key: 'description' | 'parameters' | 'strict' | 'cache_control' | 'defer_loading'; value: unknown; at: string }>;
  /** Keys no format shares, with where they were. */
  other: string[];
}

/** Which parts each format's function tool has. */
const FUNCTION_PARTS: Readonly<Record<SourceFormat, ReadonlySet<string>>> = {
  chat_completions: new Set(['description', 'parameters', 'strict', 'cache_control']),
  messages: new Set(['description', 'parameters', 'cache_control', 'defer_loading']),
  responses: new Set(['description', 'parameters', 'strict', 'defer_loading']),
};

const isMessagesFunction = (tool: Json) => (tool.type === undefined || tool.type === 'custom') && typeof tool.name === 'string';

/** The function tool in a tool of `format`, or undefined when it is another kind of tool. */
const readFunction = (format: SourceFormat, tool: Json, at: string): FunctionTool | undefined => {
  const parts: FunctionTool['parts'] = [];
  const other: string[] = [];
  const collect = (object: Json, prefix: string, known: Record<string, FunctionTool['parts'][number]['key'] | null>) => {
    for (const [key, value] of Object.entries(object)) {
      const part = known[key];
      if (part === null) continue; // the shape's own keys (type, name, function)
      if (part === undefined) other.push(`${prefix}.${key}`);
      else parts.push({ key: part, value, at: `${prefix}.${key}` });
    }
  };
  if (format === 'chat_completions') {
    if (tool.type !== 'function' || !isObject(tool.function) || typeof tool.function.name !== 'string') return undefined;
    collect(tool, at, { type: null, function: null, cache_control: 'cache_control' });
    collect(tool.function, `${at}.function`, { name: null, description: 'description', parameters: 'parameters', strict: 'strict' });
    return { name: tool.function.name, parts, other };
  }
  if (format === 'messages') {
    if (!isMessagesFunction(tool)) return undefined;
    collect(tool, at, {
      type: null,
      name: null,
      description: 'description',
      input_schema: 'parameters',
      cache_control: 'cache_control',
      defer_loading: 'defer_loading',
    });
    return { name: tool.name as string, parts, other };
  }
  if (tool.type !== 'function' || typeof tool.name !== 'string') return undefined;
  collect(tool, at, {
    type: null,
    name: null,
    description: 'description',
    parameters: 'parameters',
    strict: 'strict',
    defer_loading: 'defer_loading',
  });
  return { name: tool.name, parts, other };
};

/** What messages asks of an input_schema: an object whose `type` (if any) is a string and `required` (if any) a list of strings or null. */
const fitsInputSchema = (schema: unknown): boolean =>
  isObject(schema) &&
  (schema.type === undefined || typeof schema.type === 'string') &&
  (schema.required === undefined ||
    schema.required === null ||
    (Array.isArray(schema.required) && schema.required.every((r) => typeof r === 'string')));

/** A function with no parameters, as messages must say it (chat_completions may leave them out; responses says null). */
export const NO_PARAMETERS = { type: 'object', properties: {} };

const writeFunction = (format: SourceFormat, fn: FunctionTool, at: string, problems: ToolProblem[]): Json | undefined => {
  const kept = new Map<string, unknown>();
  for (const part of fn.parts) {
    if (FUNCTION_PARTS[format].has(part.key)) kept.set(part.key, part.value);
    else
      problems.push({
        field: part.at,
        reason: `${format} function tools have no ${part.key === 'parameters' ? 'input_schema' : part.key}`,
      });
  }
  for (const key of fn.other) problems.push({ field: key, reason: `${format} function tools have no such field` });
  const description = kept.has('description') ? { description: kept.get('description') } : {};
  const parameters = kept.get('parameters');
  if (format === 'chat_completions') {
    return {
      type: 'function',
      function: {
        name: fn.name,
        ...description,
        ...(parameters != null ? { parameters } : {}),
        ...(kept.has('strict') ? { strict: kept.get('strict') } : {}),
      },
      ...(kept.has('cache_control') ? { cache_control: kept.get('cache_control') } : {}),
    };
  }
  if (format === 'messages') {
    const inputSchema = parameters ?? NO_PARAMETERS;
    if (!fitsInputSchema(inputSchema)) {
      problems.push({
        field: at,
        reason: 'its parameters are not a JSON schema messages takes as input_schema (type a string, required a list of strings)',
      });
      return undefined;
    }
    return {
      name: fn.name,
      ...description,
      input_schema: inputSchema,
      ...(kept.has('cache_control') ? { cache_control: kept.get('cache_control') } : {}),
      ...(kept.has('defer_loading') ? { defer_loading: kept.get('defer_loading') } : {}),
    };
  }
  return {
    type: 'function',
    name: fn.name,
    ...description,
    parameters: parameters ?? null,
    ...(kept.has('strict') ? { strict: kept.get('strict') } : {}),
    ...(kept.has('defer_loading') ? { defer_loading: kept.get('defer_loading') } : {}),
  };
};

/**
 * One tool of a version's config (made in `from`) as `to` says it: a function tool in `to`'s
 * shape, a server tool as it is where `to` lists its type; anything else is dropped. Parts the
 * target's shape lacks are dropped and listed, never silently.
 */
export const translateTool = (
  from: SourceFormat,
  to: SourceFormat,
  tool: unknown,
  at: string,
): { tool?: Json; problems: ToolProblem[] } => {
  const problems: ToolProblem[] = [];
  if (!isObject(tool)) return { problems: [{ field: at, reason: 'not a tool (an object)' }] };
  const fn = readFunction(from, tool, at);
  if (fn) {
    const written = writeFunction(to, fn, at, problems);
    return written ? { tool: written, problems } : { problems };
  }
  const type = typeof tool.type === 'string' ? tool.type : undefined;
  if (type !== undefined && SERVER_TOOLS[from].includes(type)) {
    return SERVER_TOOLS[to].includes(type) ? { tool, problems } : { problems: [{ field: at, reason: `${to} has no ${type} tool` }] };
  }
  return {
    problems: [{ field: at, reason: `${type === undefined ? 'this tool' : `a ${type} tool`} is ${from}'s own; ${to} has no such tool` }],
  };
};

/**
 * What makes two tools of one format the same tool when a request's tools meet a preset's: a
 * function tool is known by its function's name; any other tool by its type (and its name, when
 * it has one: two custom or namespace tools of different names are different tools).
 */
export const toolIdentity = (format: SourceFormat, tool: unknown): string | undefined => {
  if (!isObject(tool)) return undefined;
  const fn =
    format === 'chat_completions'
      ? tool.type === 'function' && isObject(tool.function) && typeof tool.function.name === 'string'
        ? tool.function.name
        : undefined
      : format === 'messages'
        ? isMessagesFunction(tool)
          ? (tool.name as string)
          : undefined
        : tool.type === 'function' && typeof tool.name === 'string'
          ? tool.name
          : undefined;
  if (fn !== undefined) return `function ${fn}`;
  if (typeof tool.type !== 'string') return undefined;
  return typeof tool.name === 'string' ? `${tool.type} ${tool.name}` : tool.type;
};
