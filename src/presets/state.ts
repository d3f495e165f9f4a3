import type { PresetEvent, PresetStatus, SplitShare } from './events';

/**
 * A preset's state as its decider sees it (./decider.ts): the little a decision needs, folded by
 * `evolve` from the preset's own events, and the pure reads of it that decisions share.
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
      /** Protected label → approvals a move needs (0: a key with presets:release moves it at once). */
      protectedLabels: Record<string, number>;
      /** The same for the designated version; null: not protected. */
      designationApprovals: number | null;
      /** Open proposals by id. */
      proposals: Record<string, Proposal>;
      /** Ids of proposals that were applied, rejected or withdrawn. */
      closedProposals: Record<string, true>;
    };

/**
 * A change of a target protected with approvals, waiting for them: a move of a label (or of the
 * designation: `label` null), or another change (events.ts's ProposedChange). Each says what held
 * when it was proposed: if that has changed since, the proposal is stale (./proposals.ts).
 */
export type ProposalChange =
  | { kind: 'move'; version: number; versionId: string; previous: number | null }
  | { kind: 'remove_label'; versionNumber: number }
  | { kind: 'protect'; protected: boolean; approvals: number; previousApprovals: number | null }
  | { kind: 'status'; status: PresetStatus; previousStatus: PresetStatus };

/** Someone who proposed or approved: their user, and the users up their key's chain of makers, who count as them. */
export interface Person {
  userId: string;
  makers: readonly string[];
}

export interface Proposal {
  id: string;
  label: string | null;
  change: ProposalChange;
  proposer: Person;
  required: number;
  approvers: Person[];
}

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
      return { ...closeProposal(state, event.data.proposalId), status: event.data.status };
    case 'PresetLabelMoved': {
      // Moving a split label to one version ends its split.
      const { [event.data.label]: _ended, ...splits } = state.splits ?? {};
      const closed = closeProposal(state, event.data.proposalId);
      return { ...closed, labels: { ...state.labels, [event.data.label]: event.data.versionNumber }, splits };
    }
    case 'PresetLabelRemoved': {
      const { [event.data.label]: _removed, ...labels } = state.labels;
      return { ...closeProposal(state, event.data.proposalId), labels };
    }
    case 'PresetLabelSplit': {
      const { [event.data.label]: _split, ...labels } = state.labels;
      return { ...state, labels, splits: { ...state.splits, [event.data.label]: event.data.versions } };
    }
    case 'PresetLabelProtected': {
      const { label, approvals } = event.data;
      const closed = closeProposal(state, event.data.proposalId);
      if (label === null) return { ...closed, designationApprovals: event.data.protected ? approvals : null };
      const { [label]: _was, ...others } = state.protectedLabels;
      return { ...closed, protectedLabels: event.data.protected ? { ...others, [label]: approvals } : others };
    }
    case 'LabelMoveProposed': {
      const d = event.data;
      const change: ProposalChange = { kind: 'move', version: d.versionNumber, versionId: d.versionId, previous: d.previousVersionNumber };
      return opened(state, d, change);
    }
    case 'PresetChangeProposed':
      return opened(state, event.data, event.data.change);
    case 'LabelMoveApproved': {
      const d = event.data;
      const proposal = Object.hasOwn(state.proposals, d.proposalId) ? state.proposals[d.proposalId] : undefined;
      if (!proposal) return state;
      const approver: Person = { userId: d.approverUserId, makers: d.approverMakers ?? [] };
      return { ...state, proposals: { ...state.proposals, [proposal.id]: { ...proposal, approvers: [...proposal.approvers, approver] } } };
    }
    case 'LabelMoveRejected':
    case 'LabelMoveWithdrawn':
      return closeProposal(state, event.data.proposalId);
    default:
      // A workspace's keys stream is not a preset's: its events never reach a preset's state.
      return state;
  }
};

/** The state with a proposal opened: by a LabelMoveProposed or a PresetChangeProposed. */
const opened = (
  state: Existing,
  d: { proposalId: string; label: string | null; proposerUserId: string; proposerMakers?: string[]; approvalsRequired: number },
  change: ProposalChange,
): Existing => {
  const proposal: Proposal = {
    id: d.proposalId,
    label: d.label,
    change,
    proposer: { userId: d.proposerUserId, makers: d.proposerMakers ?? [] },
    required: d.approvalsRequired,
    approvers: [],
  };
  return { ...state, proposals: { ...state.proposals, [d.proposalId]: proposal } };
};

const closeProposal = (state: Existing, id: string | undefined): Existing => {
  if (id === undefined) return state;
  const { [id]: _closed, ...open } = state.proposals;
  return { ...state, proposals: open, closedProposals: { ...state.closedProposals, [id]: true } };
};

export type Existing = Extract<PresetState, { exists: true }>;

/** The version a label names; own keys only, so a label called `constructor` is just a label. */
export const labelledVersion = (labels: Record<string, number>, label: string): number | undefined =>
  Object.hasOwn(labels, label) ? labels[label] : undefined;

/** What a label (or the designation: null) names now. */
export const currentOf = (state: Existing, label: string | null): number | null =>
  label === null ? state.designatedVersion : (labelledVersion(state.labels, label) ?? null);

export const targetName = (label: string | null) => (label === null ? 'the designated version' : `label ${JSON.stringify(label)}`);

/** The approvals a protected label (or the designation) needs; undefined when it is not protected. */
export const protectionOf = (state: Existing, label: string | null): number | undefined =>
  label === null
    ? (state.designationApprovals ?? undefined)
    : Object.hasOwn(state.protectedLabels, label)
      ? state.protectedLabels[label]
      : undefined;

/** The shares of a split label; own keys only. (States cached before splits existed have no `splits`.) */
export const labelSplit = (state: Existing, label: string): SplitShare[] | undefined =>
  state.splits && Object.hasOwn(state.splits, label) ? state.splits[label] : undefined;
