import * as E from 'fp-ts/Either';
import type { Decider } from '../eventstore/decider';
import type { Rejection } from '../eventstore/commandHandler';
import type { PresetEvent, PresetStatus, WorkspaceEvent } from './events';

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
      /** Label → version number. */
      labels: Record<string, number>;
      /** Protected label → approvals a move needs (0: a key with presets:release moves it at once). */
      protectedLabels: Record<string, number>;
      /** The same for the designated version; null: not protected. */
      designationApprovals: number | null;
      /** Open proposals by id. */
      proposals: Record<string, Proposal>;
      /** Ids of proposals that were applied, rejected or withdrawn. */
      closedProposals: Record<string, true>;
    };

/** A move of a protected label (or of the designation: `label` null) waiting for approvals. */
export interface Proposal {
  id: string;
  label: string | null;
  version: number;
  versionId: string;
  /** What the label named when proposed: if it names something else now, the proposal is stale. */
  base: number | null;
  proposerUserId: string;
  required: number;
  approvedBy: string[];
}

export const initialState = (): PresetState => ({ exists: false });

export const evolve = (state: PresetState, event: WorkspaceEvent): PresetState => {
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
      protectedLabels: {},
      designationApprovals: null,
      proposals: {},
      closedProposals: {},
    };
  }
  if (!state.exists) return state;
  switch (event.type) {
    case 'PresetVersionAdded':
      // A new version becomes the designated one, unless the designation is protected.
      return {
        ...state,
        versionIds: [...state.versionIds, event.data.version.id],
        designatedVersion: event.data.designated === false ? state.designatedVersion : event.data.version.number,
      };
    case 'PresetVersionDesignated':
      return { ...closeProposal(state, event.data.proposalId), designatedVersion: event.data.versionNumber };
    case 'PresetDetailsChanged': {
      const { name, description } = event.data;
      return { ...state, ...(name !== undefined ? { name } : {}), ...(description !== undefined ? { description } : {}) };
    }
    case 'PresetStatusChanged':
      return { ...state, status: event.data.status };
    case 'PresetLabelMoved':
      return { ...closeProposal(state, event.data.proposalId), labels: { ...state.labels, [event.data.label]: event.data.versionNumber } };
    case 'PresetLabelRemoved': {
      const { [event.data.label]: _removed, ...labels } = state.labels;
      return { ...state, labels };
    }
    case 'PresetLabelProtected': {
      const { label, approvals } = event.data;
      if (label === null) return { ...state, designationApprovals: event.data.protected ? approvals : null };
      const { [label]: _was, ...others } = state.protectedLabels;
      return { ...state, protectedLabels: event.data.protected ? { ...others, [label]: approvals } : others };
    }
    case 'LabelMoveProposed': {
      const d = event.data;
      const proposal: Proposal = {
        id: d.proposalId,
        label: d.label,
        version: d.versionNumber,
        versionId: d.versionId,
        base: d.previousVersionNumber,
        proposerUserId: d.proposerUserId,
        required: d.approvalsRequired,
        approvedBy: [],
      };
      return { ...state, proposals: { ...state.proposals, [d.proposalId]: proposal } };
    }
    case 'LabelMoveApproved': {
      const proposal = state.proposals[event.data.proposalId];
      if (!proposal) return state;
      return {
        ...state,
        proposals: { ...state.proposals, [proposal.id]: { ...proposal, approvedBy: [...proposal.approvedBy, event.data.approverUserId] } },
      };
    }
    case 'LabelMoveRejected':
    case 'LabelMoveWithdrawn':
      return closeProposal(state, event.data.proposalId);
    default:
      // A workspace's keys stream is not a preset's: its events never reach a preset's state.
      return state;
  }
};

const closeProposal = (state: Existing, id: string | undefined): Existing => {
  if (id === undefined) return state;
  const { [id]: _closed, ...open } = state.proposals;
  return { ...state, proposals: open, closedProposals: { ...state.closedProposals, [id]: true } };
};

interface CommandBase {
  workspaceId: string;
  slug: string;
  actorUserId: string;
  /** Whether the actor's key holds presets:release: only such a key may change what is protected. */
  mayRelease?: boolean;
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
  /** The id a proposal gets if the designation is protected with approvals (the handler chooses it). */
  newProposalId?: string;
}

/** Change any of the preset's name, description and status; what is already so changes nothing. */
export interface ChangePreset extends CommandBase {
  type: 'ChangePreset';
  name?: string;
  description?: string | null;
  status?: PresetStatus;
}

