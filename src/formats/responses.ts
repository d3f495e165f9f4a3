import * as t from 'io-ts';
import * as E from 'fp-ts/Either';
import { pipe } from 'fp-ts/function';
import {
  finite, imageConfig, maxChars, metadata, nullable, object, objects, oneOf, sessionId, strings, tokenCount, toolChoice, listOf } from './codecs';

/** OpenAI-style responses body (spec 4.3); every field is optional. */

export const codec = t.partial(
  {
    background: nullable(t.boolean),
    cache_control: object,
    frequency_penalty: nullable(finite),
    image_config: imageConfig,
    include: nullable(strings), // enum whose values the spec does not give
    input: oneOf('string or list of objects', { string: t.string, array: listOf(object) }),
    instructions: nullable(t.string),
    max_output_tokens: nullable(tokenCount),
    max_tool_calls: nullable(tokenCount),
    metadata: metadata(true),
    modalities: listOf(t.keyof({ text: null, image: null }, 'modality (text or image)')),
    model: t.string,
    models: strings,
    parallel_tool_calls: nullable(t.boolean),
    plugins: objects,
    presence_penalty: nullable(finite),
    previous_response_id: nullable(t.string),
    prompt: object,
    prompt_cache_key: nullable(t.string),
    provider: object,
    reasoning: object,
    route: t.unknown,
    safety_identifier: nullable(t.string),
    service_tier: nullable(t.string),
    session_id: sessionId,
    stop_server_tools_when: objects,
    store: t.literal(false, 'false (only store: false is accepted)'),
    stream: t.boolean,
    temperature: nullable(finite),
    text: object,
    tool_choice: toolChoice, // enum values not given
    tools: objects,
    top_k: tokenCount,
    // A count of tokens: non-negative. The 0..20 limit of part 8 is given for chat-completions only.
    top_logprobs: nullable(tokenCount),
    top_p: nullable(finite),
    trace: object,
    truncation: t.string, // enum whose values the spec does not give
    user: maxChars(256),
  },
  'responses request',
);

export const fields = Object.keys(codec.props);

export const decodeSystemPrompt = (body: unknown): E.Either<t.Errors, string> =>
  pipe(codec.decode(body), E.map((b) => b.instructions ?? ''));
