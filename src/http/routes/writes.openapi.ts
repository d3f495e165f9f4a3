import * as chatCompletions from '../../formats/chatCompletions';
import * as messages from '../../formats/messages';
import * as responses from '../../formats/responses';
import { json, WRITE_ERRORS, written, type Operation, type Parameters, type Schemas } from '../operations';
import { DryRunAnswer } from './dryRun';

/** The operations of ./writes.ts (with ?dry_run, ./dryRun.ts): create or version a preset, one endpoint per format. */

const FORMATS = [
  [
    'chat/completions',
    'createPresetsChatCompletions',
    'ChatCompletionsRequest',
    'an OpenAI chat-completions body',
    'the first message whose role is system',
  ],
  [
    'messages',
    'createPresetsMessages',
    'MessagesRequest',
    'an Anthropic messages body',
    'system (a string, or text blocks joined with a blank line)',
  ],
  ['responses', 'createPresetsResponses', 'ResponsesRequest', 'an OpenAI responses body', 'instructions'],
] as const;

export const WRITE_OPERATIONS: Operation[] = FORMATS.map(([path, operationId, schema, body, system]): Operation => ({
  method: 'post',
  path: `/api/v1/presets/{slug}/${path}`,
  operationId,
  summary: `Create or version a preset from ${body}`,
  description:
    `Creates the preset (version 1) if the slug is new in the workspace, else adds the next version, which becomes the designated one. ` +
    `Accepts every body OpenRouter's reference accepts (within part 8 of the spec and the limits the reference states); keeps the fields that configure a model in config, ` +
    `as sent, a null meaning "not set"; the system prompt is ${system}. Other fields are ignored.`,
  tag: 'Presets',
  scope: 'presets:write',
  parameters: ['slug', 'If-Match', 'Preset-Note', 'dry_run'],
  requestBody: schema,
  answers: {
    ...written('Created (version 1) or versioned'),
    '200': {
      description:
        'Created (version 1) or versioned: the preset as this write left it; with ?dry_run=true, what a version would keep, and nothing stored.',
      content: json({ anyOf: [{ $ref: '#/components/schemas/PresetAnswer' }, { $ref: '#/components/schemas/DryRunAnswer' }] }),
      headers: [],
    },
  },
  errors: WRITE_ERRORS,
}));

export const WRITE_SCHEMAS: Schemas = [
  ['ChatCompletionsRequest', chatCompletions.codec],
  ['MessagesRequest', messages.codec],
  ['ResponsesRequest', responses.codec],
  ['DryRunAnswer', DryRunAnswer],
];

export const WRITE_PARAMETERS: Parameters = {
  dry_run: {
    name: 'dry_run',
    in: 'query',
    description: '`true`: validate and answer what a version would keep (config, system prompt, note), storing nothing.',
    schema: { type: 'string', enum: ['true', 'false'] },
  },
};
