import * as E from 'fp-ts/Either';
import type { Decider } from '../eventstore/decider';
import type { PresetEvent, SplitShare } from './events';
import type {
  AddPresetVersion,
  ArchivePreset,
  ChangePreset,
  Decision,
  DecisionError,
  DesignateVersion,
  MoveLabel,
  PresetCommand,
  ProtectLabel,
  RemoveLabel,
  RestorePreset,
  SplitLabel,
} from './commands';
import { currentOf, evolve, initialState, labelledVersion, labelSplit, protectionOf, targetName } from './state';
import type { Existing, PresetState } from './state';
import { archived, disabled, existingVersion, moved, noted } from './outcomes';
import { changeStatus, decideProposal, guardProtected, proposeChange, proposeMove } from './proposals';

export * from './commands';
export * from './state';
export { guardProtected, samePerson } from './proposals';

/**
 * The write side of a preset, as pure functions (`presetDecider` at the end): `evolve` (./state.ts)
 * folds the preset's own events into the little state a decision needs, `decide` turns a command
 * (./commands.ts) into the events to append (none when the command changes nothing) or a rejection.
 */
export const decide = (command: PresetCommand, state: PresetState): Decision => {
  if (state.exists && (state.workspaceId !== command.data.workspaceId || state.slug !== command.data.slug)) {
    return E.left({ type: 'PresetInconsistent', kind: 'internal', message: 'stream belongs to another preset' });
  }
  if (command.type === 'AddPresetVersion') return state.exists ? addVersion(command, state) : E.right([create(command)]);
  if (!state.exists)
    return E.left({ type: 'PresetNotFound', kind: 'not_found', message: `no preset ${JSON.stringify(command.data.slug)}` });
  switch (command.type) {
    case 'DesignateVersion':
      return designate(command, state);
    case 'ChangePreset':
      return change(command, state);
    case 'ArchivePreset':
      return archive(command, state);
    case 'RestorePreset':
      return restore(command, state);
    case 'MoveLabel':
      return moveLabel(command, state);
    case 'RemoveLabel':
      return removeLabel(command, state);
    case 'SplitLabel':
      return splitLabel(command, state);
    case 'ProtectLabel':
      return protect(command, state);
    case 'ApproveProposal':
    case 'RejectProposal':
    case 'WithdrawProposal':
      return decideProposal(command, state);
  }
};

const versionOf = (command: AddPresetVersion, number: number) => ({
  id: command.metadata.newVersionId,
  number,
  config: command.data.config,
  systemPrompt: command.data.systemPrompt,
  templateFormat: command.data.templateFormat ?? 'none',
  variables: command.data.variables ?? null,
  messages: command.data.messages ?? [],
  creatorId: command.metadata.actorUserId,
  ...noted(command.data.note),
});

const create = (command: AddPresetVersion): PresetEvent => ({
  type: 'PresetCreated',
  data: {
    presetId: command.metadata.newPresetId,
    workspaceId: command.data.workspaceId,
    slug: command.data.slug,
    name: command.data.slug,
    creatorUserId: command.metadata.actorUserId,
    version: versionOf(command, 1),
    occurredAt: command.metadata.now.toISOString(),
  },
});

const addVersion = (command: AddPresetVersion, state: Existing): Decision => {
  if (state.status === 'archived') return archived(state, 'adding a version');
  return E.right([
    {
      type: 'PresetVersionAdded',
      data: {
        presetId: state.presetId,
        version: versionOf(command, state.versionIds.length + 1),
        occurredAt: command.metadata.now.toISOString(),
        // A protected designation moves only by the rule: the new version does not take it.
        ...(state.designationApprovals !== null ? { designated: false as const } : {}),
      },
    },
  ]);
};

/** A move of a label (or the designation) to a version: at once, or as a proposal when its protection asks for approvals. */
const move = (command: MoveLabel | DesignateVersion, state: Existing, label: string | null, what: string): Decision => {
  const versionId = existingVersion(state, command.data.version);
  if (E.isLeft(versionId)) return versionId;
  if (state.status === 'archived') return archived(state, what);
  const previous = currentOf(state, label);
  // Pointing it where it points already changes nothing: no event.
  if (previous === command.data.version) return E.right([]);
  const guard = guardProtected(state, label, 'move', command);
  if (E.isLeft(guard)) return guard;
  if (guard.right.propose) return proposeMove(command, state, label, versionId.right, guard.right.approvals);
  const occurredAt = command.metadata.now.toISOString();
  return E.right([moved(state, label, command.data.version, versionId.right, occurredAt, command.data.note)]);
};

const designate = (command: DesignateVersion, state: Existing): Decision => move(command, state, null, 'designating a version');

const change = (command: ChangePreset, state: Existing): Decision => {
  const occurredAt = command.metadata.now.toISOString();
  const events: PresetEvent[] = [];
  const name = command.data.name !== undefined && command.data.name !== state.name ? { name: command.data.name } : {};
  const description =
    command.data.description !== undefined && command.data.description !== state.description
      ? { description: command.data.description }
      : {};
  if ('name' in name || 'description' in description) {
    events.push({
      type: 'PresetDetailsChanged',
      data: { presetId: state.presetId, ...name, ...description, occurredAt, ...noted(command.data.note) },
    });
  }
  if (command.data.status !== undefined && command.data.status !== state.status) {
    // What protected labels serve changes with the status: release control's rule (a refusal stores nothing).
    const status = changeStatus(command, state, command.data.status);
    if (E.isLeft(status)) return status;
    events.push(...status.right);
  }
  return E.right(events);
};

