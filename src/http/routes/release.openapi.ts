import { movedOrProposed, WRITE_ERRORS as ERRORS_OF_WRITES, type Operation, type Parameters, type Schemas } from '../operations';
import { ProposalAnswer, ProtectionBody } from './release';

/** Release control and OpenRouter's restore in the OpenAPI document (openapi.ts spreads these). */
export const RELEASE_SCHEMAS: Schemas = [
  ['ProtectionRequest', ProtectionBody],
  ['ProposalAnswer', ProposalAnswer],
];

export const RELEASE_PARAMETERS: Parameters = {
  proposalId: { name: 'proposal', in: 'path', required: true, description: "The proposal's id.", schema: { type: 'string' } },
};

const WRITE_ERRORS = [...ERRORS_OF_WRITES, '404'] as const;
/** Every write here answers like a label move: 200, or 202 (pending, or the proposal a move became). */
const written = movedOrProposed;

const protection = (path: string, operationId: string, what: string): Operation => ({
  method: 'put',
  path,
  operationId,
  tag: 'Presets',
  scope: 'presets:release',
  summary: `Protect ${what}`,
  description:
    `{"protected": true, "approvals": 0, 1 or 2}: from now on only a key with presets:release may change ${what}, and with approvals N > 0 a move, ` +
    'a removal and a status change of its preset become proposals that N other people must approve. {"protected": false} lifts it. Stored as ' +
    'PresetLabelProtected. Raising a protection applies at once; lowering or lifting one that needs approvals is itself a proposal (202) needing them.',
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
      'a disabled one is a 409 (metadata.reason "preset_disabled"). Under release control as any status change: presets:release, and a proposal (202) ' +
      'when a label or the designation is protected with approvals.',
    parameters: ['slug', 'If-Match', 'Preset-Note'],
    answers: written('Restored'),
    errors: [...WRITE_ERRORS],
  },
  protection('/api/v1/presets/{slug}/labels/{label}/protection', 'protectPresetLabel', 'a label'),
  protection('/api/v1/presets/{slug}/designation/protection', 'protectPresetDesignation', 'the designated version'),
  step(
    'approve',
    'Approve a proposal',
    "Counts one approval of a person other than the proposer: a key the proposer made (or one made from it), and the key that made the proposer's, " +
      'count as the proposer (403); a second approval of one person is a 409. The last approval needed applies the change (PresetLabelMoved, ' +
      'PresetVersionDesignated, PresetLabelRemoved, PresetLabelProtected or PresetStatusChanged, naming the proposal). A proposal whose target changed ' +
      'since it was made is a 409 (metadata.reason "proposal_stale").',
  ),
  step('reject', 'Reject a proposal', 'Closes the proposal (LabelMoveRejected); the label stays.'),
  step('withdraw', 'Withdraw a proposal', "The proposer's own: closes it (LabelMoveWithdrawn). Anyone else is a 403."),
];