/** OpenRouter's delete: archive; an archived preset stays so, a disabled one is refused. */
export interface ArchivePreset extends CommandBase {
  type: 'ArchivePreset';
}

/** OpenRouter's restore: archived → active; an active preset stays so, a disabled one is refused. */
export interface RestorePreset extends CommandBase {
  type: 'RestorePreset';
}

/** Point a label at a version, creating the label if it is new. */
export interface MoveLabel extends CommandBase {
  type: 'MoveLabel';
  label: string;
  version: number;
  /** The id a proposal gets if the label is protected with approvals (the handler chooses it). */
  newProposalId?: string;
}

export interface RemoveLabel extends CommandBase {
  type: 'RemoveLabel';
  label: string;
}

/** Protect (or unprotect) a label, or the designation when `label` is null. */
export interface ProtectLabel extends CommandBase {
  type: 'ProtectLabel';
  label: string | null;
  protected: boolean;
  approvals: number;
}

export interface DecideProposal extends CommandBase {
  type: 'ApproveProposal' | 'RejectProposal' | 'WithdrawProposal';
  proposalId: string;
}

export type PresetCommand =
  | AddPresetVersion
  | DesignateVersion
  | ChangePreset
  | ArchivePreset
  | RestorePreset
  | MoveLabel
  | RemoveLabel
  | ProtectLabel
  | DecideProposal;

/** Every rejection has a kind, which the error middleware maps to a status (commandHandler.ts). */
export type DecisionError = Rejection & {
  type:
    | 'PresetNotFound'
    | 'VersionNotFound'
    | 'LabelNotFound'
    | 'ProposalNotFound'
    /** An archived preset takes no new version, label change or designation until it is restored. */
    | 'PresetArchived'
    /** A disabled preset is neither archived nor restored (OpenRouter answers 409). */
    | 'PresetDisabled'
    /** A protected label (or designation) changed by a key without presets:release, or a proposal decided by the wrong user. */
    | 'Protected'
    /** The proposal was closed, or its label moved since it was made. */
    | 'ProposalClosed'
    | 'PresetInconsistent';
};

type Existing = Extract<PresetState, { exists: true }>;
type Decision = E.Either<DecisionError, PresetEvent[]>;

export const decide = (command: PresetCommand, state: PresetState): Decision => {
  if (state.exists && (state.workspaceId !== command.workspaceId || state.slug !== command.slug)) {
    return E.left({ type: 'PresetInconsistent', kind: 'internal', message: 'stream belongs to another preset' });
  }
  if (command.type === 'AddPresetVersion') return state.exists ? addVersion(command, state) : E.right([create(command)]);
  if (!state.exists) return E.left({ type: 'PresetNotFound', kind: 'not_found', message: `no preset ${JSON.stringify(command.slug)}` });
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
    case 'ProtectLabel':
      return protect(command, state);
    case 'ApproveProposal':
    case 'RejectProposal':
    case 'WithdrawProposal':
      return decideProposal(command, state);
  }
};

const noted = (note: string | undefined) => (note === undefined ? {} : { note });

/** The version a label names; own keys only, so a label called `constructor` is just a label. */
export const labelledVersion = (labels: Record<string, number>, label: string): number | undefined =>
  Object.hasOwn(labels, label) ? labels[label] : undefined;

/** What a label (or the designation: null) names now. */
const currentOf = (state: Existing, label: string | null): number | null =>
  label === null ? state.designatedVersion : (labelledVersion(state.labels, label) ?? null);

const targetName = (label: string | null) => (label === null ? 'the designated version' : `label ${JSON.stringify(label)}`);

/** The approvals a protected label (or the designation) needs; undefined when it is not protected. */
export const protectionOf = (state: Existing, label: string | null): number | undefined =>
  label === null
    ? (state.designationApprovals ?? undefined)
    : Object.hasOwn(state.protectedLabels, label)
      ? state.protectedLabels[label]
      : undefined;

/**
 * The one rule over every change of a protected label or of the protected designation (a move, a
 * removal, an unprotection, and any label change to come, such as a split): only a key with
 * presets:release may make it, and a move of a target protected with approvals becomes a proposal.
 * Answers what to do: apply the change now, or propose it (with the approvals it needs).
 */
