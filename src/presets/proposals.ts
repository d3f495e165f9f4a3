import * as E from 'fp-ts/Either';
import type { PresetEvent, PresetStatus, ProposedChange } from './events';
import type {
  Decision,
  DecisionError,
  DecideProposal,
  DesignateVersion,
  MoveLabel,
  PresetCommand,
  PresetCommandMetadata,
} from './commands';
import { archived, moved, noted, statusChanged } from './outcomes';
import { currentOf, labelledVersion, protectionOf, targetName, type Existing, type Person, type Proposal } from './state';

/**
 * Release control's rules, as pure functions the preset decider (./decider.ts) calls: who may
 * change a protected label, the protected designation or the status of a preset that has either;
 * which changes wait for approvals as proposals; and who may approve them. No one person alone can
 * get a change of a target protected with N approvals through: it needs N approvals by other people,
 * and a person is a user together with every user up their key's chain of makers
 * (docs/keys-and-release.md, "What one person cannot do alone").
 */

/** What a change of a protected target is: a move (or a split), a removal, or a change of its protection to this. */
export type ProtectedChange = 'move' | 'remove' | { protected: boolean; approvals: number };

const refusal = (state: Existing, what: string): DecisionError => ({
  type: 'Protected',
  kind: 'forbidden',
  reason: 'protected',
  message: `${what} of preset ${JSON.stringify(state.slug)} is protected: `,
});

/**
 * The one rule over every change of a protected label or of the protected designation (a move, a
 * removal, a change of its protection, and any label change to come, such as a split): only a key
 * with presets:release may make it, and when its protection asks for approvals, a move, a removal
 * and a lower or lifted protection become proposals needing those approvals. Raising it does not.
 * Answers what to do: apply the change now, or propose it (with the approvals it needs).
 */
export const guardProtected = (
  state: Existing,
  label: string | null,
  change: ProtectedChange,
  command: { metadata: Pick<PresetCommandMetadata, 'mayRelease'> },
): E.Either<DecisionError, { propose: false } | { propose: true; approvals: number }> => {
  const approvals = protectionOf(state, label);
  if (approvals === undefined) return E.right({ propose: false });
  if (command.metadata.mayRelease !== true) {
    const what = change === 'move' ? 'moving' : change === 'remove' ? 'removing' : 'changing the protection of';
    const base = refusal(state, targetName(label));
    return E.left({ ...base, message: `${base.message}${what} it needs a key with the presets:release scope` });
  }
  const lowers = typeof change === 'object' && (!change.protected || change.approvals < approvals);
  return approvals > 0 && (typeof change === 'string' || lowers) ? E.right({ propose: true, approvals }) : E.right({ propose: false });
};

/**
 * A change of a preset's status (archive, restore, disable, enable) changes what each of its
 * protected labels and its protected designation serve: only a releaser makes it, under the rules of
 * a move of the most protected of them (a proposal needing its approvals, when it has any).
 */
export const guardStatus = (
  state: Existing,
  command: { metadata: Pick<PresetCommandMetadata, 'mayRelease'> },
): E.Either<DecisionError, { propose: false } | { propose: true; approvals: number }> => {
  const protections = [
    ...Object.values(state.protectedLabels),
    ...(state.designationApprovals === null ? [] : [state.designationApprovals]),
  ];
  if (protections.length === 0) return E.right({ propose: false });
  if (command.metadata.mayRelease !== true) {
    const base = refusal(state, 'a label or the designated version');
    return E.left({
      ...base,
      message: `${base.message}changing its status (archiving, disabling, restoring) needs a key with the presets:release scope`,
    });
  }
  const approvals = Math.max(...protections);
  return approvals > 0 ? E.right({ propose: true, approvals }) : E.right({ propose: false });
};

const proposerOf = ({ metadata }: PresetCommand) => ({
  proposerUserId: metadata.actorUserId,
  ...((metadata.actorMakers ?? []).length > 0 ? { proposerMakers: [...metadata.actorMakers!] } : {}),
});

/** A change other than a move, proposed: PresetChangeProposed. */
export const proposeChange = (
  command: PresetCommand,
  state: Existing,
  label: string | null,
  change: ProposedChange,
  approvals: number,
): Decision => {
  if (command.metadata.newProposalId === undefined)
    return E.left({ type: 'PresetInconsistent', kind: 'internal', message: 'a proposal needs an id' });
  return E.right([
    {
      type: 'PresetChangeProposed',
      data: {
        presetId: state.presetId,
        proposalId: command.metadata.newProposalId,
        label,
        change,
        ...proposerOf(command),
        approvalsRequired: approvals,
        occurredAt: command.metadata.now.toISOString(),
        ...noted(command.data.note),
      },
    },
  ]);
};

/** A move, proposed: LabelMoveProposed. */
export const proposeMove = (
  command: MoveLabel | DesignateVersion,
  state: Existing,
  label: string | null,
  versionId: string,
  approvals: number,
): Decision => {
  if (command.metadata.newProposalId === undefined)
    return E.left({ type: 'PresetInconsistent', kind: 'internal', message: 'a proposal needs an id' });
  return E.right([
    {
      type: 'LabelMoveProposed',
      data: {
        presetId: state.presetId,
        proposalId: command.metadata.newProposalId,
        label,
        versionNumber: command.data.version,
        versionId,
        previousVersionNumber: currentOf(state, label),
        ...proposerOf(command),
        approvalsRequired: approvals,
        occurredAt: command.metadata.now.toISOString(),
        ...noted(command.data.note),
      },
    },
  ]);
};

