import * as E from 'fp-ts/Either';
import { FORMAT_CODECS } from '../formats';
import { PERSISTED_FIELDS } from '../formats/persistedFields';
import { SOURCE_FORMATS, type SourceFormat } from '../presets/events';
import { formatErrors } from '../validation';
import { readChoice, writeChoice, functionChoiceExtras, messagesChoiceExtras } from './toolChoice';
import { translateTool } from './tools';

/**
 * A version keeps its config under the field names of the format it was made from. Resolving it
 * for another format translates it with this table, one row per setting: where each format keeps
 * it and how its value changes on the way. A setting the target format has no place for is
 * dropped and listed, with the reason, never silently: after every row has run, anything of the
 * config no row took is listed too. The README renders the table (a test keeps them equal).
 */
export interface Dropped {
  /** Where it was in the version's config: `top_k`, `reasoning.summary`, `tools[2]`. */
  field: string;
  reason: string;
}

export interface Translation {
  config: Readonly<Record<string, unknown>>;
  dropped: readonly Dropped[];
  /** For each field of `config`, and each `field.key` set inside one, where in the version's config it came from. */
  origins: ReadonlyMap<string, string>;
}

type Json = Record<string, unknown>;
const isObject = (u: unknown): u is Json => typeof u === 'object' && u !== null && !Array.isArray(u);

/** What one row reads from the version's config: each field, or one key of an object field, at most once. */
class Source {
  private readonly taken = new Set<string>();
  constructor(readonly config: Json) {}

  take(field: string, key?: string): unknown {
    const value = this.config[field];
    if (key === undefined) {
      this.taken.add(field);
      return value;
    }
    this.taken.add(`${field}.${key}`);
    return isObject(value) ? value[key] : undefined;
  }

  /** The keys of an object field no row has taken, taken now. */
  rest(field: string): Array<[string, unknown]> {
    const value = this.config[field];
    if (!isObject(value) || this.taken.has(field)) return [];
    const keys = Object.keys(value).filter((k) => !this.taken.has(`${field}.${k}`));
    for (const k of keys) this.taken.add(`${field}.${k}`);
    return keys.map((k) => [k, value[k]]);
  }

  /** What no row took: whole fields, and the keys of object fields of which rows took only some. */
  untaken(): string[] {
    const left: string[] = [];
    for (const [field, value] of Object.entries(this.config)) {
      if (this.taken.has(field)) continue;
      const someTaken = [...this.taken].some((t) => t.startsWith(`${field}.`));
      if (!someTaken || !isObject(value)) left.push(field);
      else for (const k of Object.keys(value)) if (!this.taken.has(`${field}.${k}`)) left.push(`${field}.${k}`);
    }
    return left;
  }
}

/** One translation under way: from one format's config to another's. */
interface Step {
  from: SourceFormat;
  to: SourceFormat;
  src: Source;
  /** Sets a field (or one key of an object field) of the translated config, from `origin`. */
  put(path: string, value: unknown, origin: string): void;
  /** A field of the translated config as rows so far have set it. */
  placed(field: string): unknown;
  drop(field: string, reason: string): void;
}

export interface Row {
  /** The setting, as the README names it. */
  setting: string;
  /** Where each format keeps it, as the README shows it; absent: the format has none. */
  at: Partial<Record<SourceFormat, string>>;
  /** How the value changes between formats. */
  how: string;
  /** The top-level fields of each format's config this row reads (a test checks every config field is read by some row). */
  reads: Partial<Record<SourceFormat, readonly string[]>>;
  translate(step: Step): void;
}

const present = (v: unknown) => v !== undefined && v !== null;
const code = (s: string) => `\`${s}\``;

/** A field of the same name, meaning and (within each format's own limits) value in every format that has it. */
const same = (field: string): Row => {
  const formats = SOURCE_FORMATS.filter((f) =>
    PERSISTED_FIELDS.some((r) => r.format === f && r.field === field && r.disposition === 'config'),
  );
  if (formats.length === 0) throw new Error(`${field} is not a config field of any format`);
  return {
    setting: field,
    at: Object.fromEntries(formats.map((f) => [f, code(field)])),
    how: 'as is',
    reads: Object.fromEntries(formats.map((f) => [f, [field]])),
    translate({ from, to, src, put, drop }) {
      if (!formats.includes(from)) return;
      const value = src.take(field);
      if (value === undefined) return;
      if (formats.includes(to)) put(field, value, field);
      else drop(field, `${to} has no ${field}`);
    },
  };
};

