import * as t from 'io-ts';
import * as E from 'fp-ts/Either';
import { pipe } from 'fp-ts/function';
import { finite, maxChars, nullable, object, objects, oneOf, sessionId, strings, tokenCount, listOf } from './codecs';

/** Anthropic-style messages body (spec 4.2). Part 8 gives it only the session_id and user limits. */

// Only text can become a system prompt; any other block is a problem, not silently dropped.
// Checking `text` only once `type` is "text" keeps an image block down to one problem, at its type.
const BlockType = t.type({ type: t.literal('text') });
const BlockText = t.type({ text: t.string });
type TextBlock = { type: 'text'; text: string };
const TextBlock = new t.Type<TextBlock, unknown, unknown>(
  'text block',
  (u): u is TextBlock => BlockType.is(u) && BlockText.is(u),
  (u, c) =>
    pipe(
      BlockType.validate(u, c),
      E.chain(() => BlockText.validate(u, c)),
      E.map(({ text }): TextBlock => ({ type: 'text', text })),
    ),
  t.identity,
);
// The spec types system as string or list; null is accepted as "no system prompt", like elsewhere.
const System = oneOf('string, list of text blocks, or null', {
  string: t.string,
  array: listOf(TextBlock),
  null: t.null,
});

const Required = t.type({
  messages: nullable(objects),
  model: t.string,
});
const Optional = t.partial({
  cache_control: object,
  context_management: nullable(object),
  max_tokens: tokenCount,
  metadata: object,
  models: strings,
  output_config: object,
  plugins: objects,
  provider: object,
  route: t.unknown,
  service_tier: t.string,
  session_id: sessionId,
  speed: t.string, // enum whose values the spec does not give
  stop_sequences: strings,
  stop_server_tools_when: objects,
  stream: t.boolean,
  system: System,
  temperature: finite,
  thinking: object,
  tool_choice: object,
  tools: objects,
  top_k: tokenCount,
  top_p: finite,
  trace: object,
  user: maxChars(256),
});

export const codec = t.intersection([Required, Optional], 'messages request');
export const fields = [...Object.keys(Required.props), ...Object.keys(Optional.props)];

const textOf = (system: t.TypeOf<typeof System> | undefined): string =>
  typeof system === 'string' ? system : Array.isArray(system) ? system.map((b) => b.text).join('\n\n') : '';

export const decodeSystemPrompt = (body: unknown): E.Either<t.Errors, string> =>
  pipe(codec.decode(body), E.map((b) => textOf(b.system)));
