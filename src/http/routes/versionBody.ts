import * as t from 'io-ts';
import * as E from 'fp-ts/Either';
import { checkConfig, JsonObject, type FormatName, type PresetDraft } from '../../formats';
import { SourceFormat, TemplateFormat, VersionMessage } from '../../presets/events';
import { checkTemplate, type CheckedTemplate, type TemplateFormat as TemplateFormatName } from '../../templates/render';
import { formatErrors, type ValidationProblem } from '../../validation';
import { NoteField } from '../note';

/**
 * The two ways a write says how a version's text is read:
 *  - `POST /api/v1/presets/{slug}/versions` takes the version's parts as JSON (`VersionBody`): the
 *    config of a format (checked by that format's codec), the system prompt, messages, the template
 *    format and the variables schema;
 *  - the three inference-body endpoints take `?template_format=handlebars`: the body's system
 *    instruction is then a template, its variables inferred from it (docs/templates.md).
 */
export const VersionBody = t.intersection(
  [
    t.type({
      /** Whose field names the config uses, and what it is checked by. */
      format: SourceFormat,
      config: t.UnknownRecord,
      system_prompt: t.string,
      template_format: TemplateFormat,
    }),
    t.partial({
      /** After the system prompt: text messages of `user` and `assistant`. */
      messages: t.array(VersionMessage),
      /** A JSON Schema (draft 2020-12) of the variables; null: none; absent: inferred from the templates. */
      variables: t.union([t.UnknownRecord, t.null]),
      note: NoteField,
    }),
  ],
  'CreateVersionRequest',
);
const FIELDS = new Set(['format', 'config', 'system_prompt', 'template_format', 'messages', 'variables', 'note']);

export interface VersionDraft {
  format: FormatName;
  draft: PresetDraft;
  template: CheckedTemplate;
  note?: string;
}

/** A `POST …/versions` body as the version it makes, or every problem with it. */
export const readVersionBody = (body: unknown): E.Either<ValidationProblem[], VersionDraft> => {
  const object = JsonObject.decode(body);
  if (E.isLeft(object)) return E.left(formatErrors(object.left));
  const unknown = Object.keys(object.right).filter((key) => !FIELDS.has(key));
  if (unknown.length > 0) {
    return E.left(
      unknown.map((key) => ({ path: `$[${JSON.stringify(key)}]`, message: `is not a field of this body (${[...FIELDS].join(', ')})` })),
    );
  }
  const decoded = VersionBody.decode(body);
  if (E.isLeft(decoded)) return E.left(formatErrors(decoded.left));
  const {
    format,
    config: given,
    system_prompt: systemPrompt,
    template_format: templateFormat,
    messages = [],
    variables,
    note,
  } = decoded.right;
  const config = checkConfig(format, given);
  if (E.isLeft(config)) return config;
  const template = checkTemplate(
    {
      templateFormat,
      systemPrompt,
      messages,
      variables: variables === undefined ? undefined : (variables as Record<string, unknown> | null),
    },
    { systemPrompt: '$.system_prompt', messages: '$.messages', variables: '$.variables' },
  );
  if (E.isLeft(template)) return template;
  return E.right({
    format,
    draft: { config: config.right, systemPrompt },
    template: template.right,
    ...(note === undefined || note === '' ? {} : { note }),
  });
};

/** `?template_format=`: absent or "none" stores the text as it is (OpenRouter's behaviour); "handlebars" makes it a template. */
export const templateFormatOf = (raw: string | string[] | undefined): E.Either<ValidationProblem[], TemplateFormatName> => {
  if (raw === undefined || raw === 'none') return E.right('none');
  if (raw === 'handlebars') return E.right('handlebars');
  return E.left([{ path: 'template_format', message: `must be none or handlebars, got ${JSON.stringify(raw)}` }]);
};

const isObject = (u: unknown): u is Record<string, unknown> => typeof u === 'object' && u !== null && !Array.isArray(u);

/** Where an inference body keeps the system instruction a version takes as its system prompt. */
export const systemPromptPath = (format: FormatName, body: unknown): string => {
  if (format === 'messages') return '$.system';
  if (format === 'responses') return '$.instructions';
  const messages = isObject(body) && Array.isArray(body.messages) ? body.messages : [];
  const index = messages.findIndex((m) => isObject(m) && m.role === 'system');
  return index < 0 ? '$.messages' : `$.messages[${index}].content`;
};

/** The template fields of a version made from an inference body: "none" as it is, or its system instruction as a template. */
export const inferenceTemplate = (
  format: FormatName,
  body: unknown,
  draft: PresetDraft,
  templateFormat: TemplateFormatName,
): E.Either<ValidationProblem[], CheckedTemplate> =>
  checkTemplate(
    { templateFormat, systemPrompt: draft.systemPrompt, messages: [], variables: undefined },
    { systemPrompt: systemPromptPath(format, body), messages: '$.messages', variables: 'variables' },
  );
