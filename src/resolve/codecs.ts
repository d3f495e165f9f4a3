import * as t from 'io-ts';
import { FORMAT_CODECS, type FormatName } from '../formats';
import { integer, named, nullable } from '../formats/codecs';
import { SourceFormat, TemplateFormat } from '../presets/events';

/**
 * What the resolve endpoints take and answer, as io-ts codecs: the routes validate with them, the
 * answers are typed by them, and the OpenAPI document's schemas are generated from them.
 */

/** The values a templated version is filled with, by name (LiteLLM's `prompt_variables`). */
const Variables = nullable(named('object of named values', t.UnknownRecord));

/**
 * A request of `format` that may name its preset in a `preset` field (form 3), and may carry the
 * values its template takes in `prompt_variables`: only the resolve endpoints take these fields.
 */
export const PresetField = t.partial({ preset: nullable(t.string), prompt_variables: Variables });

/**
 * OpenAI's stored-prompt reference in a responses body, naming the preset: `id` is its slug (or
 * `@preset/<slug>`), `version` a version number, `latest` or a label, `variables` the values.
 */
export const PromptReference = t.intersection(
  [t.type({ id: t.string }), t.partial({ version: nullable(t.union([t.string, integer])), variables: Variables })],
  'PromptReference',
);
const PromptField = t.partial({ prompt: nullable(PromptReference) });

export const RESOLVE_REQUEST_CODECS: Readonly<Record<FormatName, t.Mixed>> = {
  chat_completions: t.intersection([FORMAT_CODECS.chat_completions.codec, PresetField], 'chat-completions request naming a preset'),
  messages: t.intersection([FORMAT_CODECS.messages.codec, PresetField], 'messages request naming a preset'),
  responses: t.intersection([FORMAT_CODECS.responses.codec, PresetField, PromptField], 'responses request naming a preset'),
};

export const DroppedField = t.type(
  {
    /** Where it was in the version's config (`top_k`, `reasoning.summary`, `tools[2]`). */
    field: t.string,
    reason: t.string,
  },
  'DroppedField',
);

export const ResolvedPreset = t.type(
  {
    id: t.string,
    slug: t.string,
    version: integer,
    version_id: t.string,
    /** The label the request pinned (`latest` included); null when it named a version number or none. */
    label: nullable(t.string),
    source_format: SourceFormat,
    /** How the version's text was read: "handlebars", rendered with the request's variables; "none", as it is. */
    template_format: TemplateFormat,
  },
  'ResolvedPreset',
);
export type ResolvedPreset = t.TypeOf<typeof ResolvedPreset>;

/** Which version of a split label was served, and by which key it was picked (`random`: the request gave none). */
export const ServedVersion = t.type(
  {
    version: integer,
    label: t.string,
    split_key_source: t.keyof({ header: null, user: null, 'metadata.user_id': null, safety_identifier: null, random: null }),
  },
  'ServedVersion',
);
export type ServedVersion = t.TypeOf<typeof ServedVersion>;

const resolution = (format: FormatName, name: string) =>
  t.intersection(
    [
      t.type({
        /** The body to send: a request of the format, without a preset reference. */
        request: FORMAT_CODECS[format].codec,
        preset: ResolvedPreset,
        dropped: t.array(DroppedField),
        /** The preset's fields the request set itself (as the target format names them), and `system_prompt` when it brought its own system instruction. */
        overridden: t.array(t.string),
      }),
      t.partial({
        /** Only when the request named a split label. */
        served: ServedVersion,
        /** Only when the request gave variables: the names the version does not declare (all of them for a "none" version), which changed nothing. */
        unused_variables: t.array(t.string),
      }),
    ],
    name,
  );

/** The 200 answer of each resolve endpoint: `{"data": {request, preset, dropped}}`. */
export const RESOLVE_ANSWER_CODECS: Readonly<Record<FormatName, t.Mixed>> = {
  chat_completions: t.type({ data: resolution('chat_completions', 'ChatCompletionsResolution') }, 'ChatCompletionsResolveAnswer'),
  messages: t.type({ data: resolution('messages', 'MessagesResolution') }, 'MessagesResolveAnswer'),
  responses: t.type({ data: resolution('responses', 'ResponsesResolution') }, 'ResponsesResolveAnswer'),
};

export interface Resolution {
  request: Record<string, unknown>;
  preset: ResolvedPreset;
  dropped: Array<t.TypeOf<typeof DroppedField>>;
  /** Only when the request named a split label: the version it was served and how it was picked. */
  served?: ServedVersion;
  overridden: string[];
  /** Only when the request gave variables: the names given that the version does not declare. */
  unused_variables?: string[];
}
