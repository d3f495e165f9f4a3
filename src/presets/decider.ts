import * as E from 'fp-ts/Either';
import type { SourceFormat } from './events';
import type { PresetEvent } from './events';

/**
 * The write side of a preset, as pure functions: `evolve` folds the preset's own events into
 * the little state a decision needs, `decide` turns a command into the next event.
 */
export type PresetState =
  | { status: 'absent' }
  | { status: 'active'; presetId: string; workspaceId: string; slug: string; lastVersion: number };

export const initialState = (): PresetState => ({ status: 'absent' });

export const evolve = (state: PresetState, event: PresetEvent): PresetState => {
  switch (event.type) {
    case 'PresetCreated':
      return {
        status: 'active',
        presetId: event.data.presetId,
        workspaceId: event.data.workspaceId,
        slug: event.data.slug,
        lastVersion: event.data.version.number,
      };
    case 'PresetVersionAdded':
      return state.status === 'active' ? { ...state, lastVersion: event.data.version.number } : state;
  }
};

/** Add a version to the preset named by workspace and slug, creating the preset if it is absent. */
export interface AddPresetVersion {
  type: 'AddPresetVersion';
  workspaceId: string;
  slug: string;
  actorUserId: string;
  sourceFormat: SourceFormat;
  config: Record<string, unknown>;
  systemPrompt: string;
  /** Identifiers and time are chosen by the caller, so `decide` stays pure and repeatable. */
  newPresetId: string;
  newVersionId: string;
  now: Date;
}

export type PresetCommand = AddPresetVersion;

export type DecisionError = { type: 'PresetInconsistent'; message: string };

export const decide = (command: PresetCommand, state: PresetState): E.Either<DecisionError, PresetEvent> => {
  const occurredAt = command.now.toISOString();
  const version = (number: number) => ({
    id: command.newVersionId,
    number,
    config: command.config,
    systemPrompt: command.systemPrompt,
    creatorId: command.actorUserId,
  });
  if (state.status === 'absent') {
    return E.right({
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
    });
  }
  if (state.workspaceId !== command.workspaceId || state.slug !== command.slug) {
    return E.left({ type: 'PresetInconsistent', message: 'stream belongs to another preset' });
  }
  return E.right({
    type: 'PresetVersionAdded',
    data: { presetId: state.presetId, version: version(state.lastVersion + 1), occurredAt },
  });
};
