import * as E from 'fp-ts/Either';
import type { Decider } from '../eventstore/decider';
import type { PresetEvent, PresetStatus, SplitShare } from './events';

/**
 * The write side of a preset, as pure functions (`presetDecider` at the end): `evolve` folds the
 * preset's own events into the little state a decision needs, `decide` turns a command into the
 * events to append (none when the command changes nothing) or a rejection.
 */
export type PresetState =
  | { exists: false }
  | {
      exists: true;
      presetId: string;
      workspaceId: string;
      slug: string;
      name: string;
      description: string | null;
      status: PresetStatus;
      /** Version ids by number − 1; numbers are gapless from 1. */
      versionIds: string[];
      designatedVersion: number;
      /** Label → version number, for a label that names one version. */
      labels: Record<string, number>;
      /** Label → its shares, ascending by version, for a split label (a label is in `labels` or here, never both). */
      splits: Record<string, SplitShare[]>;
    };

export const initialState = (): PresetState => ({ exists: false });

export const evolve = (state: PresetState, event: PresetEvent): PresetState => {
  if (event.type === 'PresetCreated') {
    return {
      exists: true,
      presetId: event.data.presetId,
      workspaceId: event.data.workspaceId,
      slug: event.data.slug,
      name: event.data.name,
      description: null,
      status: 'active',
      versionIds: [event.data.version.id],
      designatedVersion: event.data.version.number,
      labels: {},
      splits: {},
    };
  }
  if (!state.exists) return state;
  switch (event.type) {
    case 'PresetVersionAdded':
      // A new version becomes the designated one.
      return { ...state, versionIds: [...state.versionIds, event.data.version.id], designatedVersion: event.data.version.number };
    case 'PresetVersionDesignated':
      return { ...state, designatedVersion: event.data.versionNumber };
    case 'PresetDetailsChanged': {
      const { name, description } = event.data;
      return { ...state, ...(name !== undefined ? { name } : {}), ...(description !== undefined ? { description } : {}) };
    }
    case 'PresetStatusChanged':
      return { ...state, status: event.data.status };
    case 'PresetLabelMoved': {
      const { [event.data.label]: _ended, ...splits } = state.splits ?? {};
      return { ...state, labels: { ...state.labels, [event.data.label]: event.data.versionNumber }, splits };
    }
    case 'PresetLabelRemoved': {
      const { [event.data.label]: _removed, ...labels } = state.labels;
      return { ...state, labels };
    }
    case 'PresetLabelSplit': {
      const { [event.data.label]: _split, ...labels } = state.labels;
      return { ...state, labels, splits: { ...state.splits, [event.data.label]: event.data.versions } };
    }
  }
};

