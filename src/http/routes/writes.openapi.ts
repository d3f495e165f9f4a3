import * as chatCompletions from '../../formats/chatCompletions';
import * as messages from '../../formats/messages';
import * as responses from '../../formats/responses';
import { json, WRITE_ERRORS, written, type Operation, type Parameters, type Schemas } from '../operations';
import { DryRunAnswer } from './dryRun';
import { VersionBody } from './versionBody';

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

const FORMAT_OPERATIONS: Operation[] = FORMATS.map(([path, operationId, schema, body, system]): Operation => ({
  method: 'post',
  path: `/api/v1/presets/{slug}/${path}`,
  operationId,
  summary: `Create or version a preset from ${body}`,
  description:
    `Creates the preset (version 1) if the slug is new in the workspace, else adds the next version, which becomes the designated one. ` +
    `Accepts every body OpenRouter's reference accepts (within part 8 of the spec and the limits the reference states); keeps the fields that configure a model in config, ` +
    `as sent, a null meaning "not set"; the system prompt is ${system}. Other fields are ignored. ` +
    'With ?template_format=handlebars the system prompt is a Handlebars template, filled in at resolve; its variables are inferred from it ' +
    '(docs/templates.md); a template that does not parse is a 400 naming its place.',
  tag: 'Presets',
  scope: 'presets:write',
  parameters: ['slug', 'If-Match', 'Preset-Note', 'dry_run', 'template_format'],
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

const VERSION_OPERATION: Operation = {
  method: 'post',
  path: '/api/v1/presets/{slug}/versions',
  operationId: 'createPresetVersion',
  summary: 'Create or version a preset from its parts: a templated version with typed variables, or a plain one',
  description:
    'Creates the preset (version 1) if the slug is new, else adds the next version, which becomes the designated one (unless the designation ' +
    "is protected). `config` holds the fields of `format`, checked by that format's codec as the inference-body endpoints check them. " +
    'With `template_format: "handlebars"` the system prompt and the messages (text, roles user and assistant) are Handlebars templates, ' +
    'rendered as Dotprompt renders them; `variables` is a JSON Schema (draft 2020-12, `"type": "object"`) of their inputs, inferred from ' +
    'the templates when absent, null for none. 400, naming the place: a template that does not parse or passes a bound, a schema that ' +
    'is not valid JSON Schema or passes a bound, a name a template reads that the schema does not declare, variables on a "none" version. ' +
    'All of it: docs/templates.md.',
  tag: 'Presets',
  scope: 'presets:write',
  parameters: ['slug', 'If-Match', 'Preset-Note', 'dry_run'],
  requestBody: 'CreateVersionRequest',
  answers: {
    ...written('Created (version 1) or versioned'),
    '200': {
      description:
        'Created (version 1) or versioned: the preset as this write left it; with ?dry_run=true, what the version would keep, and nothing stored.',
      content: json({ anyOf: [{ $ref: '#/components/schemas/PresetAnswer' }, { $ref: '#/components/schemas/DryRunAnswer' }] }),
      headers: [],
    },
  },
  errors: WRITE_ERRORS,
};

export const WRITE_OPERATIONS: Operation[] = [...FORMAT_OPERATIONS, VERSION_OPERATION];

export const WRITE_SCHEMAS: Schemas = [
  ['ChatCompletionsRequest', chatCompletions.codec],
  ['MessagesRequest', messages.codec],
  ['ResponsesRequest', responses.codec],
  ['DryRunAnswer', DryRunAnswer],
  ['CreateVersionRequest', VersionBody],
];

export const WRITE_PARAMETERS: Parameters = {
  dry_run: {
    name: 'dry_run',
    in: 'query',
    description: '`true`: validate and answer what a version would keep (config, system prompt, note), storing nothing.',
    schema: { type: 'string', enum: ['true', 'false'] },
  },
  template_format: {
    name: 'template_format',
    in: 'query',
    description:
      '`none` (the default, as OpenRouter stores a body: a `{{x}}` in the text stays literal) or `handlebars`: the system prompt is a ' +
      "Handlebars template filled in at resolve from the request's `prompt_variables`, its variables inferred from it (docs/templates.md).",
    schema: { type: 'string', enum: ['none', 'handlebars'] },
  },
};
