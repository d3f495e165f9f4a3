import { Link } from 'wouter-preact';
import type { Proposal } from '../api/types';
import { Time } from './Time';

/** What a proposal would do, in words. */
export const proposalWords = (p: Proposal): string => {
  const now = p.previous_version === null ? '' : ` (now version ${p.previous_version})`;
  const target = p.label === null ? 'the designated version' : `the label ${p.label}`;
  switch (p.change ?? 'move') {
    case 'remove_label':
      return `remove ${target}${now}`;
    case 'protect':
      return p.protection ? `protect ${target} with ${p.protection.approvals} approval(s)` : `lift the protection of ${target}`;
    case 'status':
      return `set the preset's status to ${p.new_status ?? '?'}`;
    default:
      return `${p.label === null ? 'designate' : `move the label ${p.label} to`} version ${p.version ?? '?'}${now}`;
  }
};

/**
 * Open proposals of presets, with what the signed-in user may do about each: approve or reject a
 * proposal of someone else's not yet approved by them, withdraw their own. The service decides
 * (a refusal is shown in its words); the buttons only leave out what is certainly refused.
 */
export const Proposals = ({
  items,
  userId,
  busy,
  onStep,
}: {
  items: Array<{ slug: string; proposal: Proposal }>;
  userId: string | undefined;
  busy: boolean;
  onStep: (slug: string, proposal: Proposal, step: 'approve' | 'reject' | 'withdraw') => void;
}) => {
  if (items.length === 0) return <p class="muted">No proposal waits.</p>;
  return (
    <ul class="proposals">
      {items.map(({ slug, proposal: p }) => {
        const mine = p.proposer_user_id === userId;
        const approved = userId !== undefined && p.approved_by.includes(userId);
        return (
          <li key={p.id} data-proposal={p.id}>
            <p>
              <Link href={`/presets/${encodeURIComponent(slug)}`}>{slug}</Link>: {p.proposer_user_id} proposes to {proposalWords(p)}{' '}
              <span class="muted">
                · <Time iso={p.created_at} /> · approved by {p.approved_by.length} of {p.approvals_required}
                {p.approved_by.length > 0 && ` (${p.approved_by.join(', ')})`}
              </span>
            </p>
            <div class="actions">
              {!mine && !approved && (
                <button type="button" class="small" disabled={busy} onClick={() => onStep(slug, p, 'approve')}>
                  Approve
                </button>
              )}
              {!mine && (
                <button type="button" class="secondary outline small" disabled={busy} onClick={() => onStep(slug, p, 'reject')}>
                  Reject
                </button>
              )}
              {mine && (
                <button type="button" class="secondary outline small" disabled={busy} onClick={() => onStep(slug, p, 'withdraw')}>
                  Withdraw
                </button>
              )}
            </div>
          </li>
        );
      })}
    </ul>
  );
};
