import { DroppedField, RESOLVE_ANSWER_CODECS, RESOLVE_REQUEST_CODECS, ResolvedPreset } from '../../resolve/codecs';
import { json, type Operation, type Schemas } from '../operations';

/** The operations of ./resolve.ts: using a preset, one endpoint per format; nothing is stored. */

const RESOLVE = [
  [
    'chat/completions',
    'resolveChatCompletions',
    'ResolveChatCompletionsRequest',
    'ChatCompletionsResolveAnswer',
    'an OpenAI chat-completions request',
    'a leading system message',
  ],
  ['messages', 'resolveMessages', 'ResolveMessagesRequest', 'MessagesResolveAnswer', 'an Anthropic messages request', 'system'],
  ['responses', 'resolveResponses', 'ResolveResponsesRequest', 'ResponsesResolveAnswer', 'an OpenAI responses request', 'instructions'],
] as const;

export const RESOLVE_OPERATIONS: Operation[] = RESOLVE.map(([path, operationId, request, answer, body, system]): Operation => ({
  method: 'post',
  path: `/api/v1/resolve/${path}`,
  operationId,
  tag: 'Presets',
  scope: 'presets:read',
  summary: `Resolve ${body} that names a preset`,
  description:
    'The body names a preset as OpenRouter does: "model": "@preset/<slug>" (the preset supplies the model), "<model>@preset/<slug>" (the model given wins), ' +
    'or "preset": "<slug>" beside the body\'s own model; after the slug, @<n> pins a version, @latest the newest, @<label> a label (default: the designated version). ' +
    "The answer is the request to send: the version's config, translated to this format, under the body (a top-level field the body sets wins; tools are merged by identity), " +
    `its system prompt as ${system} unless the body has one. What could not be translated is listed in dropped. ` +
    'A templated version (template_format "handlebars") is filled in first with the values of prompt_variables' +
    (path === 'responses' ? ', or of OpenAI\'s "prompt": {"id", "version", "variables"} (which names the preset too)' : '') +
    ", checked against its variables schema with defaults applied; its messages go before the body's own; prompt_variables" +
    (path === 'responses' ? ' and prompt never reach' : ' never reaches') +
    ' the request, and unused_variables lists the names given that the version does not declare (docs/templates.md). ' +
    "400: the body names no preset, names one malformed, or is not a valid request of its format; the values do not fit the version's schema " +
    '(metadata.reason "variables_invalid", metadata.errors[].path such as $.prompt_variables.language), or its render passes a bound ' +
    '("template_runaway", "template_output_too_large", "template_failed"); 404: no such preset, version or label; ' +
    '409: the preset is disabled or archived, or the version\'s stored template cannot be rendered ("template_invalid").',
  parameters: ['Preset-Split-Key'],
  requestBody: request,
  answers: { '200': { description: 'The request to send, the version used and what was dropped on the way.', content: json(answer) } },
  errors: ['400', '401', '403', '404', '409', '413', '415', '429', '500'],
}));

export const RESOLVE_SCHEMAS: Schemas = [
  ['ResolveChatCompletionsRequest', RESOLVE_REQUEST_CODECS.chat_completions],
  ['ResolveMessagesRequest', RESOLVE_REQUEST_CODECS.messages],
  ['ResolveResponsesRequest', RESOLVE_REQUEST_CODECS.responses],
  ['ChatCompletionsResolveAnswer', RESOLVE_ANSWER_CODECS.chat_completions],
  ['MessagesResolveAnswer', RESOLVE_ANSWER_CODECS.messages],
  ['ResponsesResolveAnswer', RESOLVE_ANSWER_CODECS.responses],
  ['ResolvedPreset', ResolvedPreset],
  ['DroppedField', DroppedField],
];
