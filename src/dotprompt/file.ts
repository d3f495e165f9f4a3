import * as E from 'fp-ts/Either';
import { Dotprompt, picoschema } from 'dotprompt';
import { inputOf, readSchema, sameJson } from './schema';
import { isMap, LineCounter, parseDocument, stringify, type Node } from 'yaml';
import type { ValidationProblem } from '../validation';

/**
 * A version as a Dotprompt file (docs/prompts-as-code.md), and a Dotprompt file as the body of a
 * `POST …/versions` that makes it: pure mappings, no I/O. The file's front matter holds `model`,
 * `config` (the rest of the config), `input` (the variables: Picoschema where it says exactly the
 * same, JSON Schema otherwise, with the top-level defaults in `input.default`), `output` (a chat
 * version's JSON-schema response format) and `metadata.presets` (slug, version, source and
 * template format, tools, provider); the body is the template, a `{{role}}` marker before the
 * system prompt and before each message. Parsing uses Google's `dotprompt` package (and its YAML
 * library, for the line of a problem).
 */

/** The parts of a version a file holds (a `GET …/versions/{n}` answer has them all). */
export interface VersionParts {
  version: number;
  config: Record<string, unknown>;
  system_prompt: string;
  template_format: 'none' | 'handlebars';
  variables: Record<string, unknown> | null;
  messages: { role: 'user' | 'assistant'; content: string }[];
  source_format: 'chat_completions' | 'messages' | 'responses' | null;
}

/** A file read: the `POST /api/v1/presets/{slug}/versions` body it stands for, and the slug it names, if any. */
export interface DotpromptVersion {
  slug?: string;
  body: {
    format: 'chat_completions' | 'messages' | 'responses';
    config: Record<string, unknown>;
    system_prompt: string;
    template_format: 'none' | 'handlebars';
    messages: { role: 'user' | 'assistant'; content: string }[];
    /** Absent: inferred from the template, as a `POST …/versions` without it. */
    variables?: Record<string, unknown> | null;
  };
  /** The line of the file each text starts on: the system prompt's (none when the file has no marker for it), each message's. */
  lines: { system?: number; messages: number[] };
}

export const DOTPROMPT_MEDIA_TYPE = 'text/x-dotprompt; charset=utf-8';

/** Config fields that go elsewhere in the file: `model` at the top, these under `metadata.presets`. */
const METADATA_FIELDS = ['tools', 'provider'] as const;
const FORMATS = ['chat_completions', 'messages', 'responses'] as const;
const TOP_LEVEL = new Set(['model', 'config', 'input', 'output', 'metadata', 'name', 'description', 'variant', 'version']);
const PRESETS_KEYS = new Set(['slug', 'version', 'source_format', 'template_format', ...METADATA_FIELDS, 'json_schema']);
const DOTPROMPT_ROLES: Record<string, 'system' | 'user' | 'assistant'> = { system: 'system', user: 'user', model: 'assistant' };
// Dotprompt's own split of a file (its parse trims the body; a version's text is kept exactly).
const FRONT_MATTER_AND_BODY = /^---\s*(?:\r\n|\r|\n)([\s\S]*?)(?:\r\n|\r|\n)---\s*(?:\r\n|\r|\n)([\s\S]*)$/;
// A `{{role "…"}}` marker, with Handlebars' whitespace control; an escaped `\{{` is text.
const ROLE_MARKER = /(?<!\\)\{\{(~?)\s*role\s+"([^"]*)"\s*(~?)\}\}/g;

type Json = Record<string, unknown>;
const isObject = (u: unknown): u is Json => typeof u === 'object' && u !== null && !Array.isArray(u);
export { sameJson };

// ——— version → file ———

/** The version as a Dotprompt file: parsed back by `parseDotprompt`, it is the same version. */
export const toDotprompt = async (slug: string, version: VersionParts): Promise<string> => {
  const front: Json = {};
  const rest: Json = {};
  const presets: Json = { slug, version: version.version };
  if (version.source_format) presets.source_format = version.source_format;
  presets.template_format = version.template_format;
  const output = outputOf(version);
  for (const [key, value] of Object.entries(version.config)) {
    if (key === 'model' && typeof value === 'string') front.model = value;
    else if ((METADATA_FIELDS as readonly string[]).includes(key)) presets[key] = value;
    else if (key === 'response_format' && output) presets.json_schema = output.jsonSchema;
    else rest[key] = value;
  }
  if (Object.keys(rest).length > 0) front.config = rest;
  if (version.variables) front.input = await inputOf(version.variables);
  if (output) front.output = { format: 'json', schema: output.schema };
  front.metadata = { presets };
  const escape = version.template_format === 'none' ? (s: string) => s.replaceAll('{{', '\\{{') : (s: string) => s;
  const segments = [
    { role: 'system', text: escape(version.system_prompt) },
    ...version.messages.map((m) => ({ role: m.role === 'assistant' ? 'model' : 'user', text: escape(m.content) })),
  ];
  return `---\n${stringify(front, { lineWidth: 0 })}---\n${templateOf(segments)}`;
};