const OUTPUT_LIMIT: Record<SourceFormat, string> = {
  chat_completions: 'max_completion_tokens',
  messages: 'max_tokens',
  responses: 'max_output_tokens',
};

const outputLimit: Row = {
  setting: 'output length limit',
  at: { chat_completions: '`max_completion_tokens` (or `max_tokens`)', messages: '`max_tokens`', responses: '`max_output_tokens`' },
  how: 'the number as is; from chat_completions, `max_completion_tokens` when both are set',
  reads: { chat_completions: ['max_completion_tokens', 'max_tokens'], messages: ['max_tokens'], responses: ['max_output_tokens'] },
  translate({ from, to, src, put, drop }) {
    let origin = OUTPUT_LIMIT[from];
    let value = src.take(origin);
    if (from === 'chat_completions') {
      const legacy = src.take('max_tokens');
      if (value === undefined) [value, origin] = [legacy, 'max_tokens'];
      else if (legacy !== undefined) drop('max_tokens', 'max_completion_tokens is used: both are the output length limit');
    }
    if (value !== undefined) put(OUTPUT_LIMIT[to], value, origin);
  },
};

const stop: Row = {
  setting: 'stop sequences',
  at: { chat_completions: '`stop`', messages: '`stop_sequences`' },
  how: 'a string becomes a list of one; chat_completions takes at most 4',
  reads: { chat_completions: ['stop'], messages: ['stop_sequences'] },
  translate({ from, to, src, put, drop }) {
    if (from === 'responses') return;
    const origin = from === 'chat_completions' ? 'stop' : 'stop_sequences';
    const value = src.take(origin);
    if (value === undefined) return;
    const list = typeof value === 'string' ? [value] : value;
    if (to === 'responses') drop(origin, 'responses has no stop sequences');
    else if (to === 'messages') put('stop_sequences', list, origin);
    else if (Array.isArray(list) && list.length > 4)
      drop(origin, `chat_completions takes at most 4 stop sequences, and there are ${list.length}`);
    else put('stop', list, origin);
  },
};

/** The name of a JSON schema output format made from messages', which has none (the other two need one). */
export const OUTPUT_SCHEMA_NAME = 'response';
const OUTPUT_FORMAT_AT: Record<SourceFormat, [string, string]> = {
  chat_completions: ['response_format', ''],
  messages: ['output_config', 'format'],
  responses: ['text', 'format'],
};

/** An output format, whatever its format: its type, a JSON schema's parts, and anything else it had, with where each was. */
interface OutputFormat {
  type: unknown;
  parts: Array<{ key: 'name' | 'schema' | 'strict' | 'description'; value: unknown; at: string }>;
  other: string[];
}

const readOutputFormat = (from: SourceFormat, value: Json, at: string): OutputFormat => {
  const parts: OutputFormat['parts'] = [];
  const other: string[] = [];
  const collect = (object: Json, prefix: string, skip: string[]) => {
    for (const [key, v] of Object.entries(object)) {
      if (skip.includes(key)) continue;
      if (key === 'name' || key === 'schema' || key === 'strict' || key === 'description')
        parts.push({ key, value: v, at: `${prefix}.${key}` });
      else other.push(`${prefix}.${key}`);
    }
  };
  if (from === 'chat_completions' && value.type === 'json_schema') {
    collect(value, at, ['type', 'json_schema']);
    if (isObject(value.json_schema)) collect(value.json_schema, `${at}.json_schema`, []);
  } else collect(value, at, ['type']);
  return { type: value.type, parts, other };
};

