import { randomUUID } from 'node:crypto';
import { generateApiKey } from '#src/auth/keyStore';
import { hashApiKey } from '#src/auth/keysFile';
import { keysStreamName } from '#src/keys/streamName';
import { useApiSpecification } from '../support/apiSpecification';
import { KEYS, WORKSPACE_A, chatBody } from '../support/service';

/**
 * What one person cannot do alone (docs/keys-and-release.md): the insider of the security review's
 * finding 3 holds presets:write, presets:release and keys:manage in workspace A, and tries every
 * way the review found, and the ones next to them, to move `production` of a preset whose label
 * needs two approvals, and to change its protection, remove it, or take the preset out of service.
 * None works; two other people approving does.
 */
const svc = useApiSpecification();

type Init = Parameters<typeof svc.request>[1];
const call = async (path: string, init: Init = {}) => {
  const res = await svc.request(path, init);
  const text = await res.text();
  return { status: res.status, body: text === '' ? undefined : JSON.parse(text) };
};
const INSIDER = KEYS.insider;
const slug = 'payments';
const url = (rest = '') => `/api/v1/presets/${slug}${rest}`;
const doc = async () => (await call(url(), { key: KEYS.writer })).body.data;
const makeKey = (json: Record<string, unknown>, key: string) =>
  call('/api/v1/keys', {
    method: 'POST',
    json: { scopes: ['presets:read', 'presets:write', 'presets:release', 'keys:manage'], workspaces: [WORKSPACE_A], ...json },
    key,
  });
const approve = (id: string, key: string) => call(url(`/proposals/${id}/approve`), { method: 'POST', key });

/** What must hold after every attempt: production on 1 with two approvals, the designation on 1 likewise, the preset active. */
const unmoved = async () =>
  expect(await doc()).toMatchObject({
    status: 'active',
    labels: { production: 1 },
    protected_labels: { production: { approvals: 2 } },
    designation_protection: { approvals: 2 },
    designated_version: { version: 1 },
  });

beforeAll(async () => {
  for (const temperature of [0.1, 0.2, 0.3]) {
    expect((await call(url('/chat/completions'), { method: 'POST', json: chatBody({ temperature }), key: KEYS.writer })).status).toBe(200);
  }
  expect((await call(url('/designated-version'), { method: 'PUT', json: { version: 1 }, key: KEYS.writer })).status).toBe(200);
  expect((await call(url('/labels/production'), { method: 'PUT', json: { version: 1 }, key: KEYS.writer })).status).toBe(200);
  for (const target of ['/labels/production/protection', '/designation/protection']) {
    expect((await call(url(target), { method: 'PUT', json: { protected: true, approvals: 2 }, key: INSIDER })).status).toBe(200);
  }
  await unmoved();
});

