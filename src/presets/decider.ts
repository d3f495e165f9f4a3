import * as E from 'fp-ts/Either';
import type { Decider } from '../eventstore/decider';
import type { PresetEvent } from './events';

/**
 * The write side of a preset, as pure functions (`presetDecider` at the end): `evolve` folds the
 * preset's own events into the little state a decision needs, `decide` turns a command into the
 * events to append (none when the command changes nothing).
 */
export type PresetState =
  | { status: 'absent' }
  | {
      status: 'active';
      presetId: string;
      workspaceId: string;
      slug: string;
      /** Version ids by number − 1; numbers are gapless from 1. */
      versionIds: string[];
      designatedVersion: number;
    };

export const initialState = (): PresetState => ({ status: 'absent' });

export const evolve = (state: PresetState, event: PresetEvent): PresetState => {
  switch (event.type) {
    case 'PresetCreated':
      return {
        status: 'active',
        presetId: event.data.presetId,
        workspaceId: event.data.workspaceId,
        slug: event.data.slug,
        versionIds: [event.data.version.id],
        designatedVersion: event.data.version.number,
      };
    case 'PresetVersionAdded':
      // A new version becomes the designated one.
      return state.status === 'active'
        ? { ...state, versionIds: [...state.versionIds, event.data.version.id], designatedVersion: event.data.version.number }
        : state;
    case 'PresetVersionDesignated':
      return state.status === 'active' ? { ...state, designatedVersion: event.data.versionNumber } : state;
  }
};

interface CommandBase {
  workspaceId: string;
  slug: string;
  actorUserId: string;
  /** Time is chosen by the caller, so `decide` stays pure and repeatable. */
  now: Date;
}

/** Add a version to the preset named by workspace and slug, creating the preset if it is absent. */
export interface AddPresetVersion extends CommandBase {
  type: 'AddPresetVersion';
  config: Record<string, unknown>;
  systemPrompt: string;
  newPresetId: string;
  newVersionId: string;
}

/** Make an existing version the designated one (a rollback, or a roll forward). */
export interface DesignateVersion extends CommandBase {
  type: 'DesignateVersion';
  version: number;
}

export type PresetCommand = AddPresetVersion | DesignateVersion;

export type DecisionError =
  | { type: 'PresetNotFound'; message: string }
  | { type: 'VersionNotFound'; message: string }
  | { type: 'PresetInconsistent'; message: string };

export const decide = (command: PresetCommand, state: PresetState): E.Either<DecisionError, PresetEvent[]> => {
  if (state.status === 'active' && (state.workspaceId !== command.workspaceId || state.slug !== command.slug)) {
    return E.left({ type: 'PresetInconsistent', message: 'stream belongs to another preset' });
  }
  return command.type === 'AddPresetVersion' ? E.right([addVersion(command, state)]) : designate(command, state);
};

const addVersion = (command: AddPresetVersion, state: PresetState): PresetEvent => {
  const occurredAt = command.now.toISOString();
  const version = (number: number) => ({
    id: command.newVersionId,
    number,
    config: command.config,
    systemPrompt: command.systemPrompt,
    creatorId: command.actorUserId,
  });
  if (state.status === 'absent') {
    return {
      type: 'PresetCreated',
      data: {
        presetId: command.newPresetId,
        workspaceId: command.workspaceId,
        slug: command.slug,
        name: command.slug,
        creatorUserId: command.actorUserId,
        version: version(1),
        occurredAt,
      },
    };
  }
  return {
    type: 'PresetVersionAdded',
    data: { presetId: state.presetId, version: version(state.versionIds.length + 1), occurredAt },
  };
};

const designate = (command: DesignateVersion, state: PresetState): E.Either<DecisionError, PresetEvent[]> => {
  if (state.status === 'absent') return E.left({ type: 'PresetNotFound', message: `no preset ${JSON.stringify(command.slug)}` });
  const versionId = state.versionIds[command.version - 1];
  if (!Number.isInteger(command.version) || versionId === undefined) {
    return E.left({ type: 'VersionNotFound', message: `preset ${JSON.stringify(command.slug)} has no version ${command.version}` });
  }
  // Designating the designated version again changes nothing: no event.
  if (command.version === state.designatedVersion) return E.right([]);
  return E.right([{
    type: 'PresetVersionDesignated',
    data: {
      presetId: state.presetId,
      versionId,
      versionNumber: command.version,
      previousVersionNumber: state.designatedVersion,
      occurredAt: command.now.toISOString(),
    },
  }]);
};

export const presetDecider: Decider<PresetState, PresetCommand, PresetEvent, DecisionError> = { decide, evolve, initialState };
