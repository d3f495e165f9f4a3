import * as E from 'fp-ts/Either';
import type { PresetEvent, PresetStatus } from './events';
import type { Decision, DecisionError, PresetCommand } from './commands';
import { labelledVersion, labelSplit, type Existing } from './state';

/** The events and rejections several of the preset decider's decisions make (./decider.ts). */

export const noted = (note: string | undefined) => (note === undefined ? {} : { note });

export const archived = (state: Existing, what: string): Decision =>
  E.left({
    type: 'PresetArchived',
    kind: 'conflict',
    reason: 'preset_archived',
    message: `preset ${JSON.stringify(state.slug)} is archived: ${what} is refused; restore it first (POST /api/v1/presets/${state.slug}/restore)`,
  });

/** The id of version `number`, or a rejection naming what is missing. */
export const existingVersion = (state: Existing, number: number): E.Either<DecisionError, string> => {
  const id = Number.isInteger(number) ? state.versionIds[number - 1] : undefined;
  return id === undefined
    ? E.left({ type: 'VersionNotFound', kind: 'not_found', message: `preset ${JSON.stringify(state.slug)} has no version ${number}` })
    : E.right(id);
};

export const moved = (
  state: Existing,
  label: string | null,
  version: number,
  versionId: string,
  occurredAt: string,
  note?: string,
  proposalId?: string,
): PresetEvent => {
  const by = proposalId === undefined ? {} : { proposalId };
  return label === null
    ? {
        type: 'PresetVersionDesignated',
        data: {
          presetId: state.presetId,
          versionId,
          versionNumber: version,
          previousVersionNumber: state.designatedVersion,
          occurredAt,
          ...noted(note),
          ...by,
        },
      }
    : {
        type: 'PresetLabelMoved',
        data: {
          presetId: state.presetId,
          label,
          versionNumber: version,
          versionId,
          previousVersionNumber: labelledVersion(state.labels, label) ?? null,
          ...previousSplit(state, label),
          occurredAt,
          ...noted(note),
          ...by,
        },
      };
};

/** Moving a split label to one version ends the split: the event says which split it was. */
export const previousSplit = (state: Existing, label: string) => {
  const split = labelSplit(state, label);
  return split ? { previousVersions: split } : {};
};

export const statusChanged = (command: PresetCommand, state: Existing, status: PresetStatus): PresetEvent => ({
  type: 'PresetStatusChanged',
  data: {
    presetId: state.presetId,
    status,
    previousStatus: state.status,
    occurredAt: command.metadata.now.toISOString(),
    ...noted(command.data.note),
  },
});

export const disabled = (state: Existing, what: string): Decision =>
  E.left({
    type: 'PresetDisabled',
    kind: 'conflict',
    reason: 'preset_disabled',
    message: `preset ${JSON.stringify(state.slug)} is disabled: ${what} is refused; set its status to active first (PATCH {"status":"active"})`,
  });