const outputFormat: Row = {
  setting: 'output format',
  at: { chat_completions: '`response_format`', messages: '`output_config.format`', responses: '`text.format`' },
  how:
    'JSON schema: `{"type":"json_schema","json_schema":{name, schema, strict, description}}` ↔ `{"type":"json_schema", schema}` ↔ ' +
    `\`{"type":"json_schema", name, schema, strict, description}\` (named \`"${OUTPUT_SCHEMA_NAME}"\` when made from messages, which names none); ` +
    '`text` and `json_object` between chat_completions and responses only',
  reads: { chat_completions: ['response_format'], messages: ['output_config'], responses: ['text'] },
  translate({ from, to, src, put, drop }) {
    const [field, key] = OUTPUT_FORMAT_AT[from];
    const at = key ? `${field}.${key}` : field;
    const value = key ? src.take(field, key) : src.take(field);
    if (!present(value)) return;
    if (!isObject(value)) return drop(at, 'not an output format (an object)');
    const format = readOutputFormat(from, value, at);
    const [toField, toKey] = OUTPUT_FORMAT_AT[to];
    const target = toKey ? `${toField}.${toKey}` : toField;
    if (format.type !== 'json_schema') {
      if ((format.type === 'text' || format.type === 'json_object') && to !== 'messages') return put(target, { type: format.type }, at);
      return drop(
        at,
        `${to} has no ${typeof format.type === 'string' ? format.type : 'such'} output format${to === 'messages' ? ' (its only one is json_schema)' : ''}`,
      );
    }
    for (const other of format.other) drop(other, `${to}'s output format has no such field`);
    const part = (k: OutputFormat['parts'][number]['key']) => format.parts.find((p) => p.key === k);
    const schema = part('schema');
    if (!schema || !isObject(schema.value))
      return drop(at, `a JSON schema output format without a schema: ${to === 'chat_completions' ? 'chat_completions' : to} needs one`);
    if (to === 'messages') {
      for (const p of format.parts) if (p.key !== 'schema') drop(p.at, `messages' output format has no ${p.key}`);
      return put(target, { type: 'json_schema', schema: schema.value }, at);
    }
    const name = part('name');
    let chosen = typeof name?.value === 'string' ? name.value : OUTPUT_SCHEMA_NAME;
    if (name && typeof name.value !== 'string') drop(name.at, `not a name (a string); "${OUTPUT_SCHEMA_NAME}" is used`);
    if (to === 'chat_completions' && [...chosen].length > 64) {
      drop(name!.at, `chat_completions takes a name of at most 64 characters; "${OUTPUT_SCHEMA_NAME}" is used`);
      chosen = OUTPUT_SCHEMA_NAME;
    }
    const rest = Object.fromEntries(format.parts.filter((p) => p.key === 'description' || p.key === 'strict').map((p) => [p.key, p.value]));
    const spec = {
      name: chosen,
      ...('description' in rest ? { description: rest.description } : {}),
      schema: schema.value,
      ...('strict' in rest ? { strict: rest.strict } : {}),
    };
    put(target, to === 'chat_completions' ? { type: 'json_schema', json_schema: spec } : { type: 'json_schema', ...spec }, at);
  },
};

/** A part of one format's object field that no other format has. */
const ownPart = (format: SourceFormat, field: string, key: string, setting: string): Row => ({
  setting,
  at: { [format]: code(`${field}.${key}`) },
  how: `${format} only`,
  reads: { [format]: [field] },
  translate({ from, to, src, drop }) {
    if (from !== format) return;
    if (src.take(field, key) !== undefined) drop(`${field}.${key}`, `${to} has no ${setting}`);
  },
});

const MESSAGES_EFFORTS = ['low', 'medium', 'high', 'xhigh', 'max'];
const REASONING_AT: Record<SourceFormat, [string, string]> = {
  chat_completions: ['reasoning', 'effort'],
  messages: ['output_config', 'effort'],
  responses: ['reasoning', 'effort'],
};

const effort: Row = {
  setting: 'reasoning effort',
  at: {
    chat_completions: '`reasoning.effort` (or `reasoning_effort`)',
    messages: '`output_config.effort`',
    responses: '`reasoning.effort`',
  },
  how: 'as is; messages takes `low`, `medium`, `high`, `xhigh`, `max`; from chat_completions, `reasoning.effort` when both are set',
  reads: { chat_completions: ['reasoning', 'reasoning_effort'], messages: ['output_config'], responses: ['reasoning'] },
  translate({ from, to, src, put, drop }) {
    const [field, key] = REASONING_AT[from];
    let origin = `${field}.${key}`;
    let value = src.take(field, key);
    if (from === 'chat_completions') {
      const alias = src.take('reasoning_effort');
      if (!present(value)) [value, origin] = [alias, 'reasoning_effort'];
      else if (present(alias)) drop('reasoning_effort', 'reasoning.effort is used: both are the reasoning effort');
    }
    if (!present(value)) return;
    if (to === 'messages' && !MESSAGES_EFFORTS.includes(value as string)) {
      return drop(origin, `messages' efforts are ${MESSAGES_EFFORTS.join(', ')}`);
    }
    const [toField, toKey] = REASONING_AT[to];
    put(`${toField}.${toKey}`, value, origin);
  },
};