export const guardProtected = (
  state: Existing,
  label: string | null,
  change: 'move' | 'remove' | 'protect',
  command: Pick<CommandBase, 'mayRelease'>,
): E.Either<DecisionError, { propose: false } | { propose: true; approvals: number }> => {
  const approvals = protectionOf(state, label);
  if (approvals === undefined) return E.right({ propose: false });
  if (command.mayRelease !== true) {
    const what = { move: 'moving', remove: 'removing', protect: 'changing the protection of' }[change];
    return E.left({
      type: 'Protected',
      kind: 'forbidden',
      reason: 'protected',
      message: `${targetName(label)} of preset ${JSON.stringify(state.slug)} is protected: ${what} it needs a key with the presets:release scope`,
    });
  }
  return change === 'move' && approvals > 0 ? E.right({ propose: true, approvals }) : E.right({ propose: false });
};

const archived = (state: Existing, what: string): Decision =>
  E.left({
    type: 'PresetArchived',
    kind: 'conflict',
    reason: 'preset_archived',
    message: `preset ${JSON.stringify(state.slug)} is archived: ${what} is refused; restore it first (POST /api/v1/presets/${state.slug}/restore)`,
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
      data: {
        presetId: state.presetId,
        version: versionOf(command, state.versionIds.length + 1),
        occurredAt: command.now.toISOString(),
        // A protected designation moves only by the rule: the new version does not take it.
        ...(state.designationApprovals !== null ? { designated: false as const } : {}),
      },
    },
  ]);
};

/** The id of version `number`, or a rejection naming what is missing. */
const existingVersion = (state: Existing, number: number): E.Either<DecisionError, string> => {
  const id = Number.isInteger(number) ? state.versionIds[number - 1] : undefined;
  return id === undefined
    ? E.left({ type: 'VersionNotFound', kind: 'not_found', message: `preset ${JSON.stringify(state.slug)} has no version ${number}` })
    : E.right(id);
};

/** A move of a label (or the designation) to a version: at once, or as a proposal when its protection asks for approvals. */
const move = (command: MoveLabel | DesignateVersion, state: Existing, label: string | null, what: string): Decision => {
  const versionId = existingVersion(state, command.version);
  if (E.isLeft(versionId)) return versionId;
  if (state.status === 'archived') return archived(state, what);
  const previous = currentOf(state, label);
  // Pointing it where it points already changes nothing: no event.
  if (previous === command.version) return E.right([]);
  const guard = guardProtected(state, label, 'move', command);
  if (E.isLeft(guard)) return guard;
  const occurredAt = command.now.toISOString();
  if (guard.right.propose) {
    if (command.newProposalId === undefined)
      return E.left({ type: 'PresetInconsistent', kind: 'internal', message: 'a proposal needs an id' });
    return E.right([
      {
        type: 'LabelMoveProposed',
        data: {
          presetId: state.presetId,
          proposalId: command.newProposalId,
          label,
          versionNumber: command.version,
          versionId: versionId.right,
          previousVersionNumber: previous,
          proposerUserId: command.actorUserId,
          approvalsRequired: guard.right.approvals,
          occurredAt,
          ...noted(command.note),
        },
      },
    ]);
  }
  return E.right([moved(state, label, command.version, versionId.right, occurredAt, command.note)]);
};

const moved = (
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
          occurredAt,
          ...noted(note),
          ...by,
        },
      };
};

const designate = (command: DesignateVersion, state: Existing): Decision => move(command, state, null, 'designating a version');

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
    events.push(statusChanged(command, state, command.status));
  }
  return E.right(events);
};

const statusChanged = (command: CommandBase, state: Existing, status: PresetStatus): PresetEvent => ({
  type: 'PresetStatusChanged',
  data: { presetId: state.presetId, status, previousStatus: state.status, occurredAt: command.now.toISOString(), ...noted(command.note) },
});

const disabled = (state: Existing, what: string): Decision =>
  E.left({
    type: 'PresetDisabled',
    kind: 'conflict',
    reason: 'preset_disabled',
    message: `preset ${JSON.stringify(state.slug)} is disabled: ${what} is refused; set its status to active first (PATCH {"status":"active"})`,
  });

const archive = (command: ArchivePreset, state: Existing): Decision => {
  if (state.status === 'disabled') return disabled(state, 'deleting it');
  return E.right(state.status === 'archived' ? [] : [statusChanged(command, state, 'archived')]);
};