/**
 * The template: each text after its `{{role}}` marker. Where a text neither starts nor ends with
 * whitespace, the marker and the text are on lines of their own, the newlines between them
 * stripped by Handlebars' `~`, so the `dotprompt` package renders exactly the text; otherwise the
 * marker touches the text. The file ends with one newline more.
 */
const templateOf = (segments: { role: string; text: string }[]): string => {
  let out = '';
  segments.forEach(({ role, text }, i) => {
    const previous = segments[i - 1]?.text;
    const joinLeft = previous !== undefined && previous !== '' && !/\s$/.test(previous);
    const joinRight = text !== '' && !/^\s/.test(text);
    out += `${joinLeft ? '\n{{~' : '{{'}role "${role}"${joinRight ? '~}}\n' : '}}'}${text}`;
  });
  return `${out}\n`;
};

const outputOf = (version: VersionParts): { schema: Json; jsonSchema: Json } | null => {
  if ((version.source_format ?? 'chat_completions') !== 'chat_completions') return null;
  const format = version.config.response_format;
  if (!isObject(format) || format.type !== 'json_schema' || Object.keys(format).length !== 2 || !isObject(format.json_schema)) return null;
  const { schema, ...jsonSchema } = format.json_schema;
  if (!isObject(schema)) return null;
  return { schema, jsonSchema };
};

// ——— file → version ———

interface Located {
  /** The line of a front-matter field, by its path (`config.temperature`). */
  lineOf: (path: (string | number)[]) => number | undefined;
}

const problem = (path: string, message: string, line?: number): ValidationProblem => ({
  path,
  message: line === undefined ? message : `line ${line}: ${message}`,
});

