import * as t from 'io-ts';
import { FORMAT_CODECS, type FormatName } from '../formats';
import { integer, nullable } from '../formats/codecs';
import { SourceFormat } from '../presets/events';

/**
 * What the resolve endpoints take and answer, as io-ts codecs: the routes validate with them, the
 * answers are typed by them, and the OpenAPI document's schemas are generated from them.
 */

/** A request of `format` that may name its preset in a `preset` field (form 3): only the resolve endpoints take that field. */
export const PresetField = t.partial({ preset: nullable(t.string) });

export const RESOLVE_REQUEST_CODECS: Readonly<Record<FormatName, t.Mixed>> = {
  chat_completions: t.intersection([FORMAT_CODECS.chat_completions.codec, PresetField], 'chat-completions request naming a preset'),
  messages: t.intersection([FORMAT_CODECS.messages.codec, PresetField], 'messages request naming a preset'),
  responses: t.intersection([FORMAT_CODECS.responses.codec, PresetField], 'responses request naming a preset'),
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
      /** Only when the request named a split label. */
      t.partial({ served: ServedVersion }),
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
}
