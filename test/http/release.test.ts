import { randomUUID } from 'node:crypto';
import { useApiSpecification } from '../support/apiSpecification';
import { KEYS, chatBody } from '../support/service';

/**
 * Protected labels and the protected designation, with approval, through the HTTP API; and
 * OpenRouter's delete and restore. Every step is read back from the preset's history with who and when.
 */
const svc = useApiSpecification();

type Init = { key?: string; json?: unknown; method?: string };
const req = (path: string, init: Init = {}) => svc.request(path, { key: KEYS.writer, ...init });
const withVersions = async (slug: string, n: number) => {
  for (let i = 1; i <= n; i++) {
    const res = await req(`/api/v1/presets/${slug}/chat/completions`, { method: 'POST', json: chatBody({ seed: i }) });
    expect(res.status).toBe(200);
  }
};
const fresh = () => `rel-${randomUUID().slice(0, 8)}`;
const protect = (slug: string, label: string, json: unknown, key: string = KEYS.releaseAnn) =>
  req(`/api/v1/presets/${slug}/labels/${label}/protection`, { method: 'PUT', json, key });
const move = (slug: string, label: string, version: number, key: string = KEYS.writer) =>
  req(`/api/v1/presets/${slug}/labels/${label}`, { method: 'PUT', json: { version }, key });
const step = (slug: string, id: string, what: 'approve' | 'reject' | 'withdraw', key: string) =>
  req(`/api/v1/presets/${slug}/proposals/${id}/${what}`, { method: 'POST', key });
const preset = async (slug: string) => (await (await req(`/api/v1/presets/${slug}`)).json()).data;
type HistoryEvent = { type: string; data: Record<string, unknown>; metadata: { actorUserId: string }; recorded_at: string };
const history = async (slug: string) => (await (await req(`/api/v1/presets/${slug}/events?limit=1000`)).json()).data as HistoryEvent[];

describe('splitting a protected label (rollouts under release control)', () => {
  const split = (
    slug: string,
    label: string,
    key: string,
    shares: [number, number][] = [
      [1, 90],
      [2, 10],
    ],
  ) =>
    req(`/api/v1/presets/${slug}/labels/${label}`, {
      method: 'PUT',
      json: { split: shares.map(([version, weight]) => ({ version, weight })) },
      key,
    });

  it('refuses a split of a protected label to a key without presets:release (403, as a move), and any split of one with approvals (409), storing nothing', async () => {
    const slug = fresh();
    await withVersions(slug, 2);
    expect((await move(slug, 'production', 1)).status).toBe(200);
    expect((await protect(slug, 'production', { protected: true, approvals: 0 })).status).toBe(200);
    const before = (await history(slug)).length;

    const byWriter = await split(slug, 'production', KEYS.writer);
    expect(byWriter.status).toBe(403);
    const { error: forbidden } = await byWriter.json();
    expect(forbidden.metadata).toEqual({ reason: 'protected' });
    expect(forbidden.message).toMatch(/label "production" of preset .* is protected: moving it needs a key with the presets:release scope/);
    expect((await history(slug)).length).toBe(before);

    // With approvals, not even a releaser splits it: its changes wait for approvals, one version at a time.
    expect((await protect(slug, 'production', { protected: true, approvals: 1 })).status).toBe(200);
    const withApprovals = (await history(slug)).length;
    const byReleaser = await split(slug, 'production', KEYS.releaseBob);
    expect(byReleaser.status).toBe(409);
    const { error: refused } = await byReleaser.json();
    expect(refused.metadata).toEqual({ reason: 'label_protected_split' });
    expect(refused.message).toMatch(/a protected label with approvals cannot be split/);
    expect((await split(slug, 'production', KEYS.writer)).status).toBe(403);
    expect((await history(slug)).length).toBe(withApprovals);
    expect(await preset(slug)).toMatchObject({ labels: { production: 1 }, protected_labels: { production: { approvals: 1 } } });
  });

  it('lets a releaser split a label protected without approvals, and a write key split an unprotected one', async () => {
    const slug = fresh();
    await withVersions(slug, 2);
    expect((await move(slug, 'production', 1)).status).toBe(200);
    expect((await protect(slug, 'production', { protected: true, approvals: 0 })).status).toBe(200);
    expect((await split(slug, 'production', KEYS.releaseBob)).status).toBe(200);
    expect((await split(slug, 'staging', KEYS.writer)).status).toBe(200);
    expect((await preset(slug)).labels).toEqual({
      production: {
        split: [
          { version: 1, weight: 90 },
          { version: 2, weight: 10 },
        ],
      },
      staging: {
        split: [
          { version: 1, weight: 90 },
          { version: 2, weight: 10 },
        ],
      },
    });
    const splits = (await history(slug)).filter((e) => e.type === 'PresetLabelSplit');
    expect(splits.map((e) => [e.data.label, e.metadata.actorUserId])).toEqual([
      ['production', 'user-bob'],
      ['staging', 'user-writer'],
    ]);
  });
});

