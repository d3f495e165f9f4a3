import * as t from 'io-ts';
import * as E from 'fp-ts/Either';
import { pipe } from 'fp-ts/function';
import { withJsonSchema } from '../jsonSchema';
import {
  enumOf,
  finite,
  integer,
  limits,
  listOf,
  maxChars,
  nullable,
  object,
  objects,
  objectWith,
  oneOf,
  props,
  route,
  sessionId,
  strings,
} from './codecs';
import { plugins, stopServerToolsWhen } from './referenceLimits';

/**
 * Anthropic-style messages body: every field of OpenRouter's reference `MessagesRequest`, each
 * checked for its type and nullability, with the limits of spec part 8 (session_id, user) and
 * those the reference states (see referenceLimits.ts). `tools` has no binding limit: the
 * reference ends its tool variants with one that accepts any object with a string type.
 */

// Only text can become a system prompt; any other block is a problem, not silently dropped.
// Checking `text` only once `type` is "text" keeps an image block down to one problem, at its type.
const BlockType = t.type({ type: t.literal('text') });
const BlockText = t.type({ text: t.string });
type TextBlock = { type: 'text'; text: string };
const TextBlock = withJsonSchema(
  new t.Type<TextBlock, unknown, unknown>(
    'text block',
    (u): u is TextBlock => BlockType.is(u) && BlockText.is(u),
    (u, c) =>
      pipe(
        BlockType.validate(u, c),
        E.chain(() => BlockText.validate(u, c)),
        E.map(({ text }): TextBlock => ({ type: 'text', text })),
      ),
    t.identity,
  ),
  { type: 'object', properties: { type: { const: 'text' }, text: { type: 'string' } }, required: ['type', 'text'] },
);
const System = oneOf('string or list of text blocks', {
  string: t.string,
  array: listOf(TextBlock),
});

const Required = t.type({
  messages: nullable(objects),
  model: t.string,
});
const Optional = t.partial({
  cache_control: object,
  context_management: nullable(object),
  fallbacks: nullable(objects),
  max_tokens: integer,
  metadata: object,
  models: strings,
  output_config: objectWith(
    props({
      task_budget: props({ remaining: limits.number({ minimum: 0 }), total: limits.number({ minimum: 20000 }) }),
    }),
  ),
  plugins,
  provider: nullable(object),
  route,
  service_tier: t.string,
  session_id: sessionId,
  speed: nullable(enumOf('speed', ['fast', 'standard'])),
  stop_sequences: strings,
  stop_server_tools_when: stopServerToolsWhen,
  stream: t.boolean,
  system: System,
  temperature: finite,
  thinking: object,
  tool_choice: object,
  tools: objects,
  top_k: integer,
  top_p: finite,
  trace: object,
  user: maxChars(256),
});

export const codec = t.intersection([Required, Optional], 'messages request');
export const fields = [...Object.keys(Required.props), ...Object.keys(Optional.props)];
/** Each field's own codec: what a value must be to stand in that field. */
export const fieldCodecs: Readonly<Record<string, t.Mixed>> = { ...Required.props, ...Optional.props };

const textOf = (system: t.TypeOf<typeof System> | undefined): string =>
  typeof system === 'string' ? system : Array.isArray(system) ? system.map((b) => b.text).join('\n\n') : '';

export const decodeSystemPrompt = (body: unknown): E.Either<t.Errors, string> =>
  pipe(
    codec.decode(body),
    E.map((b) => textOf(b.system)),
  );