describe('the insider alone', () => {
  it('cannot approve their own move with keys minted for made-up users (a key made through the API is its maker’s)', async () => {
    const proposed = await call(url('/labels/production'), { method: 'PUT', json: { version: 2 }, key: INSIDER });
    expect(proposed.status).toBe(202);
    const id = proposed.body.data.proposal_id as string;
    for (const ghost of ['ghost1', 'ghost2']) {
      const refused = await makeKey({ user_id: ghost }, INSIDER);
      expect(refused.status).toBe(403);
      expect(refused.body.error.metadata).toEqual({ reason: 'user_not_own' });
    }
    // Keys made without a user_id are the insider's own, and so is every key they make in turn.
    const first = await makeKey({ name: 'second key' }, INSIDER);
    expect(first.status).toBe(201);
    expect(first.body.data).toMatchObject({ user_id: 'user-insider', created_by: 'user-insider' });
    const second = await makeKey({ name: 'third key' }, first.body.data.key);
    expect(second.body.data).toMatchObject({ user_id: 'user-insider', created_by_key_id: first.body.data.id });
    for (const key of [INSIDER, first.body.data.key, second.body.data.key]) {
      const res = await approve(id, key);
      expect(res.status).toBe(403);
    }
    await unmoved();
  });

  it('cannot approve with keys for made-up users that an earlier version let them make', async () => {
    // As the service before this guard stored them: ApiKeyCreated naming any user, made by the insider.
    const ghosts = ['ghost-old-1', 'ghost-old-2'].map((userId) => ({ userId, key: generateApiKey(), keyId: randomUUID() }));
    await svc.eventStore.append(
      keysStreamName(WORKSPACE_A),
      ghosts.map((g) => ({
        id: randomUUID(),
        type: 'ApiKeyCreated',
        data: {
          keyId: g.keyId,
          keySha256: hashApiKey(g.key),
          userId: g.userId,
          name: null,
          scopes: ['presets:read', 'presets:release'],
          workspaces: [WORKSPACE_A],
          expiresAt: null,
          occurredAt: new Date().toISOString(),
        },
        metadata: { requestId: randomUUID(), actorUserId: 'user-insider', schemaVersion: 2 },
      })),
      (await svc.eventStore.read(keysStreamName(WORKSPACE_A))).at(-1)?.revision ?? 'no_stream',
    );
    // Every replica follows the keys streams; the ghosts authenticate as the users they name…
    let me: Awaited<ReturnType<typeof call>>;
    for (const g of ghosts) {
      const deadline = Date.now() + 5000;
      do me = await call('/api/v1/me', { key: g.key });
      while (me.status !== 200 && Date.now() < deadline);
      expect({ status: me.status, body: me.body }).toMatchObject({ status: 200, body: { data: { user_id: g.userId } } });
    }
    // …but their maker was the insider, so they count as the insider.
    const proposed = await call(url('/designated-version'), { method: 'PUT', json: { version: 3 }, key: INSIDER });
    expect(proposed.status).toBe(202);
    for (const g of ghosts) {
      const res = await approve(proposed.body.data.proposal_id, g.key);
      expect([g.userId, res.status]).toEqual([g.userId, 403]);
      expect(res.body.error.message).toMatch(/proposer/);
    }
    await unmoved();
  });

  it('cannot lift or lower the protection, remove the label, or take the preset out of service: each is a proposal', async () => {
    const attempts: [string, string, unknown][] = [
      ['PUT', '/labels/production/protection', { protected: false }],
      ['PUT', '/labels/production/protection', { protected: true, approvals: 1 }],
      ['PUT', '/labels/production/protection', { protected: true, approvals: 0 }],
      ['PUT', '/designation/protection', { protected: false }],
      ['PUT', '/designation/protection', { protected: true, approvals: 0 }],
      ['DELETE', '/labels/production', undefined],
      ['DELETE', '', undefined],
      ['PATCH', '', { status: 'disabled' }],
      ['PATCH', '', { status: 'archived' }],
    ];
    for (const [method, path, json] of attempts) {
      const res = await call(url(path), { method, json, key: INSIDER });
      expect([method, path, res.status, res.body.data?.status, res.body.data?.approvals_required]).toEqual([
        method,
        path,
        202,
        'proposed',
        2,
      ]);
      expect((await approve(res.body.data.proposal_id, INSIDER)).status).toBe(403);
      await unmoved();
    }
    // Not split either, not even to "the same" version.
    const split = await call(url('/labels/production'), {
      method: 'PUT',
      json: {
        split: [
          { version: 1, weight: 1 },
          { version: 2, weight: 1000 },
        ],
      },
      key: INSIDER,
    });
    expect(split.status).toBe(409);
    // Raising the bar is no risk: it applies at once (and is put back only by proposal).
    await unmoved();
  });

  it('cannot use the right to act for others either: keys it makes for others count as itself, and so does the key that made a proposer', async () => {
    // The keys file's admin key may act for others (act_for_others), and releases.
    const proposed = await call(url('/labels/production'), { method: 'PUT', json: { version: 3 }, key: KEYS.admin });
    expect(proposed.status).toBe(202);
    const forOthers = [];
    for (const user of ['ghost-a', 'ghost-b']) {
      const made = await makeKey({ user_id: user, scopes: ['presets:read', 'presets:write', 'presets:release'] }, KEYS.admin);
      expect(made.status).toBe(201);
      expect(made.body.data).toMatchObject({ user_id: user, created_by: 'user-admin' });
      forOthers.push(made.body.data.key as string);
    }
    for (const key of forOthers) expect((await approve(proposed.body.data.proposal_id, key)).status).toBe(403);
    // A proposal by a key the admin made is not the admin's to approve.
    const byGhost = await call(url('/labels/production'), { method: 'PUT', json: { version: 2 }, key: forOthers[0]! });
    expect(byGhost.status).toBe(202);
    expect((await approve(byGhost.body.data.proposal_id, KEYS.admin)).status).toBe(403);
    await unmoved();
  });
});

describe('two other people', () => {
  it('move the label, and change its protection, by approving the insider’s proposals; one person approving twice is one approval', async () => {
    const proposed = await call(url('/labels/production'), { method: 'PUT', json: { version: 2 }, key: INSIDER });
    const id = proposed.body.data.proposal_id as string;
    expect((await approve(id, KEYS.releaseAnn)).status).toBe(200);
    expect((await approve(id, KEYS.releaseAnn)).status).toBe(409);
    expect((await doc()).labels).toEqual({ production: 1 });
    expect((await approve(id, KEYS.releaseBob)).status).toBe(200);
    expect((await doc()).labels).toEqual({ production: 2 });

    const lower = await call(url('/labels/production/protection'), {
      method: 'PUT',
      json: { protected: true, approvals: 1 },
      key: INSIDER,
    });
    expect(lower.status).toBe(202);
    expect((await approve(lower.body.data.proposal_id, KEYS.releaseAnn)).status).toBe(200);
    expect((await approve(lower.body.data.proposal_id, KEYS.releaseCid)).status).toBe(200);
    expect((await doc()).protected_labels).toEqual({ production: { approvals: 1 } });
    // Raising it again needs no one else.
    expect(
      (await call(url('/labels/production/protection'), { method: 'PUT', json: { protected: true, approvals: 2 }, key: INSIDER })).status,
    ).toBe(200);
    expect((await doc()).protected_labels).toEqual({ production: { approvals: 2 } });
  });
});