/** A Dotprompt file as the version it makes, or every problem with it, each naming its field or line. */
export const parseDotprompt = async (text: string): Promise<E.Either<ValidationProblem[], DotpromptVersion>> => {
  const source = text.replace(/^\uFEFF/, '');
  let frontText = '';
  let body = source;
  let bodyLine = 1;
  if (/^---\s*(\r\n|\r|\n)/.test(source)) {
    const match = FRONT_MATTER_AND_BODY.exec(source);
    if (!match) return E.left([problem('front matter', 'the front matter that starts here is not closed by a line "---"', 1)]);
    frontText = match[1]!;
    body = match[2]!;
    bodyLine = source.slice(0, source.length - body.length).split(/\r\n|\r|\n/).length;
  }
  const counter = new LineCounter();
  const document = parseDocument(frontText, { lineCounter: counter, uniqueKeys: true });
  // The first YAML error (the others follow from it), at its line of the file.
  const yamlErrors = document.errors
    .slice(0, 1)
    .map((e) =>
      problem('front matter', e.message.split('\n')[0]!.replace(/ at line \d+, column \d+:?$/, ''), (e.linePos?.[0].line ?? 0) + 1),
    );
  if (yamlErrors.length > 0) return E.left(yamlErrors);
  if (frontText.trim() !== '' && !isMap(document.contents)) return E.left([problem('front matter', 'must be a YAML mapping of fields', 2)]);
  const located: Located = {
    lineOf: (path) => {
      const node = document.getIn(path, true) as Node | undefined;
      const at = node?.range?.[0];
      return at === undefined ? undefined : counter.linePos(at).line + 1;
    },
  };
  const shape = jsonShapeProblem(document.toJS({ maxAliasCount: 100 }));
  if (shape) return E.left([problem('front matter', shape)]);
  // The metadata as Dotprompt reads it (its parse would print and ignore a YAML error: caught above).
  const parsed = new Dotprompt().parse(source);
  const raw = (parsed.raw ?? {}) as Json;
  const problems: ValidationProblem[] = [];
  const at = (path: (string | number)[], message: string) => problems.push(problem(path.join('.'), message, located.lineOf(path)));

  for (const key of Object.keys(raw))
    if (!TOP_LEVEL.has(key)) at([key], `is not a field this service reads (${[...TOP_LEVEL].join(', ')})`);
  const metadata = raw.metadata === undefined ? {} : raw.metadata;
  if (!isObject(metadata)) at(['metadata'], 'must be a mapping');
  const presets = isObject(metadata) && metadata.presets !== undefined ? metadata.presets : {};
  if (!isObject(presets)) at(['metadata', 'presets'], 'must be a mapping');
  const p: Json = isObject(presets) ? presets : {};
  for (const key of Object.keys(p)) {
    if (!PRESETS_KEYS.has(key)) at(['metadata', 'presets', key], `is not a field of metadata.presets (${[...PRESETS_KEYS].join(', ')})`);
  }
  const format = p.source_format ?? 'chat_completions';
  if (!FORMATS.includes(format as never)) at(['metadata', 'presets', 'source_format'], `must be one of ${FORMATS.join(', ')}`);
  const templateFormat = p.template_format ?? 'handlebars';
  if (templateFormat !== 'none' && templateFormat !== 'handlebars')
    at(['metadata', 'presets', 'template_format'], 'must be none or handlebars');
  if (p.slug !== undefined && typeof p.slug !== 'string') at(['metadata', 'presets', 'slug'], 'must be a string');
  if (p.version !== undefined && !Number.isInteger(p.version)) at(['metadata', 'presets', 'version'], 'must be a whole number');

  const config: Json = {};
  if (raw.model !== undefined) {
    if (typeof raw.model === 'string') config.model = raw.model;
    else at(['model'], 'must be a string');
  }
  if (raw.config !== undefined) {
    if (isObject(raw.config)) Object.assign(config, raw.config);
    else at(['config'], 'must be a mapping');
  }
  for (const key of METADATA_FIELDS) {
    if (p[key] === undefined) continue;
    if (Object.hasOwn(config, key)) at(['config', key], `is given under metadata.presets.${key} too`);
    config[key] = p[key];
  }
  if (raw.output !== undefined) {
    const output = await outputConfig(raw.output, p.json_schema, format, at);
    if (output) {
      if (Object.hasOwn(config, 'response_format')) at(['config', 'response_format'], 'is given by output too');
      config.response_format = output;
    }
  } else if (p.json_schema !== undefined) at(['metadata', 'presets', 'json_schema'], 'is read with output only');

  let variables: Json | null | undefined;
  if (raw.input !== undefined) {
    if (!isObject(raw.input)) at(['input'], 'must be a mapping');
    else {
      for (const key of Object.keys(raw.input))
        if (key !== 'schema' && key !== 'default') at(['input', key], 'is not a field of input (schema, default)');
      const defaults = raw.input.default ?? {};
      if (!isObject(defaults)) at(['input', 'default'], 'must be a mapping of variable names to values');
      else if (raw.input.schema === undefined) {
        if (Object.keys(defaults).length > 0) at(['input', 'default'], 'needs input.schema, which declares the variables');
      } else {
        const schema = await readSchema(raw.input.schema, defaults);
        if (E.isLeft(schema)) for (const { path, message } of schema.left) at(['input', ...path], message);
        else variables = schema.right;
      }
    }
  }

  const template = splitTemplate(body, bodyLine, templateFormat === 'none');
  if (E.isLeft(template)) problems.push(...template.left);
  if (problems.length > 0 || E.isLeft(template)) return E.left(problems);
  const { system, messages, lines } = template.right;
  return E.right({
    ...(typeof p.slug === 'string' ? { slug: p.slug } : {}),
    body: {
      format: format as DotpromptVersion['body']['format'],
      config,
      system_prompt: system,
      template_format: templateFormat as 'none' | 'handlebars',
      messages,
      ...(variables !== undefined ? { variables } : {}),
    },
    lines,
  });
};

/** The front matter holds what a JSON body may (src/http/middleware/jsonBody.ts): finite numbers, no `__proto__` key, at most 128 levels. */
export const MAX_DEPTH = 128;
const jsonShapeProblem = (value: unknown): string | null => {
  const values: unknown[] = [value];
  const depths: number[] = [1];
  while (values.length > 0) {
    const v = values.pop();
    const depth = depths.pop()!;
    if (typeof v === 'number' && !Number.isFinite(v)) return 'holds a number JSON cannot (.inf or .nan)';
    if (v === null || typeof v !== 'object') continue;
    if (depth > MAX_DEPTH) return `is nested deeper than ${MAX_DEPTH} levels`;
    if (!Array.isArray(v) && Object.getPrototypeOf(v) !== Object.prototype) return 'holds a value JSON cannot';
    for (const key of Object.keys(v)) {
      if (key === '__proto__') return 'holds a forbidden key (__proto__)';
      values.push((v as Record<string, unknown>)[key]);
      depths.push(depth + 1);
    }
  }
  return null;
};

