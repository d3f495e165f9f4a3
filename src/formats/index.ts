import * as t from 'io-ts';
import * as E from 'fp-ts/Either';
import type { SourceFormat } from '../presets/events';
import { formatErrors, type ValidationProblem } from '../validation';
import * as chatCompletions from './chatCompletions';
import * as messages from './messages';
import * as responses from './responses';
import { fieldsOf, PERSISTED_FIELDS } from './persistedFields';
import { named } from './codecs';

export type FormatName = SourceFormat;

/** What a request body contributes to a preset version. */
export interface PresetDraft {
  config: Record<string, unknown>;
  systemPrompt: string;
}

const decoders: Record<FormatName, (body: unknown) => E.Either<t.Errors, string>> = {
  chat_completions: chatCompletions.decodeSystemPrompt,
  messages: messages.decodeSystemPrompt,
  responses: responses.decodeSystemPrompt,
};

/** Each format's request codec, and each of its fields' own codecs. */
export const FORMAT_CODECS: Readonly<Record<FormatName, { codec: t.Mixed; fieldCodecs: Readonly<Record<string, t.Mixed>> }>> = {
  chat_completions: chatCompletions,
  messages,
  responses,
};

export const JsonObject = named('JSON object', t.UnknownRecord);

/** Each format's config fields, as a set (the table's order does not matter: the body's does). */
const CONFIG_FIELDS: Readonly<Record<FormatName, ReadonlySet<string>>> = {
  chat_completions: new Set(fieldsOf('chat_completions', 'config')),
  messages: new Set(fieldsOf('messages', 'config')),
  responses: new Set(fieldsOf('responses', 'config')),
};

/**
 * Validates a request body of the given format and keeps what configures a model: the fields the
 * table marks 'config', as sent (not as the codec re-shapes them: the same values, keys in the
 * body's order at every depth), and the system instruction. A null field means "not set" and is
 * left out of config.
 */
export const toDraft = (format: FormatName, body: unknown): E.Either<ValidationProblem[], PresetDraft> => {
  const object = JsonObject.decode(body);
  if (E.isLeft(object)) return E.left(formatErrors(object.left));
  const decoded = decoders[format](body);
  if (E.isLeft(decoded)) return E.left(formatErrors(decoded.left));
  const fields = CONFIG_FIELDS[format];
  const config: Record<string, unknown> = {};
  for (const [field, value] of Object.entries(object.right))
    if (fields.has(field) && value !== undefined && value !== null) config[field] = value;
  return E.right({ config, systemPrompt: decoded.right });
};

/** The fields a request of each format needs to decode, with neutral values: a config checked alone borrows them. */
const REQUIRED_ELSEWHERE: Readonly<Record<FormatName, Record<string, unknown>>> = {
  chat_completions: { messages: [] },
  messages: { messages: [] },
  responses: {},
};

/**
 * A version's config given on its own (`POST /api/v1/presets/{slug}/versions`), checked by its
 * format's codec exactly as the inference-body endpoints check the same fields in a body: each key
 * must be one of the format's config fields, each value what that field takes. Problems are at
 * `$.config.<field>`; what is kept is the config as sent, a null meaning "not set" left out.
 */
export const checkConfig = (
  format: FormatName,
  config: Record<string, unknown>,
): E.Either<ValidationProblem[], Record<string, unknown>> => {
  const fields = CONFIG_FIELDS[format];
  const problems: ValidationProblem[] = [];
  for (const key of Object.keys(config)) {
    if (fields.has(key)) continue;
    const row = PERSISTED_FIELDS.find((r) => r.format === format && r.field === key);
    problems.push({
      path: /^[A-Za-z_$][A-Za-z0-9_$]*$/.test(key) ? `$.config.${key}` : `$.config[${JSON.stringify(key)}]`,
      message: row ? `is not kept in a ${format} version's config (${row.reason})` : `is not a field of ${format} requests`,
    });
  }
  if (problems.length > 0) return E.left(problems);
  const draft = toDraft(format, { ...config, ...REQUIRED_ELSEWHERE[format] });
  if (E.isLeft(draft)) return E.left(draft.left.map((p) => ({ ...p, path: p.path.replace(/^\$/, '$.config') })));
  return E.right(draft.right.config);
};