/** A status change of the preset: at once, or proposed when a protected target asks for approvals. */
export const changeStatus = (command: PresetCommand, state: Existing, status: PresetStatus): Decision => {
  const guard = guardStatus(state, command);
  if (E.isLeft(guard)) return guard;
  if (guard.right.propose)
    return proposeChange(command, state, null, { kind: 'status', status, previousStatus: state.status }, guard.right.approvals);
  return E.right([statusChanged(command, state, status)]);
};

/** The people of a person: their user and every user up their key's chain of makers. */
const peopleOf = (p: Person) => [p.userId, ...p.makers];
/**
 * Whether two actors may be one person: one of them is the other's user, or made (directly or
 * through keys made in turn) the other's key. Two keys made by one key that may act for others, for
 * two other users, are two people: that right is the keys file's power to make identities.
 */
export const samePerson = (a: Person, b: Person): boolean => peopleOf(a).includes(b.userId) || peopleOf(b).includes(a.userId);

/** Whether what held when the change was proposed still holds: a change of what it changes makes it stale. */
const stillHolds = (state: Existing, proposal: Proposal): boolean => {
  const { change, label } = proposal;
  switch (change.kind) {
    case 'move':
      return currentOf(state, label) === change.previous;
    case 'remove_label':
      return label !== null && labelledVersion(state.labels, label) === change.versionNumber;
    case 'protect':
      return (protectionOf(state, label) ?? null) === change.previousApprovals;
    case 'status':
      return state.status === change.previousStatus;
  }
};

/** The events that apply a proposal's change, once approved enough. */
const applied = (state: Existing, proposal: Proposal, occurredAt: string): PresetEvent => {
  const { change, label, id: proposalId } = proposal;
  switch (change.kind) {
    case 'move':
      return moved(state, label, change.version, change.versionId, occurredAt, undefined, proposalId);
    case 'remove_label':
      return {
        type: 'PresetLabelRemoved',
        data: { presetId: state.presetId, label: label!, versionNumber: change.versionNumber, occurredAt, proposalId },
      };
    case 'protect':
      return {
        type: 'PresetLabelProtected',
        data: { presetId: state.presetId, label, protected: change.protected, approvals: change.approvals, occurredAt, proposalId },
      };
    case 'status':
      return {
        type: 'PresetStatusChanged',
        data: { presetId: state.presetId, status: change.status, previousStatus: state.status, occurredAt, proposalId },
      };
  }
};

/** Approving, rejecting or withdrawing a proposal. */
export const decideProposal = (command: DecideProposal, state: Existing): Decision => {
  const { proposalId } = command.data;
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
  const step = { presetId: state.presetId, proposalId, occurredAt: command.metadata.now.toISOString(), ...noted(command.data.note) };
  const forbidden = (message: string): Decision => E.left({ type: 'Protected', kind: 'forbidden', reason: 'not_allowed', message });
  if (command.type === 'WithdrawProposal') {
    if (command.metadata.actorUserId !== proposal.proposer.userId) return forbidden('only the proposer may withdraw a proposal');
    return E.right([{ type: 'LabelMoveWithdrawn', data: step }]);
  }
  if (command.metadata.mayRelease !== true) return forbidden('deciding on a proposal needs a key with the presets:release scope');
  if (command.type === 'RejectProposal') return E.right([{ type: 'LabelMoveRejected', data: step }]);
  const approver: Person = { userId: command.metadata.actorUserId, makers: command.metadata.actorMakers ?? [] };
  if (samePerson(approver, proposal.proposer)) {
    return forbidden(
      'the proposer may not approve their own proposal: a key the proposer made (or a key made from it), and the key that made the proposer’s, count as the proposer',
    );
  }
  if (proposal.approvers.some((earlier) => samePerson(approver, earlier))) {
    return E.left({
      type: 'ProposalClosed',
      kind: 'conflict',
      reason: 'already_approved',
      message: 'you have approved this proposal already (a key you made, or that made yours, counts as you)',
    });
  }
  // An archived preset takes no approval, but of the change of its status (a restore).
  if (state.status === 'archived' && proposal.change.kind !== 'status') return archived(state, 'approving a proposal');
  if (!stillHolds(state, proposal)) {
    return E.left({
      type: 'ProposalClosed',
      kind: 'conflict',
      reason: 'proposal_stale',
      message: `${proposal.change.kind === 'status' ? `the status of preset ${JSON.stringify(state.slug)}` : targetName(proposal.label)} has changed since proposal ${proposalId} was made; propose the change again`,
    });
  }
  const approved: PresetEvent = {
    type: 'LabelMoveApproved',
    data: {
      ...step,
      approverUserId: command.metadata.actorUserId,
      ...(approver.makers.length > 0 ? { approverMakers: [...approver.makers] } : {}),
    },
  };
  if (proposal.approvers.length + 1 < proposal.required) return E.right([approved]);
  return E.right([approved, applied(state, proposal, step.occurredAt)]);
};