/** `output` as a chat version's `response_format` (`json_schema`), its name and the rest from `metadata.presets.json_schema`. */
const outputConfig = async (
  output: unknown,
  jsonSchema: unknown,
  format: unknown,
  at: (path: (string | number)[], message: string) => void,
): Promise<Json | null> => {
  if (format !== 'chat_completions') {
    at(['output'], `is read for chat_completions versions; a ${String(format)} version keeps its output format in config`);
    return null;
  }
  if (!isObject(output)) return (at(['output'], 'must be a mapping'), null);
  if (output.format !== 'json') at(['output', 'format'], 'must be json (a text answer needs no output)');
  if (jsonSchema !== undefined && !isObject(jsonSchema)) at(['metadata', 'presets', 'json_schema'], 'must be a mapping');
  let schema: unknown;
  try {
    schema = await picoschema(output.schema);
  } catch (error) {
    at(['output', 'schema'], (error as Error).message);
    return null;
  }
  if (!isObject(schema)) return (at(['output', 'schema'], 'must be a schema (Picoschema or JSON Schema)'), null);
  const rest = isObject(jsonSchema) ? jsonSchema : { name: 'output' };
  return { type: 'json_schema', json_schema: { ...rest, schema } };
};

/** The body as the system prompt and the messages, split at the `{{role}}` markers; `literal`: a "none" version, whose `\{{` is `{{`. */
const splitTemplate = (
  body: string,
  firstLine: number,
  literal: boolean,
): E.Either<
  ValidationProblem[],
  { system: string; messages: { role: 'user' | 'assistant'; content: string }[]; lines: DotpromptVersion['lines'] }
> => {
  const lineAt = (offset: number) => firstLine + body.slice(0, offset).split(/\r\n|\r|\n/).length - 1;
  const markers = [...body.matchAll(ROLE_MARKER)];
  const problems: ValidationProblem[] = [];
  const texts: { role: 'system' | 'user' | 'assistant'; text: string; line: number }[] = [];
  // What comes before the first marker is a user message, as Dotprompt reads it (blank: nothing).
  const lead = body.slice(0, markers[0]?.index ?? body.length);
  if (lead.trim() !== '') texts.push({ role: 'user', text: lead.trimStart(), line: lineAt(lead.length - lead.trimStart().length) });
  markers.forEach((marker, i) => {
    const [tag, , name, right] = marker;
    const role = Object.hasOwn(DOTPROMPT_ROLES, name!) ? DOTPROMPT_ROLES[name!] : undefined;
    if (!role) problems.push(problem('template', `{{role "${name}"}}: the roles are system, user and model`, lineAt(marker.index)));
    const start = marker.index + tag.length;
    const end = markers[i + 1]?.index ?? body.length;
    let text = body.slice(start, end);
    const skipped = right === '~' ? text.length - text.trimStart().length : 0;
    text = text.slice(skipped);
    if (markers[i + 1]?.[1] === '~') text = text.trimEnd();
    texts.push({ role: role ?? 'user', text, line: lineAt(start + skipped) });
  });
  // The file's last newline is the file's, not the text's.
  const last = texts.at(-1);
  if (last) last.text = last.text.replace(/\n$/, '');
  if (problems.length > 0) return E.left(problems);
  const unescape = literal ? (s: string) => s.replaceAll('\\{{', '{{') : (s: string) => s;
  const [first, ...others] = texts;
  const system = first?.role === 'system' ? unescape(first.text) : '';
  const messages = (first?.role === 'system' ? others : texts).map((m) => {
    if (m.role === 'system') problems.push(problem('template', 'a {{role "system"}} comes first, once: the system prompt', m.line - 1));
    return { role: m.role === 'assistant' ? ('assistant' as const) : ('user' as const), content: unescape(m.text) };
  });
  const lines = {
    ...(first?.role === 'system' ? { system: first.line } : {}),
    messages: (first?.role === 'system' ? others : texts).map((m) => m.line),
  };
  return problems.length > 0 ? E.left(problems) : E.right({ system, messages, lines });
};
