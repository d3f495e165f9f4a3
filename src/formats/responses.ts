import * as t from 'io-ts';
import * as E from 'fp-ts/Either';
import { pipe } from 'fp-ts/function';
import {
  enumOf,
  finite,
  imageConfig,
  integer,
  listOf,
  maxChars,
  metadata,
  nullable,
  object,
  oneOf,
  route,
  sessionId,
  strings,
  toolChoice,
} from './codecs';
import { plugins, serverTools, shellTool, stopServerToolsWhen, toolList } from './referenceLimits';

/**
 * OpenAI-style responses body: every field of OpenRouter's reference `ResponsesRequest` (all
 * optional), each checked for its type and nullability, with the limits of spec part 8 and those
 * the reference states (see referenceLimits.ts). `input` items have no binding limit: the
 * reference's item variants include tools lists that end in a catch-all variant.
 */

const INCLUDES = [
  'file_search_call.results',
  'message.input_image.image_url',
  'computer_call_output.output.image_url',
  'reasoning.encrypted_content',
  'code_interpreter_call.outputs',
] as const;

export const codec = t.partial(
  {
    background: nullable(t.boolean),
    cache_control: object,
    debug: object,
    frequency_penalty: nullable(finite),
    image_config: imageConfig,
    include: nullable(listOf(enumOf('include value', INCLUDES))),
    input: oneOf('string or list of objects', { string: t.string, array: listOf(object) }),
    instructions: nullable(t.string),
    max_output_tokens: nullable(integer),
    max_tool_calls: nullable(integer),
    metadata: nullable(metadata(true)),
    modalities: listOf(enumOf('modality', ['text', 'image'])),
    model: t.string,
    models: strings,
    parallel_tool_calls: nullable(t.boolean),
    plugins,
    presence_penalty: nullable(finite),
    // The reference gives it no type (and says OpenRouter refuses a non-null value when it runs
    // the request); a preset never stores it, so any value is accepted.
    previous_response_id: t.unknown,
    prompt: nullable(object),
    prompt_cache_key: nullable(t.string),
    prompt_cache_options: nullable(object),
    provider: nullable(object),
    reasoning: nullable(object),
    route,
    safety_identifier: nullable(t.string),
    service_tier: nullable(enumOf('service tier', ['auto', 'default', 'fast', 'flex', 'priority', 'scale'])),
    session_id: sessionId,
    stop_server_tools_when: stopServerToolsWhen,
    store: t.literal(false, 'false (only store: false is accepted)'),
    stream: t.boolean,
    temperature: nullable(finite),
    text: object,
    tool_choice: toolChoice,
    tools: toolList({ ...serverTools, 'openrouter:shell': shellTool }),
    top_k: integer,
    top_logprobs: nullable(integer),
    top_p: nullable(finite),
    trace: object,
    truncation: nullable(enumOf('truncation', ['auto', 'disabled'])),
    user: maxChars(256),
  },
  'responses request',
);

export const fields = Object.keys(codec.props);
/** Each field's own codec: what a value must be to stand in that field. */
export const fieldCodecs: Readonly<Record<string, t.Mixed>> = codec.props;

export const decodeSystemPrompt = (body: unknown): E.Either<t.Errors, string> =>
  pipe(
    codec.decode(body),
    E.map((b) => b.instructions ?? ''),
  );