const restore = (command: RestorePreset, state: Existing): Decision => {
  if (state.status === 'disabled') return disabled(state, 'restoring it');
  return E.right(state.status === 'active' ? [] : [statusChanged(command, state, 'active')]);
};

const moveLabel = (command: MoveLabel, state: Existing): Decision => move(command, state, command.label, 'moving a label');

const removeLabel = (command: RemoveLabel, state: Existing): Decision => {
  const current = labelledVersion(state.labels, command.label);
  if (current === undefined)
    return E.left({
      type: 'LabelNotFound',
      kind: 'not_found',
      message: `preset ${JSON.stringify(state.slug)} has no label ${JSON.stringify(command.label)}`,
    });
  if (state.status === 'archived') return archived(state, 'removing a label');
  const guard = guardProtected(state, command.label, 'remove', command);
  if (E.isLeft(guard)) return guard;
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

const protect = (command: ProtectLabel, state: Existing): Decision => {
  const approvals = command.protected ? command.approvals : 0;
  const current = protectionOf(state, command.label);
  // Unprotecting or changing the approvals is a change of a protected target; protecting needs the scope too.
  const guard = guardProtected(state, command.label, 'protect', command);
  if (E.isLeft(guard)) return guard;
  if (command.mayRelease !== true) {
    return E.left({
      type: 'Protected',
      kind: 'forbidden',
      reason: 'protected',
      message: `protecting ${targetName(command.label)} needs a key with the presets:release scope`,
    });
  }
  if (state.status === 'archived') return archived(state, 'changing a protection');
  if (command.protected ? current === approvals : current === undefined) return E.right([]);
  return E.right([
    {
      type: 'PresetLabelProtected',
      data: {
        presetId: state.presetId,
        label: command.label,
        protected: command.protected,
        approvals,
        occurredAt: command.now.toISOString(),
        ...noted(command.note),
      },
    },
  ]);
};

const decideProposal = (command: DecideProposal, state: Existing): Decision => {
  const { proposalId } = command;
  const proposal = Object.hasOwn(state.proposals, proposalId) ? state.proposals[proposalId] : undefined;
  if (!proposal) {
    return Object.hasOwn(state.closedProposals, proposalId)
      ? E.left({ type: 'ProposalClosed', kind: 'conflict', reason: 'proposal_closed', message: `proposal ${proposalId} is closed` })
      : E.left({
          type: 'ProposalNotFound',
          kind: 'not_found',
          message: `preset ${JSON.stringify(state.slug)} has no proposal ${proposalId}`,
        });
  }
  const step = { presetId: state.presetId, proposalId, occurredAt: command.now.toISOString(), ...noted(command.note) };
  const forbidden = (message: string): Decision => E.left({ type: 'Protected', kind: 'forbidden', reason: 'not_allowed', message });
  if (command.type === 'WithdrawProposal') {
    if (command.actorUserId !== proposal.proposerUserId) return forbidden('only the proposer may withdraw a proposal');
    return E.right([{ type: 'LabelMoveWithdrawn', data: step }]);
  }
  if (command.mayRelease !== true) return forbidden('deciding on a proposal needs a key with the presets:release scope');
  if (command.type === 'RejectProposal') return E.right([{ type: 'LabelMoveRejected', data: step }]);
  if (command.actorUserId === proposal.proposerUserId) return forbidden('the proposer may not approve their own proposal');
  if (proposal.approvedBy.includes(command.actorUserId)) {
    return E.left({
      type: 'ProposalClosed',
      kind: 'conflict',
      reason: 'already_approved',
      message: 'you have approved this proposal already',
    });
  }
  if (state.status === 'archived') return archived(state, 'approving a proposal');
  if (currentOf(state, proposal.label) !== proposal.base) {
    return E.left({
      type: 'ProposalClosed',
      kind: 'conflict',
      reason: 'proposal_stale',
      message: `${targetName(proposal.label)} has moved since proposal ${proposalId} was made; propose the move again`,
    });
  }
  const approved: PresetEvent = { type: 'LabelMoveApproved', data: { ...step, approverUserId: command.actorUserId } };
  if (proposal.approvedBy.length + 1 < proposal.required) return E.right([approved]);
  return E.right([approved, moved(state, proposal.label, proposal.version, proposal.versionId, step.occurredAt, undefined, proposalId)]);
};

export const presetDecider: Decider<PresetState, PresetCommand, PresetEvent, DecisionError> = { decide, evolve, initialState };