interface CommandBase {
  workspaceId: string;
  slug: string;
  actorUserId: string;
  /** Time is chosen by the caller, so `decide` stays pure and repeatable. */
  now: Date;
  /** Why, in the actor's words; stored on the events the command makes. */
  note?: string;
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

/** Change any of the preset's name, description and status; what is already so changes nothing. */
export interface ChangePreset extends CommandBase {
  type: 'ChangePreset';
  name?: string;
  description?: string | null;
  status?: PresetStatus;
}

/** Point a label at a version, creating the label if it is new. */
export interface MoveLabel extends CommandBase {
  type: 'MoveLabel';
  label: string;
  version: number;
}

export interface RemoveLabel extends CommandBase {
  type: 'RemoveLabel';
  label: string;
}

/** Split a label between 2–10 distinct versions by weight (a rollout), creating it if it is new. */
export interface SplitLabel extends CommandBase {
  type: 'SplitLabel';
  label: string;
  /** Versions and their relative weights, in any order (checked by the route: distinct, integer weights 1–10,000). */
  split: { version: number; weight: number }[];
}

export type PresetCommand = AddPresetVersion | DesignateVersion | ChangePreset | MoveLabel | RemoveLabel | SplitLabel;

export type DecisionError =
  | { type: 'PresetNotFound'; message: string }
  | { type: 'VersionNotFound'; message: string }
  | { type: 'LabelNotFound'; message: string }
  /** A split label is ended by moving it to one version, not removed. */
  | { type: 'LabelSplit'; message: string }
  /** An archived preset takes no new version, label change or designation until it is restored. */
  | { type: 'PresetArchived'; message: string }
  | { type: 'PresetInconsistent'; message: string };

type Existing = Extract<PresetState, { exists: true }>;
type Decision = E.Either<DecisionError, PresetEvent[]>;

export const decide = (command: PresetCommand, state: PresetState): Decision => {
  if (state.exists && (state.workspaceId !== command.workspaceId || state.slug !== command.slug)) {
    return E.left({ type: 'PresetInconsistent', message: 'stream belongs to another preset' });
  }
  if (command.type === 'AddPresetVersion') return state.exists ? addVersion(command, state) : E.right([create(command)]);
  if (!state.exists) return E.left({ type: 'PresetNotFound', message: `no preset ${JSON.stringify(command.slug)}` });
  switch (command.type) {
    case 'DesignateVersion':
      return designate(command, state);
    case 'ChangePreset':
      return change(command, state);
    case 'MoveLabel':
      return moveLabel(command, state);
    case 'RemoveLabel':
      return removeLabel(command, state);
    case 'SplitLabel':
      return splitLabel(command, state);
  }
};

const noted = (note: string | undefined) => (note === undefined ? {} : { note });

/** The version a label names; own keys only, so a label called `constructor` is just a label. */
export const labelledVersion = (labels: Record<string, number>, label: string): number | undefined =>
  Object.hasOwn(labels, label) ? labels[label] : undefined;

const archived = (state: Existing, what: string): Decision =>
  E.left({
    type: 'PresetArchived',
    message: `preset ${JSON.stringify(state.slug)} is archived: ${what} is refused; set its status back to active first (PATCH {"status":"active"})`,
  });

const versionOf = (command: AddPresetVersion, number: number) => ({
  id: command.newVersionId,
  number,
  config: command.config,
  systemPrompt: command.systemPrompt,
  creatorId: command.actorUserId,
  ...noted(command.note),
});

const create = (command: AddPresetVersion): PresetEvent => ({
  type: 'PresetCreated',
  data: {
    presetId: command.newPresetId,
    workspaceId: command.workspaceId,
    slug: command.slug,
    name: command.slug,
    creatorUserId: command.actorUserId,
    version: versionOf(command, 1),
    occurredAt: command.now.toISOString(),
  },
});

const addVersion = (command: AddPresetVersion, state: Existing): Decision => {
  if (state.status === 'archived') return archived(state, 'adding a version');
  return E.right([
    {
      type: 'PresetVersionAdded',
      data: { presetId: state.presetId, version: versionOf(command, state.versionIds.length + 1), occurredAt: command.now.toISOString() },
    },
  ]);
};

/** The id of version `number`, or a rejection naming what is missing. */
const existingVersion = (state: Existing, number: number): E.Either<DecisionError, string> => {
  const id = Number.isInteger(number) ? state.versionIds[number - 1] : undefined;
  return id === undefined
    ? E.left({ type: 'VersionNotFound', message: `preset ${JSON.stringify(state.slug)} has no version ${number}` })
    : E.right(id);
};

const designate = (command: DesignateVersion, state: Existing): Decision => {
  const versionId = existingVersion(state, command.version);
  if (E.isLeft(versionId)) return versionId;
  if (state.status === 'archived') return archived(state, 'designating a version');
  // Designating the designated version again changes nothing: no event.
  if (command.version === state.designatedVersion) return E.right([]);
  return E.right([
    {
      type: 'PresetVersionDesignated',
      data: {
        presetId: state.presetId,
        versionId: versionId.right,
        versionNumber: command.version,
        previousVersionNumber: state.designatedVersion,
        occurredAt: command.now.toISOString(),
        ...noted(command.note),
      },
    },
  ]);
};

const change = (command: ChangePreset, state: Existing): Decision => {
  const occurredAt = command.now.toISOString();
  const events: PresetEvent[] = [];
  const name = command.name !== undefined && command.name !== state.name ? { name: command.name } : {};
  const description =
    command.description !== undefined && command.description !== state.description ? { description: command.description } : {};
  if ('name' in name || 'description' in description) {
    events.push({
      type: 'PresetDetailsChanged',
      data: { presetId: state.presetId, ...name, ...description, occurredAt, ...noted(command.note) },
    });
  }
  if (command.status !== undefined && command.status !== state.status) {
    events.push({
      type: 'PresetStatusChanged',
      data: { presetId: state.presetId, status: command.status, previousStatus: state.status, occurredAt, ...noted(command.note) },
    });
  }
  return E.right(events);
};

const moveLabel = (command: MoveLabel, state: Existing): Decision => {
  const versionId = existingVersion(state, command.version);
  if (E.isLeft(versionId)) return versionId;
  if (state.status === 'archived') return archived(state, 'moving a label');
  const previous = labelledVersion(state.labels, command.label);
  if (previous === command.version) return E.right([]);
  const split = labelSplit(state, command.label);
  return E.right([
    {
      type: 'PresetLabelMoved',
      data: {
        presetId: state.presetId,
        label: command.label,
        versionNumber: command.version,
        versionId: versionId.right,
        previousVersionNumber: previous ?? null,
        ...(split ? { previousVersions: split } : {}),
        occurredAt: command.now.toISOString(),
        ...noted(command.note),
      },
    },
  ]);
};

/** The shares of a split label; own keys only. (States cached before splits existed have no `splits`.) */
export const labelSplit = (state: Existing, label: string): SplitShare[] | undefined =>
  state.splits && Object.hasOwn(state.splits, label) ? state.splits[label] : undefined;

const sameSplit = (a: SplitShare[], b: SplitShare[]) =>
  a.length === b.length && a.every((share, i) => share.versionNumber === b[i]!.versionNumber && share.weight === b[i]!.weight);

const splitLabel = (command: SplitLabel, state: Existing): Decision => {
  const shares: SplitShare[] = [];
  // Ascending by version: the fixed order in which resolution lays the weights out (src/resolve/split.ts).
  for (const { version, weight } of [...command.split].sort((a, b) => a.version - b.version)) {
    const versionId = existingVersion(state, version);
    if (E.isLeft(versionId)) return versionId;
    shares.push({ versionNumber: version, versionId: versionId.right, weight });
  }
  if (state.status === 'archived') return archived(state, 'splitting a label');
  const previousSplit = labelSplit(state, command.label);
  if (previousSplit && sameSplit(previousSplit, shares)) return E.right([]);
  return E.right([
    {
      type: 'PresetLabelSplit',
      data: {
        presetId: state.presetId,
        label: command.label,
        versions: shares,
        previousVersionNumber: labelledVersion(state.labels, command.label) ?? null,
        previousVersions: previousSplit ?? null,
        occurredAt: command.now.toISOString(),
        ...noted(command.note),
      },
    },
  ]);
};

const removeLabel = (command: RemoveLabel, state: Existing): Decision => {
  const current = labelledVersion(state.labels, command.label);
  if (current === undefined && labelSplit(state, command.label)) {
    return E.left({
      type: 'LabelSplit',
      message: `label ${JSON.stringify(command.label)} of preset ${JSON.stringify(state.slug)} is split between versions: move it to one version first (PUT {"version": N})`,
    });
  }
  if (current === undefined)
    return E.left({ type: 'LabelNotFound', message: `preset ${JSON.stringify(state.slug)} has no label ${JSON.stringify(command.label)}` });
  if (state.status === 'archived') return archived(state, 'removing a label');
  return E.right([
    {
      type: 'PresetLabelRemoved',
      data: {
        presetId: state.presetId,
        label: command.label,
        versionNumber: current,
        occurredAt: command.now.toISOString(),
        ...noted(command.note),
      },
    },
  ]);
};

export const presetDecider: Decider<PresetState, PresetCommand, PresetEvent, DecisionError> = { decide, evolve, initialState };