/** Responses' reasoning keys with a fixed set of values (chat_completions' reasoning takes any value for them). */
const RESPONSES_REASONING_VALUES: Record<string, readonly unknown[]> = {
  summary: ['auto', 'concise', 'detailed', null],
  mode: ['standard', 'pro', null],
  context: ['auto', 'all_turns', 'current_turn', null],
};
const fitsResponsesReasoning = (key: string, value: unknown): boolean =>
  key === 'enabled'
    ? typeof value === 'boolean' || value === null
    : key === 'max_tokens'
      ? Number.isInteger(value) || value === null
      : !Object.hasOwn(RESPONSES_REASONING_VALUES, key) || RESPONSES_REASONING_VALUES[key]!.includes(value);

const thinking: Row = {
  setting: 'reasoning on or off, and its budget',
  at: {
    chat_completions: '`reasoning.enabled`, `reasoning.max_tokens`',
    messages: '`thinking`',
    responses: '`reasoning.enabled`, `reasoning.max_tokens`',
  },
  how:
    '`{"type":"enabled","budget_tokens":n}` ↔ `max_tokens: n`; `{"type":"adaptive"}` ↔ `enabled: true`; `{"type":"disabled"}` ↔ `enabled: false` ' +
    "(which wins over a budget); messages' `thinking.display` has no counterpart",
  reads: { chat_completions: ['reasoning'], messages: ['thinking'], responses: ['reasoning'] },
  translate({ from, to, src, put, drop }) {
    if (from === 'messages') {
      const value = src.take('thinking');
      if (value === undefined) return;
      if (!isObject(value)) return drop('thinking', 'not a thinking setting (an object)');
      for (const key of Object.keys(value)) {
        if (key === 'display') drop('thinking.display', `${to} has no thinking display`);
        else if (key !== 'type' && !(key === 'budget_tokens' && value.type === 'enabled'))
          drop(`thinking.${key}`, `${to} has no counterpart of it`);
      }
      if (value.type === 'enabled' && Number.isInteger(value.budget_tokens))
        put('reasoning.max_tokens', value.budget_tokens, 'thinking.budget_tokens');
      else if (value.type === 'adaptive') put('reasoning.enabled', true, 'thinking.type');
      else if (value.type === 'disabled') put('reasoning.enabled', false, 'thinking.type');
      else drop('thinking.type', `${to} has no counterpart of this thinking setting`);
      return;
    }
    const enabled = src.take('reasoning', 'enabled');
    const budget = src.take('reasoning', 'max_tokens');
    if (to !== 'messages') {
      for (const [key, value] of [
        ['enabled', enabled],
        ['max_tokens', budget],
      ] as const) {
        if (value === undefined) continue;
        if (to === 'responses' && !fitsResponsesReasoning(key, value))
          drop(`reasoning.${key}`, `responses takes ${key === 'enabled' ? 'true or false' : 'a whole number'} here`);
        else put(`reasoning.${key}`, value, `reasoning.${key}`);
      }
      return;
    }
    if (enabled === false) {
      put('thinking', { type: 'disabled' }, 'reasoning.enabled');
      if (present(budget)) drop('reasoning.max_tokens', 'reasoning is off (enabled: false)');
    } else if (Number.isInteger(budget)) {
      // enabled: true (if set) is said by the type: thinking with a budget is on.
      put('thinking', { type: 'enabled', budget_tokens: budget }, 'reasoning.max_tokens');
      if (present(enabled) && enabled !== true) drop('reasoning.enabled', 'not true or false');
    } else {
      if (present(budget)) drop('reasoning.max_tokens', 'not a whole number of tokens');
      if (enabled === true) put('thinking', { type: 'adaptive' }, 'reasoning.enabled');
      else if (present(enabled)) drop('reasoning.enabled', 'not true or false');
    }
  },
};

