import * as t from 'io-ts';
import * as E from 'fp-ts/Either';
import { pipe } from 'fp-ts/function';
import {
  between,
  enumOf,
  finite,
  imageConfig,
  integer,
  integerBetween,
  limits,
  listOf,
  metadata,
  named,
  nullable,
  object,
  objectWith,
  props,
  oneOf,
  refine,
  route,
  sessionId,
  strings,
  toolChoice,
  variants,
} from './codecs';
import { plugins, serverTools, stopServerToolsWhen, toolList } from './referenceLimits';

/**
 * OpenAI-style chat-completions body: every field of OpenRouter's reference `ChatRequest`, each
 * checked for its type and nullability, with the limits of spec part 8 and those the reference
 * states (see referenceLimits.ts). Inner shapes are not checked beyond those limits.
 */

const isTextPart = (p: Record<string, unknown>): p is { type: 'text'; text: string } => p.type === 'text' && typeof p.text === 'string';
// A text part without a string text would silently drop from system_prompt: reject it instead.
const ContentPart = refine(object, (p) => p.type !== 'text' || isTextPart(p), 'content part (a text part needs a string text)', {
  if: { properties: { type: { const: 'text' } }, required: ['type'] },
  then: { properties: { text: { type: 'string' } }, required: ['text'] },
});
const Content = oneOf('string, list of content parts, or null', {
  string: t.string,
  array: listOf(ContentPart),
  null: t.null,
});
const Message = t.intersection([t.type({ role: t.string }), t.partial({ content: Content })], 'message');

const penalty = nullable(between(-2, 2));
const Stop = oneOf('string, list of at most 4 strings, or null', {
  string: t.string,
  array: refine(strings, (s) => s.length <= 4, 'list of at most 4 strings', { maxItems: 4 }),
  null: t.null,
});
const effort = ['max', 'xhigh', 'high', 'medium', 'low', 'minimal', 'none'] as const;

// The reference asks for at least one message; an empty list is accepted, as it always was here
// (the conversation is never stored): the one deliberate leniency.
const Required = t.type({ messages: named('list of messages', listOf(Message)) });
const Optional = t.partial({
  cache_control: object,
  debug: object,
  frequency_penalty: penalty,
  image_config: imageConfig,
  logit_bias: nullable(named('map of token to number', t.record(t.string, finite))),
  logprobs: nullable(t.boolean),
  max_completion_tokens: nullable(integer),
  // Spec: "some providers enforce a minimum of 16" for max_tokens. A provider's rule, not ours.
  max_tokens: nullable(integer),
  metadata: metadata(false),
  min_p: nullable(finite),
  modalities: listOf(enumOf('modality', ['text', 'image', 'audio'])),
  model: t.string,
  models: strings,
  parallel_tool_calls: nullable(t.boolean),
  plugins,
  prediction: nullable(object),
  presence_penalty: penalty,
  prompt_cache_key: nullable(t.string),
  prompt_cache_options: nullable(object),
  provider: nullable(object),
  reasoning: object,
  reasoning_effort: nullable(enumOf('reasoning effort', effort)),
  repetition_penalty: nullable(finite),
  response_format: objectWith(
    variants('type', {
      json_schema: props({ json_schema: props({ name: limits.string({ maxLength: 64 }) }) }),
    }),
  ),
  route,
  seed: nullable(integer),
  service_tier: nullable(enumOf('service tier', ['auto', 'default', 'fast', 'flex', 'priority', 'scale'])),
  session_id: sessionId,
  stop: Stop,
  stop_server_tools_when: stopServerToolsWhen,
  stream: t.boolean,
  stream_options: nullable(object),
  temperature: nullable(between(0, 2)),
  tool_choice: toolChoice,
  tools: toolList({
    function: props({ function: props({ name: limits.string({ maxLength: 64 }) }) }),
    ...serverTools,
  }),
  top_a: nullable(finite),
  top_k: nullable(integer),
  top_logprobs: nullable(integerBetween(0, 20)),
  top_p: nullable(between(0, 1)),
  trace: object,
  user: t.string,
});

export const codec = t.intersection([Required, Optional], 'chat-completions request');
export const fields = [...Object.keys(Required.props), ...Object.keys(Optional.props)];
/** Each field's own codec: what a value must be to stand in that field. */
export const fieldCodecs: Readonly<Record<string, t.Mixed>> = { ...Required.props, ...Optional.props };

const textOf = (content: t.TypeOf<typeof Content> | undefined): string => {
  if (typeof content === 'string') return content;
  return Array.isArray(content)
    ? content
        .filter(isTextPart)
        .map((p) => p.text)
        .join('\n\n')
    : '';
};

/** The content of the first system message; other roles (developer included) are conversation. */
export const decodeSystemPrompt = (body: unknown): E.Either<t.Errors, string> =>
  pipe(
    codec.decode(body),
    E.map((b) => textOf(b.messages.find((m) => m.role === 'system')?.content)),
  );
