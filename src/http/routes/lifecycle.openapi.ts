import { movedOrProposed, WRITE_ERRORS, type Operation, type Parameters, type Schemas } from '../operations';
import { LABEL, PatchBody, PutLabelBody, RESERVED_LABELS } from './lifecycle';

/** The operations of ./lifecycle.ts: a preset's name, description and status, archiving, and its labels. */
export const LIFECYCLE_OPERATIONS: Operation[] = [
  {
    method: 'patch',
    path: '/api/v1/presets/{slug}',
    operationId: 'updatePreset',
    tag: 'Presets',
    scope: 'presets:write',
    summary: "Change a preset's name, description or status",
    description:
      'Any of name, description and status; another field is a 400. Only what differs is stored (PresetDetailsChanged, PresetStatusChanged); ' +
      'a change that changes nothing stores nothing. `archived` hides the preset from the default list and freezes it until it is set back. ' +
      'A status change of a preset with a protected label or designation needs presets:release (else 403, metadata.reason "protected"), and ' +
      'becomes a proposal (202, PresetChangeProposed) when any of them is protected with approvals: it needs the most approvals any of them needs.',
    parameters: ['slug', 'If-Match', 'Preset-Note'],
    requestBody: 'PresetChanges',
    answers: movedOrProposed('Changed'),
    errors: [...WRITE_ERRORS, '404'],
  },
  {
    method: 'delete',
    path: '/api/v1/presets/{slug}',
    operationId: 'archivePreset',
    tag: 'Presets',
    scope: 'presets:write',
    summary: 'Archive a preset',
    description:
      "OpenRouter's delete: archives (events are never erased, and the slug stays taken); the preset is then hidden from the get and the list. " +
      'Deleting an archived preset answers 200 again; deleting a disabled one is a 409 (metadata.reason "preset_disabled"). ' +
      'A preset with a protected label or designation is archived only with presets:release, and as a proposal (202) when any is protected with approvals.',
    parameters: ['slug', 'If-Match', 'Preset-Note'],
    answers: movedOrProposed('Archived'),
    errors: [...WRITE_ERRORS, '404'],
  },
  {
    method: 'put',
    path: '/api/v1/presets/{slug}/labels/{label}',
    operationId: 'movePresetLabel',
    tag: 'Presets',
    scope: 'presets:write',
    summary: 'Point a label at a version',
    description:
      'Creates the label, or moves it (PresetLabelMoved names the version it named before); moving it to the version it names stores nothing. ' +
      'With {"split": [{"version", "weight"}, …]} instead, splits it between 2–10 versions by relative weight (PresetLabelSplit); moving it to one version ends the split. ' +
      'Refused (409) while the preset is archived. A protected label is moved or split only with presets:release (else 403, metadata.reason "protected"); ' +
      'protected with approvals, a move becomes a proposal (202) and a split is refused (409, "label_protected_split").',
    parameters: ['slug', 'label', 'If-Match', 'Preset-Note'],
    requestBody: 'LabelRequest',
    answers: movedOrProposed('Moved'),
    errors: [...WRITE_ERRORS, '404'],
  },
  {
    method: 'delete',
    path: '/api/v1/presets/{slug}/labels/{label}',
    operationId: 'removePresetLabel',
    tag: 'Presets',
    scope: 'presets:write',
    summary: 'Remove a label',
    description:
      'PresetLabelRemoved names the version the label named. Refused (409) while the preset is archived. A protected label is removed only with ' +
      'presets:release (else 403); protected with approvals, the removal is a proposal (202, PresetChangeProposed) needing those approvals.',
    parameters: ['slug', 'label', 'If-Match', 'Preset-Note'],
    answers: movedOrProposed('Removed'),
    errors: [...WRITE_ERRORS, '404'],
  },
];

export const LIFECYCLE_SCHEMAS: Schemas = [
  ['PresetChanges', PatchBody],
  ['LabelRequest', PutLabelBody],
];

export const LIFECYCLE_PARAMETERS: Parameters = {
  label: {
    name: 'label',
    in: 'path',
    required: true,
    description: 'A label: 1–36 characters of a–z 0–9 _ . -, starting with a letter or digit; `latest` is reserved.',
    schema: { type: 'string', pattern: LABEL.source, not: { enum: RESERVED_LABELS } },
  },
};