describe('protected labels', () => {
  it('refuses a write key without presets:release to move, remove or unprotect a protected label (403), storing nothing', async () => {
    const slug = fresh();
    await withVersions(slug, 2);
    expect((await move(slug, 'production', 1)).status).toBe(200);
    const protectedByWriter = await protect(slug, 'production', { protected: true, approvals: 0 }, KEYS.writer);
    expect(protectedByWriter.status).toBe(403);
    expect((await protectedByWriter.json()).error.metadata).toMatchObject({ required_scope: 'presets:release' });
    expect((await protect(slug, 'production', { protected: true, approvals: 0 })).status).toBe(200);
    const before = (await history(slug)).length;
    for (const refused of [
      await move(slug, 'production', 2),
      await req(`/api/v1/presets/${slug}/labels/production`, { method: 'DELETE' }),
    ]) {
      expect(refused.status).toBe(403);
      const { error } = await refused.json();
      expect(error.message).toMatch(
        /label "production" of preset .* is protected: (moving|removing) it needs a key with the presets:release scope/,
      );
      expect(error.metadata).toEqual({ reason: 'protected' });
    }
    const unprotect = await protect(slug, 'production', { protected: false }, KEYS.writer);
    expect(unprotect.status).toBe(403);
    expect((await unprotect.json()).error.metadata).toEqual({ required_scope: 'presets:release' });
    expect((await history(slug)).length).toBe(before);
    expect(await preset(slug)).toMatchObject({ labels: { production: 1 }, protected_labels: { production: { approvals: 0 } } });
    // Another label is not protected; a release key moves a protected label with approvals 0 at once.
    expect((await move(slug, 'staging', 2)).status).toBe(200);
    expect((await move(slug, 'production', 2, KEYS.releaseBob)).status).toBe(200);
    expect((await protect(slug, 'production', { protected: false }, KEYS.releaseBob)).status).toBe(200);
    expect((await move(slug, 'production', 1)).status).toBe(200);
  });

  it('with approvals 2, moves the label only after two other users approve; the proposer cannot approve; every step is in the history', async () => {
    const slug = fresh();
    await withVersions(slug, 3);
    expect((await move(slug, 'production', 1)).status).toBe(200);
    expect((await protect(slug, 'production', { protected: true, approvals: 2, note: 'two eyes' })).status).toBe(200);
    const proposed = await move(slug, 'production', 3, KEYS.releaseAnn);
    expect(proposed.status).toBe(202);
    const proposal = (await proposed.json()).data;
    expect(proposal).toMatchObject({ label: 'production', version: 3, previous_version: 1, approvals_required: 2, status: 'proposed' });
    expect(proposed.headers.get('location')).toBe(`/api/v1/presets/${slug}`);
    expect(await preset(slug)).toMatchObject({
      labels: { production: 1 },
      proposals: [{ id: proposal.proposal_id, label: 'production', version: 3, proposer_user_id: 'user-ann', approved_by: [] }],
    });

    const own = await step(slug, proposal.proposal_id, 'approve', KEYS.releaseAnn);
    expect(own.status).toBe(403);
    expect((await own.json()).error.message).toMatch(/proposer may not approve/);
    expect((await step(slug, proposal.proposal_id, 'approve', KEYS.writer)).status).toBe(403); // no presets:release

    expect((await step(slug, proposal.proposal_id, 'approve', KEYS.releaseBob)).status).toBe(200);
    expect((await preset(slug)).labels).toEqual({ production: 1 });
    const twice = await step(slug, proposal.proposal_id, 'approve', KEYS.releaseBob);
    expect(twice.status).toBe(409);
    expect((await step(slug, proposal.proposal_id, 'approve', KEYS.releaseCid)).status).toBe(200);
    const after = await preset(slug);
    expect(after.labels).toEqual({ production: 3 });
    expect(after.proposals).toEqual([]);
    // Closed now.
    const late = await step(slug, proposal.proposal_id, 'approve', KEYS.admin);
    expect(late.status).toBe(409);
    expect((await late.json()).error.metadata).toEqual({ reason: 'proposal_closed' });

    const steps = (await history(slug)).filter((e) => !e.type.startsWith('PresetVersion') && e.type !== 'PresetCreated');
    expect(steps.map((e) => [e.type, e.metadata.actorUserId])).toEqual([
      ['PresetLabelMoved', 'user-writer'],
      ['PresetLabelProtected', 'user-ann'],
      ['LabelMoveProposed', 'user-ann'],
      ['LabelMoveApproved', 'user-bob'],
      ['LabelMoveApproved', 'user-cid'],
      ['PresetLabelMoved', 'user-cid'],
    ]);
    expect(steps[1]!.data).toMatchObject({ label: 'production', protected: true, approvals: 2, note: 'two eyes' });
    expect(steps[5]!.data).toMatchObject({
      label: 'production',
      versionNumber: 3,
      previousVersionNumber: 1,
      proposalId: proposal.proposal_id,
    });
    for (const e of steps) expect(Date.parse(e.recorded_at)).not.toBeNaN();
  });

  it('reject and withdraw close a proposal; only the proposer withdraws; a stale proposal is a 409', async () => {
    const slug = fresh();
    await withVersions(slug, 3);
    await move(slug, 'production', 1);
    await protect(slug, 'production', { protected: true, approvals: 1 });
    const propose = async (version: number, key: string) =>
      (await (await move(slug, 'production', version, key)).json()).data.proposal_id as string;

    const rejected = await propose(2, KEYS.releaseAnn);
    expect((await step(slug, rejected, 'reject', KEYS.releaseBob)).status).toBe(200);
    expect((await step(slug, rejected, 'approve', KEYS.releaseCid)).status).toBe(409);

    const withdrawn = await propose(2, KEYS.releaseAnn);
    expect((await step(slug, withdrawn, 'withdraw', KEYS.releaseBob)).status).toBe(403);
    expect((await step(slug, withdrawn, 'withdraw', KEYS.releaseAnn)).status).toBe(200);
    expect((await step(slug, withdrawn, 'approve', KEYS.releaseCid)).status).toBe(409);
    expect((await preset(slug)).labels).toEqual({ production: 1 });

    // Two proposals on one label: the first approved moves it, and the second is stale.
    const first = await propose(2, KEYS.releaseAnn);
    const second = await propose(3, KEYS.releaseBob);
    expect((await step(slug, first, 'approve', KEYS.releaseCid)).status).toBe(200);
    expect((await preset(slug)).labels).toEqual({ production: 2 });
    const stale = await step(slug, second, 'approve', KEYS.releaseCid);
    expect(stale.status).toBe(409);
    expect((await stale.json()).error).toMatchObject({ metadata: { reason: 'proposal_stale' } });
    expect((await preset(slug)).labels).toEqual({ production: 2 });
    expect((await step(slug, randomUUID(), 'approve', KEYS.releaseCid)).status).toBe(404);

    const types = (await history(slug)).map((e) => e.type);
    expect(types).toEqual(expect.arrayContaining(['LabelMoveRejected', 'LabelMoveWithdrawn']));
  });

  it('protects the designated version the same way: a new version does not take it, and a designation waits for approval', async () => {
    const slug = fresh();
    await withVersions(slug, 2);
    const refused = await req(`/api/v1/presets/${slug}/designation/protection`, { method: 'PUT', json: { protected: true, approvals: 1 } });
    expect(refused.status).toBe(403);
    const protectedRes = await req(`/api/v1/presets/${slug}/designation/protection`, {
      method: 'PUT',
      json: { protected: true, approvals: 1 },
      key: KEYS.releaseAnn,
    });
    expect(protectedRes.status).toBe(200);
    expect((await protectedRes.json()).data.designation_protection).toEqual({ approvals: 1 });
    await withVersions(slug, 1); // version 3
    expect((await preset(slug)).designated_version.version).toBe(2);
    const byWriter = await req(`/api/v1/presets/${slug}/designated-version`, { method: 'PUT', json: { version: 3 } });
    expect(byWriter.status).toBe(403);
    const proposed = await req(`/api/v1/presets/${slug}/designated-version`, { method: 'PUT', json: { version: 3 }, key: KEYS.releaseAnn });
    expect(proposed.status).toBe(202);
    const { proposal_id: id, label } = (await proposed.json()).data;
    expect(label).toBeNull();
    expect((await step(slug, id, 'approve', KEYS.releaseBob)).status).toBe(200);
    expect((await preset(slug)).designated_version.version).toBe(3);
    const designated = (await history(slug)).filter((e) => e.type === 'PresetVersionDesignated');
    expect(designated.map((e) => [e.metadata.actorUserId, e.data.proposalId])).toEqual([['user-bob', id]]);
  });
});

