import { API_ERRORS, json, notModified, WRITE_ERRORS, written, type Operation, type Parameters } from '../operations';

/** The operations of ./dotprompt.ts: a version as a Dotprompt file, and a version from one (docs/prompts-as-code.md). */

const FILE = { 'text/x-dotprompt': { type: 'string', description: 'A Dotprompt file: YAML front matter, then the template.' } };
const UNCHANGED = { type: 'object', required: ['unchanged'], properties: { unchanged: { type: 'boolean' } } };

export const DOTPROMPT_OPERATIONS: Operation[] = [
  {
    method: 'get',
    path: '/api/v1/presets/{slug}/dotprompt',
    operationId: 'getPresetDotprompt',
    tag: 'Presets',
    scope: 'presets:read',
    summary: 'Get a version of a preset as a Dotprompt file',
    description:
      'The designated version (or ?version=N, or the version ?label=L names) as a Dotprompt file: `model`, `config`, `input` (the variables, ' +
      'in Picoschema where it says exactly them, else JSON Schema; `input.default` their defaults), `output` (a JSON-schema response format), ' +
      '`metadata.presets` (slug, version, source and template format, tools, provider), then the template with a `{{role}}` marker before the ' +
      'system prompt and each message. POSTed back unchanged, it makes no version. A split label is a 409. Its ETag is the version id.',
    parameters: ['slug', 'dotprompt_version', 'dotprompt_label', 'If-None-Match'],
    answers: { '200': { description: 'The file.', content: FILE, headers: ['ETag'] }, ...notModified },
    errors: [...API_ERRORS, '404', '409'],
  },
  {
    method: 'post',
    path: '/api/v1/presets/{slug}/dotprompt',
    operationId: 'createPresetVersionFromDotprompt',
    tag: 'Presets',
    scope: 'presets:write',
    summary: 'Create or version a preset from a Dotprompt file',
    description:
      'Reads the file as `GET …/dotprompt` writes one and makes the version `POST …/versions` would make of its parts (the same checks). ' +
      'When that version is the designated one already (the same texts, template format, source format, and config, variables and messages ' +
      'as JSON), nothing is stored and the answer says `"unchanged": true`: a push is idempotent. A file that does not parse, or that makes ' +
      'no valid version, is a 400 whose errors name the field (`config.temperature`, `input.schema`, `template`) and, where known, the line.',
    parameters: ['slug', 'If-Match', 'Preset-Note', 'dry_run'],
    requestBody: { type: 'text/x-dotprompt', schema: FILE['text/x-dotprompt'] },
    answers: {
      ...written('Created (version 1) or versioned'),
      '200': {
        description:
          'The preset as this write left it, `"unchanged": false`; or as it is, `"unchanged": true`, when the file is its designated version; ' +
          'with ?dry_run=true, what the version would keep, and whether it is unchanged, nothing stored.',
        content: json({
          anyOf: [
            { allOf: [{ $ref: '#/components/schemas/PresetAnswer' }, UNCHANGED] },
            { allOf: [{ $ref: '#/components/schemas/DryRunAnswer' }, UNCHANGED] },
          ],
        }),
        headers: [],
      },
    },
    errors: WRITE_ERRORS,
  },
];

export const DOTPROMPT_PARAMETERS: Parameters = {
  dotprompt_version: {
    name: 'version',
    in: 'query',
    description: 'The version to answer (default: the designated one).',
    schema: { type: 'string', pattern: '^[1-9]\\d{0,8}$' },
  },
  dotprompt_label: {
    name: 'label',
    in: 'query',
    description: 'The label whose version to answer (not with version).',
    schema: { type: 'string' },
  },
};