const otherReasoning: Row = {
  setting: 'other reasoning settings (`summary`, `mode`, `context`, `exclude`, …)',
  at: { chat_completions: '`reasoning.*`', responses: '`reasoning.*`' },
  how: 'as is; responses takes `summary` auto/concise/detailed, `mode` standard/pro, `context` auto/all_turns/current_turn',
  reads: { chat_completions: ['reasoning'], responses: ['reasoning'] },
  translate({ from, to, src, put, placed, drop }) {
    if (from === 'messages') return;
    const whole = src.config.reasoning;
    // An empty reasoning object says nothing, but between the two formats that have one it stays.
    if (isObject(whole) && Object.keys(whole).length === 0 && to !== 'messages' && placed('reasoning') === undefined)
      put('reasoning', {}, 'reasoning');
    for (const [key, value] of src.rest('reasoning')) {
      if (to === 'messages') drop(`reasoning.${key}`, `messages has no reasoning ${key}`);
      else if (to === 'responses' && !fitsResponsesReasoning(key, value))
        drop(`reasoning.${key}`, `responses does not take this reasoning ${key}`);
      else put(`reasoning.${key}`, value, `reasoning.${key}`);
    }
  },
};

const tools: Row = {
  setting: 'tools',
  at: { chat_completions: '`tools`', messages: '`tools`', responses: '`tools`' },
  how:
    'function tools: `{"type":"function","function":{name, description, parameters, strict}}` ↔ `{name, description, input_schema}` ↔ ' +
    '`{"type":"function", name, description, parameters, strict}` (parts a shape lacks are dropped); OpenRouter\'s `openrouter:*` server tools as they are, ' +
    'where the target lists them; any other tool only in its own format',
  reads: { chat_completions: ['tools'], messages: ['tools'], responses: ['tools'] },
  translate({ from, to, src, put, drop }) {
    const value = src.take('tools');
    if (value === undefined) return;
    if (!Array.isArray(value)) return drop('tools', 'not a list of tools');
    const kept: unknown[] = [];
    value.forEach((tool, i) => {
      const { tool: translated, problems } = translateTool(from, to, tool, `tools[${i}]`);
      for (const p of problems) drop(p.field, p.reason);
      if (translated) kept.push(translated);
    });
    // A list every tool of which was dropped (each listed) is left out: providers refuse an empty one.
    if (kept.length > 0 || value.length === 0) put('tools', kept, 'tools');
  },
};

const toolChoice: Row = {
  setting: 'tool choice',
  at: { chat_completions: '`tool_choice`', messages: '`tool_choice`', responses: '`tool_choice`' },
  how:
    '`"none"` ↔ `{"type":"none"}`, `"auto"` ↔ `{"type":"auto"}`, `"required"` ↔ `{"type":"any"}`, one function: ' +
    '`{"type":"function","function":{"name"}}` ↔ `{"type":"tool","name"}` ↔ `{"type":"function","name"}`; any other choice only in its own format',
  reads: { chat_completions: ['tool_choice'], messages: ['tool_choice'], responses: ['tool_choice'] },
  translate({ from, to, src, put, drop }) {
    const value = src.take('tool_choice');
    if (value === undefined) return;
    const choice = readChoice(from, value);
    if (!choice) return drop('tool_choice', `this tool choice is ${from}'s own; ${to} has no such choice`);
    const extras = from === 'messages' ? messagesChoiceExtras(value) : functionChoiceExtras(from, value);
    for (const key of extras) drop(`tool_choice.${key}`, `${to}'s tool choice has no such field`);
    put('tool_choice', writeChoice(to, choice), 'tool_choice');
  },
};

const parallelToolCalls: Row = {
  setting: 'parallel tool calls',
  at: {
    chat_completions: '`parallel_tool_calls`',
    messages: '`tool_choice.disable_parallel_tool_use`',
    responses: '`parallel_tool_calls`',
  },
  how: 'inverted between messages and the others; messages says it only inside a tool choice other than none',
  reads: { chat_completions: ['parallel_tool_calls'], messages: ['tool_choice'], responses: ['parallel_tool_calls'] },
  translate({ from, to, src, put, placed, drop }) {
    if (from === 'messages') {
      const disable = src.take('tool_choice', 'disable_parallel_tool_use');
      if (disable === undefined) return;
      if (typeof disable !== 'boolean') return drop('tool_choice.disable_parallel_tool_use', 'not true or false');
      return put('parallel_tool_calls', !disable, 'tool_choice.disable_parallel_tool_use');
    }
    const value = src.take('parallel_tool_calls');
    if (value === undefined) return;
    if (to !== 'messages') return put('parallel_tool_calls', value, 'parallel_tool_calls');
    if (typeof value !== 'boolean') return drop('parallel_tool_calls', 'not true or false');
    // The choice this translation made (the tool choice row runs first); "none" cannot carry it.
    const choice = placed('tool_choice');
    if (!isObject(choice) || choice.type === 'none') {
      return drop(
        'parallel_tool_calls',
        'messages says it in tool_choice.disable_parallel_tool_use, and there is no tool choice (other than none) to carry it',
      );
    }
    put('tool_choice.disable_parallel_tool_use', !value, 'parallel_tool_calls');
  },
};

