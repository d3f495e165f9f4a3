import { useRef, useState } from 'preact/hooks';
import { ApiFailure } from '../api/client';
import type { ListPage, Preset, Proposal } from '../api/types';
import { Failure } from '../components/Failure';
import { useLiveEvents } from '../components/LiveProvider';
import { Proposals } from '../components/Proposals';
import { useLoad } from '../hooks/useLoad';
import { useMe } from '../hooks/useMe';
import { usePageTitle } from '../hooks/usePageTitle';
import { useSession } from '../hooks/useSession';

const PAGE = 100;

/**
 * Proposals of the workspace: first those waiting for the signed-in user (someone else's, not yet
 * approved by them), then the user's own, which they may withdraw.
 */
export const ProposalsPage = () => {
  const { call } = useSession();
  const heading = usePageTitle('Proposals');
  const me = useMe();
  const [busy, setBusy] = useState(false);
  const [failure, setFailure] = useState<ApiFailure>();
  const [message, setMessage] = useState('');

  const open = useLoad(async (signal) => {
    const found: Array<{ slug: string; proposal: Proposal }> = [];
    for (let offset = 0; ; offset += PAGE) {
      const page = (await call<ListPage<Preset>>(`/api/v1/presets?status=active&offset=${offset}&limit=${PAGE}`, { signal })).body;
      for (const preset of page.data) for (const proposal of preset.proposals ?? []) found.push({ slug: preset.slug, proposal });
      if (offset + PAGE >= page.total_count) break;
    }
    return found;
  }, []);

  const pending = useRef<ReturnType<typeof setTimeout>>();
  useLiveEvents(() => {
    clearTimeout(pending.current);
    pending.current = setTimeout(open.reload, 250);
  });

  const userId = me.data?.user_id;
  const all = open.data ?? [];
  const waiting = all.filter(({ proposal: p }) => p.proposer_user_id !== userId && !(userId && p.approved_by.includes(userId)));
  const mine = all.filter(({ proposal: p }) => p.proposer_user_id === userId);

  const step = async (slug: string, proposal: Proposal, what: 'approve' | 'reject' | 'withdraw') => {
    setBusy(true);
    setFailure(undefined);
    setMessage('');
    try {
      await call(`/api/v1/presets/${encodeURIComponent(slug)}/proposals/${proposal.id}/${what}`, { method: 'POST' });
      setMessage({ approve: 'Approved', reject: 'Rejected', withdraw: 'Withdrawn' }[what] + `: ${slug}.`);
      open.reload();
    } catch (error) {
      setFailure(error instanceof ApiFailure ? error : new ApiFailure(0, String(error)));
    } finally {
      setBusy(false);
    }
  };

  return (
    <>
      <h1 ref={heading} tabIndex={-1}>
        Proposals
      </h1>
      <p class="muted">
        Moves of protected labels that wait for approvals{userId ? <> — signed in as {userId}</> : null}. Approving and rejecting need a key
        with presets:release; the proposer cannot approve their own.
      </p>
      <div role="status" aria-live="polite" class="messages">
        {message && <p class="success">{message}</p>}
      </div>
      <Failure failure={failure ?? open.error ?? me.error} />
      <section aria-labelledby="waiting-heading">
        <h2 id="waiting-heading">Waiting for you</h2>
        <Proposals items={waiting} userId={userId} busy={busy || open.loading} onStep={(s, p, w) => void step(s, p, w)} />
      </section>
      <section aria-labelledby="mine-heading">
        <h2 id="mine-heading">Yours</h2>
        <Proposals items={mine} userId={userId} busy={busy || open.loading} onStep={(s, p, w) => void step(s, p, w)} />
      </section>
    </>
  );
};