const archive = (command: ArchivePreset, state: Existing): Decision => {
  if (state.status === 'disabled') return disabled(state, 'deleting it');
  return state.status === 'archived' ? E.right([]) : changeStatus(command, state, 'archived');
};

const sameSplit = (a: SplitShare[], b: SplitShare[]) =>
  a.length === b.length && a.every((share, i) => share.versionNumber === b[i]!.versionNumber && share.weight === b[i]!.weight);

/**
 * A split changes what a label serves, so a protected label's split passes the same guard as a
 * move: without presets:release it is refused (403). A label protected with approvals is not split
 * at all (409): its changes wait for approvals as proposals, and a proposal names one version.
 */
const splitLabel = (command: SplitLabel, state: Existing): Decision => {
  const shares: SplitShare[] = [];
  // Ascending by version: the fixed order in which resolution lays the weights out (src/resolve/split.ts).
  for (const { version, weight } of [...command.data.split].sort((a, b) => a.version - b.version)) {
    const versionId = existingVersion(state, version);
    if (E.isLeft(versionId)) return versionId;
    shares.push({ versionNumber: version, versionId: versionId.right, weight });
  }
  if (state.status === 'archived') return archived(state, 'splitting a label');
  const previousSplit = labelSplit(state, command.data.label);
  if (previousSplit && sameSplit(previousSplit, shares)) return E.right([]);
  const guard = guardProtected(state, command.data.label, 'move', command);
  if (E.isLeft(guard)) return guard;
  if (guard.right.propose) {
    return E.left({
      type: 'ProtectedSplit',
      kind: 'conflict',
      reason: 'label_protected_split',
      message:
        `label ${JSON.stringify(command.data.label)} of preset ${JSON.stringify(state.slug)} is protected with ${guard.right.approvals} ` +
        `approval(s): a protected label with approvals cannot be split; propose a move to one version (PUT {"version": N}), ` +
        `or protect it without approvals first`,
    });
  }
  return E.right([
    {
      type: 'PresetLabelSplit',
      data: {
        presetId: state.presetId,
        label: command.data.label,
        versions: shares,
        previousVersionNumber: labelledVersion(state.labels, command.data.label) ?? null,
        previousVersions: previousSplit ?? null,
        occurredAt: command.metadata.now.toISOString(),
        ...noted(command.data.note),
      },
    },
  ]);
};

const restore = (command: RestorePreset, state: Existing): Decision => {
  if (state.status === 'disabled') return disabled(state, 'restoring it');
  return state.status === 'active' ? E.right([]) : changeStatus(command, state, 'active');
};

const moveLabel = (command: MoveLabel, state: Existing): Decision => move(command, state, command.data.label, 'moving a label');

const removeLabel = (command: RemoveLabel, state: Existing): Decision => {
  const current = labelledVersion(state.labels, command.data.label);
  if (current === undefined && labelSplit(state, command.data.label)) {
    return E.left({
      type: 'LabelSplit',
      kind: 'conflict',
      reason: 'label_split',
      message: `label ${JSON.stringify(command.data.label)} of preset ${JSON.stringify(state.slug)} is split between versions: move it to one version first (PUT {"version": N})`,
    });
  }
  if (current === undefined)
    return E.left({
      type: 'LabelNotFound',
      kind: 'not_found',
      message: `preset ${JSON.stringify(state.slug)} has no label ${JSON.stringify(command.data.label)}`,
    });
  if (state.status === 'archived') return archived(state, 'removing a label');
  const guard = guardProtected(state, command.data.label, 'remove', command);
  if (E.isLeft(guard)) return guard;
  if (guard.right.propose) {
    return proposeChange(command, state, command.data.label, { kind: 'remove_label', versionNumber: current }, guard.right.approvals);
  }
  return E.right([
    {
      type: 'PresetLabelRemoved',
      data: {
        presetId: state.presetId,
        label: command.data.label,
        versionNumber: current,
        occurredAt: command.metadata.now.toISOString(),
        ...noted(command.data.note),
      },
    },
  ]);
};

const protect = (command: ProtectLabel, state: Existing): Decision => {
  const approvals = command.data.protected ? command.data.approvals : 0;
  const current = protectionOf(state, command.data.label);
  // Unprotecting or changing the approvals is a change of a protected target; protecting needs the scope too.
  const guard = guardProtected(state, command.data.label, { protected: command.data.protected, approvals }, command);
  if (E.isLeft(guard)) return guard;
  if (command.metadata.mayRelease !== true) {
    return E.left({
      type: 'Protected',
      kind: 'forbidden',
      reason: 'protected',
      message: `protecting ${targetName(command.data.label)} needs a key with the presets:release scope`,
    });
  }
  if (state.status === 'archived') return archived(state, 'changing a protection');
  if (command.data.protected ? current === approvals : current === undefined) return E.right([]);
  // Lowering or lifting a protection with approvals needs them too; raising it does not.
  if (guard.right.propose) {
    const change = { kind: 'protect' as const, protected: command.data.protected, approvals, previousApprovals: current ?? null };
    return proposeChange(command, state, command.data.label, change, guard.right.approvals);
  }
  return E.right([
    {
      type: 'PresetLabelProtected',
      data: {
        presetId: state.presetId,
        label: command.data.label,
        protected: command.data.protected,
        approvals,
        occurredAt: command.metadata.now.toISOString(),
        ...noted(command.data.note),
      },
    },
  ]);
};

export const presetDecider: Decider<PresetState, PresetCommand, PresetEvent, DecisionError> = { decide, evolve, initialState };
