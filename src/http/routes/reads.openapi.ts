import { API_ERRORS, json, notModified, VERSION_PATTERN, type Operation, type Parameters, type Schemas } from '../operations';
import { PresetList, VersionAnswer, VersionList } from '../schemas';
import { DEFAULT_LIMIT, FEED_POSITION_HEADER, MAX_LIMIT } from './reads';

/** The operations of ./reads.ts: the list of presets, a preset, its versions and one version. */
export const READ_OPERATIONS: Operation[] = [
  {
    method: 'get',
    path: '/api/v1/presets',
    operationId: 'listPresets',
    tag: 'Presets',
    scope: 'presets:read',
    summary: 'List presets',
    description: "The workspace's presets, most recently updated first.",
    parameters: ['offset', 'limit', 'status', 'q'],
    answers: {
      '200': {
        description: 'A page of presets and how many the filter lists.',
        content: json('PresetList'),
        headers: [FEED_POSITION_HEADER],
      },
    },
    errors: API_ERRORS,
  },
  {
    method: 'get',
    path: '/api/v1/presets/{slug}',
    operationId: 'getPreset',
    tag: 'Presets',
    scope: 'presets:read',
    summary: 'Get a preset',
    description:
      'One preset with its designated version. The ETag is its stream revision, for If-Match (writes) and If-None-Match (304). ' +
      'An archived preset is a 404 (metadata.reason "preset_archived") unless include_archived=true.',
    parameters: ['slug', 'as_of', 'If-None-Match', 'include_archived'],
    answers: { '200': { description: 'The preset.', content: json('PresetAnswer'), headers: ['ETag'] }, ...notModified },
    errors: [...API_ERRORS, '404'],
  },
  {
    method: 'get',
    path: '/api/v1/presets/{slug}/versions',
    operationId: 'listPresetVersions',
    tag: 'Presets',
    scope: 'presets:read',
    summary: "List a preset's versions",
    description: "Its versions, ascending. The ETag is the preset's stream revision: the list changes only with it.",
    parameters: ['slug', 'offset', 'limit', 'as_of', 'If-None-Match'],
    answers: {
      '200': { description: 'A page of versions and how many there are.', content: json('VersionList'), headers: ['ETag'] },
      ...notModified,
    },
    errors: [...API_ERRORS, '404'],
  },
  {
    method: 'get',
    path: '/api/v1/presets/{slug}/versions/{version}',
    operationId: 'getPresetVersion',
    tag: 'Presets',
    scope: 'presets:read',
    summary: 'Get one version of a preset',
    description: 'One version, by its number. A version never changes: its ETag is its id.',
    parameters: ['slug', 'version', 'as_of', 'If-None-Match'],
    answers: { '200': { description: 'The version.', content: json('VersionAnswer'), headers: ['ETag'] }, ...notModified },
    errors: [...API_ERRORS, '404'],
  },
];

export const READ_SCHEMAS: Schemas = [
  ['PresetList', PresetList],
  ['VersionAnswer', VersionAnswer],
  ['VersionList', VersionList],
];

export const READ_PARAMETERS: Parameters = {
  include_archived: {
    name: 'include_archived',
    in: 'query',
    description:
      '`true`: answer an archived preset too (by default it is a 404 with metadata.reason "preset_archived", as OpenRouter answers).',
    schema: { type: 'string', enum: ['true', 'false'], default: 'false' },
  },
  version: {
    name: 'version',
    in: 'path',
    required: true,
    description: 'A version number, from 1.',
    schema: { type: 'string', pattern: VERSION_PATTERN },
  },
  status: {
    name: 'status',
    in: 'query',
    description: 'Which presets: active and disabled by default; one status, or all.',
    schema: { type: 'string', enum: ['active', 'disabled', 'archived', 'all'] },
  },
  q: {
    name: 'q',
    in: 'query',
    description: 'Only presets whose slug or name contains this text, ignoring case.',
    schema: { type: 'string' },
  },
  offset: {
    name: 'offset',
    in: 'query',
    description: 'Items to skip.',
    schema: { type: 'integer', minimum: 0, maximum: 999_999_999, default: 0 },
  },
  limit: {
    name: 'limit',
    in: 'query',
    description: 'Items per page.',
    schema: { type: 'integer', minimum: 1, maximum: MAX_LIMIT, default: DEFAULT_LIMIT },
  },
};
