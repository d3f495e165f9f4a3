import * as t from 'io-ts';
import * as E from 'fp-ts/Either';
import { pipe } from 'fp-ts/function';
import {
  between, finite, imageConfig, integer, integerBetween, metadata, named, nullable, object, objects, oneOf, refine, sessionId,
  strings, tokenCount, toolChoice, listOf } from './codecs';

/** OpenAI-style chat-completions body (spec 4.1), with the limits of spec part 8. */

const isTextPart = (p: Record<string, unknown>): p is { type: 'text'; text: string } =>
  p.type === 'text' && typeof p.text === 'string';
// A text part without a string text would silently drop from system_prompt: reject it instead.
const ContentPart = refine(
  object,
  (p) => p.type !== 'text' || isTextPart(p),
  'content part (a text part needs a string text)',
);
const Content = oneOf('string, list of content parts, or null', {
  string: t.string,
  array: listOf(ContentPart),
  null: t.null,
});
const Message = t.intersection([t.type({ role: t.string }), t.partial({ content: Content })], 'message');

const penalty = nullable(between(-2, 2));
const Stop = oneOf('string, list of at most 4 strings, or null', {
  string: t.string,
  array: refine(strings, (s) => s.length <= 4, 'list of at most 4 strings'),
  null: t.null,
});

const Required = t.type({ messages: named('list of messages', listOf(Message)) });
const Optional = t.partial({
  cache_control: object,
  debug: object,
  frequency_penalty: penalty,
  image_config: imageConfig,
  logit_bias: nullable(named('map of token to number', t.record(t.string, finite))),
  logprobs: nullable(t.boolean),
  max_completion_tokens: nullable(tokenCount),
  // Spec: "some providers enforce a minimum of 16" for max_tokens. A provider's rule, not ours.
  max_tokens: nullable(tokenCount),
  metadata: metadata(false),
  modalities: listOf(t.keyof({ text: null, image: null, audio: null }, 'modality (text, image or audio)')),
  model: t.string,
  models: strings,
  parallel_tool_calls: nullable(t.boolean),
  plugins: objects,
  presence_penalty: penalty,
  provider: object,
  reasoning: object,
  response_format: object,
  route: t.unknown,
  seed: nullable(integer),
  service_tier: nullable(t.string), // enum whose values the spec does not give
  session_id: sessionId,
  stop: Stop, // spec: "or any"; we accept what a stop can be, null meaning none
  stop_server_tools_when: objects,
  stream: t.boolean,
  stream_options: object,
  temperature: nullable(between(0, 2)),
  tool_choice: toolChoice, // enum values not given
  tools: objects,
  top_logprobs: nullable(integerBetween(0, 20)),
  top_p: nullable(between(0, 1)),
  trace: object,
  user: t.string,
});

export const codec = t.intersection([Required, Optional], 'chat-completions request');
export const fields = [...Object.keys(Required.props), ...Object.keys(Optional.props)];

const textOf = (content: t.TypeOf<typeof Content> | undefined): string => {
  if (typeof content === 'string') return content;
  return Array.isArray(content) ? content.filter(isTextPart).map((p) => p.text).join('\n\n') : '';
};

/** The content of the first system message; other roles (developer included) are conversation. */
export const decodeSystemPrompt = (body: unknown): E.Either<t.Errors, string> =>
  pipe(
    codec.decode(body),
    E.map((b) => textOf(b.messages.find((m) => m.role === 'system')?.content)),
  );
