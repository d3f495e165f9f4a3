import type * as t from 'io-ts';
import type { JsonSchema } from '../../jsonSchema';
import type { Operation } from '../openapi';
import { ProposalAnswer, ProtectionBody } from './release';

/** Release control and OpenRouter's restore in the OpenAPI document (openapi.ts spreads these). */
export const RELEASE_SCHEMAS: ReadonlyArray<[string, t.Any]> = [
  ['ProtectionRequest', ProtectionBody],
  ['ProposalAnswer', ProposalAnswer],
];

export const RELEASE_PARAMETERS: Record<string, JsonSchema> = {
  proposalId: { name: 'proposal', in: 'path', required: true, description: "The proposal's id.", schema: { type: 'string' } },
  include_archived: {
    name: 'include_archived',
    in: 'query',
    description:
      '`true`: answer an archived preset too (by default it is a 404 with metadata.reason "preset_archived", as OpenRouter answers).',
    schema: { type: 'string', enum: ['true', 'false'], default: 'false' },
  },
  workspace_id: {
    name: 'workspace_id',
    in: 'query',
    description:
      'The workspace to act in, one the key holds (a 403 otherwise); writes may give it as a `workspace_id` field of the JSON body instead. ' +
      "Default: the key's first workspace.",
    schema: { type: 'string', format: 'uuid' },
  },
};

const WRITE_ERRORS = ['400', '401', '403', '404', '409', '412', '413', '415', '429', '500', '503'] as const;
const written = (what: string): Operation['answers'] => ({
  '200': {
    description: `${what}: the preset as this write left it, read from the read model.`,
    content: { 'application/json': 'PresetAnswer' },
    headers: ['ETag', 'Location'],
  },
  '202': {
    description: 'The write happened but the read model has not shown it yet (poll Location); or, for a move, the proposal it became.',
    content: {
      'application/json': { anyOf: [{ $ref: '#/components/schemas/PendingWrite' }, { $ref: '#/components/schemas/ProposalAnswer' }] },
    },
    headers: ['Location'],
  },
});

const protection = (path: string, operationId: string, what: string): Operation => ({
  method: 'put',
  path,
  operationId,
  tag: 'Presets',
  scope: 'presets:release',
  summary: `Protect ${what}`,
  description:
    `{"protected": true, "approvals": 0, 1 or 2}: from now on only a key with presets:release may change ${what}, and with approvals N > 0 a move ` +
    'becomes a proposal that N users other than the proposer must approve. {"protected": false} lifts it. Stored as PresetLabelProtected.',
  parameters: path.includes('{label}') ? ['slug', 'label', 'If-Match', 'Preset-Note'] : ['slug', 'If-Match', 'Preset-Note'],
  requestBody: 'ProtectionRequest',
  answers: written('Protected'),
  errors: [...WRITE_ERRORS],
});

const step = (name: 'approve' | 'reject' | 'withdraw', summary: string, description: string): Operation => ({
  method: 'post',
  path: `/api/v1/presets/{slug}/proposals/{proposal}/${name}`,
  operationId: `${name}Proposal`,
  tag: 'Presets',
  scope: name === 'withdraw' ? 'presets:write' : 'presets:release',
  summary,
  description,
  parameters: ['slug', 'proposalId', 'If-Match', 'Preset-Note'],
  answers: written(summary),
  errors: [...WRITE_ERRORS],
});

export const RELEASE_OPERATIONS: Operation[] = [
  {
    method: 'post',
    path: '/api/v1/presets/{slug}/restore',
    operationId: 'restorePreset',
    tag: 'Presets',
    scope: 'presets:write',
    summary: 'Restore an archived preset',
    description:
      "OpenRouter's restore: archived → active, with no new version and the designated version unchanged. An active preset answers unchanged; " +
      'a disabled one is a 409 (metadata.reason "preset_disabled").',
    parameters: ['slug', 'If-Match', 'Preset-Note'],
    answers: written('Restored'),
    errors: [...WRITE_ERRORS],
  },
  protection('/api/v1/presets/{slug}/labels/{label}/protection', 'protectPresetLabel', 'a label'),
  protection('/api/v1/presets/{slug}/designation/protection', 'protectPresetDesignation', 'the designated version'),
  step(
    'approve',
    'Approve a proposal',
    'Counts one approval of a user other than the proposer (the proposer is a 403, a second approval of one user a 409); the last approval needed ' +
      'moves the label (PresetLabelMoved naming the proposal). A proposal whose label moved since it was made is a 409 (metadata.reason "proposal_stale").',
  ),
  step('reject', 'Reject a proposal', 'Closes the proposal (LabelMoveRejected); the label stays.'),
  step('withdraw', 'Withdraw a proposal', "The proposer's own: closes it (LabelMoveWithdrawn). Anyone else is a 403."),
];