/**
 * The table, in the order the translated config gets its fields. Fields of one format only are
 * rows too: they say, for the README, that every other format drops them.
 */
export const TRANSLATION_TABLE: readonly Row[] = [
  same('model'),
  same('models'),
  same('temperature'),
  same('top_p'),
  same('top_k'),
  same('min_p'),
  same('top_a'),
  same('repetition_penalty'),
  same('frequency_penalty'),
  same('presence_penalty'),
  same('seed'),
  same('logit_bias'),
  outputLimit,
  same('max_tool_calls'),
  stop,
  same('stop_server_tools_when'),
  same('logprobs'),
  same('top_logprobs'),
  same('include'),
  same('modalities'),
  same('image_config'),
  outputFormat,
  ownPart('responses', 'text', 'verbosity', 'verbosity'),
  ownPart('messages', 'output_config', 'task_budget', 'task budget'),
  effort,
  thinking,
  otherReasoning,
  tools,
  toolChoice,
  parallelToolCalls,
  same('provider'),
  same('fallbacks'),
  same('route'),
  same('service_tier'),
  same('speed'),
  same('plugins'),
  same('cache_control'),
  same('prompt_cache_options'),
  same('truncation'),
  same('context_management'),
];

/**
 * A version's config, made from a `from` request, as a `to` request says it. Pure. The same
 * format gives the config as it is. Every value placed is one the target format's codec takes
 * for that field; one it does not is dropped with the codec's reason.
 */
export const translateConfig = (from: SourceFormat, to: SourceFormat, config: Readonly<Json>): Translation => {
  if (from === to) return { config, dropped: [], origins: new Map() };
  const out: Json = {};
  const origins = new Map<string, string>();
  const dropped: Dropped[] = [];
  const src = new Source(config as Json);
  const drop = (field: string, reason: string) => {
    dropped.push({ field, reason });
  };
  const put = (path: string, value: unknown, origin: string) => {
    const dot = path.indexOf('.');
    if (dot < 0) {
      if (out[path] !== undefined) return drop(origin, `${to}'s ${path} is set from ${origins.get(path)} already`);
      out[path] = value;
    } else {
      const [field, key] = [path.slice(0, dot), path.slice(dot + 1)];
      const parent = (out[field] ??= {}) as Json;
      if (!isObject(parent)) return drop(origin, `${to}'s ${field} is set from ${origins.get(field)} already`);
      if (parent[key] !== undefined) return drop(origin, `${to}'s ${path} is set from ${origins.get(path)} already`);
      parent[key] = value;
      if (!origins.has(field)) origins.set(field, origin);
    }
    origins.set(path, origin);
  };
  const step: Step = { from, to, src, put, placed: (field) => out[field], drop };
  for (const row of TRANSLATION_TABLE) row.translate(step);
  for (const field of src.untaken()) drop(field, `${to} has no counterpart of it`);

  // Every row places values of the target's shape; the target's codec has the last word on each.
  const codecs = FORMAT_CODECS[to].fieldCodecs;
  for (const [field, value] of Object.entries(out)) {
    const codec = codecs[field];
    if (codec?.is(value)) continue;
    delete out[field];
    const decoded = codec?.decode(value);
    const problem = decoded && E.isLeft(decoded) ? formatErrors(decoded.left)[0]?.message : undefined;
    dropped.push({
      field: origins.get(field) ?? field,
      reason: `${to} does not take this value for ${field}${problem ? `: ${problem}` : ''}`,
    });
  }
  return { config: out, dropped, origins };
};

/** The table as Markdown: the README holds this verbatim, between its translation markers. */
export const renderTranslationTable = (): string => {
  const header = ['| setting | chat_completions | messages | responses | how it translates |', '|---|---|---|---|---|'];
  const lines = TRANSLATION_TABLE.map(
    (row) => `| ${row.setting} | ${SOURCE_FORMATS.map((f) => row.at[f] ?? '—').join(' | ')} | ${row.how} |`,
  );
  return [...header, ...lines].join('\n') + '\n';
};