describe("OpenRouter's delete and restore", () => {
  it('hides an archived preset from the get and the list; include_archived, versions and history still answer; delete is idempotent', async () => {
    const slug = fresh();
    await withVersions(slug, 2);
    const deleted = await req(`/api/v1/presets/${slug}`, { method: 'DELETE' });
    expect(deleted.status).toBe(200);
    const hidden = await req(`/api/v1/presets/${slug}`);
    expect(hidden.status).toBe(404);
    expect((await hidden.json()).error.metadata).toEqual({ reason: 'preset_archived' });
    const listed = (await (await req('/api/v1/presets?limit=100')).json()).data.map((p: { slug: string }) => p.slug);
    expect(listed).not.toContain(slug);
    expect((await (await req(`/api/v1/presets/${slug}?include_archived=true`)).json()).data).toMatchObject({ slug, status: 'archived' });
    expect((await req(`/api/v1/presets/${slug}/versions`)).status).toBe(200);
    expect((await req(`/api/v1/presets/${slug}/events`)).status).toBe(200);
    const events = (await history(slug)).length;
    expect((await req(`/api/v1/presets/${slug}`, { method: 'DELETE' })).status).toBe(200);
    expect((await history(slug)).length).toBe(events);
    expect((await req(`/api/v1/presets/${slug}?include_archived=maybe`)).status).toBe(400);
  });

  it('restores an archived preset with no new version and the designation unchanged; active answers unchanged; disabled is a 409 both ways', async () => {
    const slug = fresh();
    await withVersions(slug, 3);
    await req(`/api/v1/presets/${slug}/designated-version`, { method: 'PUT', json: { version: 1 } });
    await req(`/api/v1/presets/${slug}`, { method: 'DELETE' });
    const restored = await req(`/api/v1/presets/${slug}/restore`, { method: 'POST' });
    expect(restored.status).toBe(200);
    const body = (await restored.json()).data;
    expect(body).toMatchObject({ status: 'active', designated_version: { version: 1 } });
    expect((await (await req(`/api/v1/presets/${slug}/versions`)).json()).total_count).toBe(3);
    const events = (await history(slug)).length;
    expect((await req(`/api/v1/presets/${slug}/restore`, { method: 'POST' })).status).toBe(200);
    expect((await history(slug)).length).toBe(events);

    expect((await req(`/api/v1/presets/${slug}`, { method: 'PATCH', json: { status: 'disabled' } })).status).toBe(200);
    for (const res of [
      await req(`/api/v1/presets/${slug}`, { method: 'DELETE' }),
      await req(`/api/v1/presets/${slug}/restore`, { method: 'POST' }),
    ]) {
      expect(res.status).toBe(409);
      expect((await res.json()).error.metadata).toEqual({ reason: 'preset_disabled' });
    }
    // PATCH with status keeps working.
    expect((await req(`/api/v1/presets/${slug}`, { method: 'PATCH', json: { status: 'archived' } })).status).toBe(200);
    expect((await req(`/api/v1/presets/${slug}/restore`, { method: 'POST' })).status).toBe(200);
    expect((await req(`/api/v1/presets/${randomUUID()}/restore`, { method: 'POST' })).status).toBe(404);
  });
});
