import { randomUUID } from 'node:crypto';
import { Agent, get as httpGet } from 'node:http';
import { hashApiKey } from '#src/auth/keysFile';
import { useApiSpecification } from '../support/apiSpecification';
import { KEYS, WORKSPACE_A, WORKSPACE_B, chatBody } from '../support/service';

/**
 * Keys through the API: made, used at once, listed without secrets, revoked, expired, each request
 * of a keep-alive connection by its own key; and a key acting in each of its workspaces by
 * `workspace_id`. Served on a loopback port (memory stores): a connection is a real socket here.
 * A second service on the same data directory: test/reliability/replicas.test.ts.
 */
const svc = useApiSpecification({}, { served: true });

const createKey = (json: unknown, key: string = KEYS.admin, query = '') =>
  svc.request(`/api/v1/keys${query}`, { method: 'POST', json, key });
const made = async (json: Record<string, unknown>) => {
  const res = await createKey({ user_id: 'user-made', scopes: ['presets:read', 'presets:write'], workspaces: [WORKSPACE_A], ...json });
  expect(res.status).toBe(201);
  return (await res.json()).data as { id: string; key: string; [k: string]: unknown };
};
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('keys through the API', () => {
  it('answers the key once; it works at once; the list shows who holds what, without the key or its hash', async () => {
    const key = await made({ name: 'ci', user_id: 'user-ci' });
    expect(key.key).toMatch(/^pk_[A-Za-z0-9_-]{43}$/);
    expect(key).toMatchObject({ name: 'ci', user_id: 'user-ci', workspaces: [WORKSPACE_A], revoked: false, created_by: 'user-admin' });
    const used = await svc.request('/api/v1/presets', { key: key.key });
    expect(used.status).toBe(200);

    const list = await svc.request('/api/v1/keys', { key: KEYS.admin });
    expect(list.status).toBe(200);
    const text = await list.text();
    const listed = JSON.parse(text).data.find((k: { id: string }) => k.id === key.id);
    expect(listed).toMatchObject({ id: key.id, user_id: 'user-ci', scopes: ['presets:read', 'presets:write'], revoked: false });
    // Last used to the minute.
    expect(listed.last_used_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:00\.000Z$/);
    expect(text).not.toContain(key.key);
    expect(text).not.toContain(hashApiKey(key.key));
  });

  it('keeps the key out of every other answer, every log line and every event (and the hash out of the feed)', async () => {
    const key = await made({ name: 'secret-check' });
    await svc.request('/api/v1/presets/secret-check/chat/completions', { method: 'POST', json: chatBody(), key: key.key });
    const revoked = await svc.request(`/api/v1/keys/${key.id}`, { method: 'DELETE', key: KEYS.admin });
    const answers = [
      await revoked.text(),
      await (await svc.request('/api/v1/keys', { key: KEYS.admin })).text(),
      await (await svc.request('/api/v1/events?limit=1000', { key: KEYS.admin })).text(),
      await (await svc.request('/api/v1/events?direction=backwards&limit=1000', { key: KEYS.admin })).text(),
      await (await svc.request('/api/v1/keys/events?limit=1000', { key: KEYS.readerOnly })).text(),
    ];
    for (const answer of answers) {
      expect(answer).not.toContain(key.key);
      expect(answer).not.toContain(hashApiKey(key.key));
    }
    expect(svc.logs.join('')).not.toContain(key.key);
    const stored = await svc.eventStore.readAll({ limit: 10_000 });
    expect(JSON.stringify(stored.map((e) => [e.data, e.metadata]))).not.toContain(key.key);
    // Auditors read the key's story from the workspace feed: who made it, who revoked it, when.
    const feed = JSON.parse(answers[2]!).data as Array<{
      type: string;
      data: { keyId: string };
      metadata: { actorUserId: string };
      recorded_at: string;
    }>;
    const story = feed.filter((e) => e.type.startsWith('ApiKey') && e.data.keyId === key.id);
    expect(story.map((e) => [e.type, e.metadata.actorUserId])).toEqual([
      ['ApiKeyCreated', 'user-admin'],
      ['ApiKeyRevoked', 'user-admin'],
    ]);
    // And from the keys stream's own history, with the key's details as made.
    const history = JSON.parse(answers[4]!).data as typeof feed;
    expect(history.filter((e) => e.data.keyId === key.id).map((e) => e.type)).toEqual(['ApiKeyCreated', 'ApiKeyRevoked']);
    expect(history.find((e) => e.data.keyId === key.id)!.data).toMatchObject({
      name: 'secret-check',
      userId: 'user-made',
      workspaces: [WORKSPACE_A],
    });
    // Workspace B's keys stream has none of A's keys.
    const inB = (await (await svc.request('/api/v1/keys/events', { key: KEYS.otherWorkspace })).json()).data as typeof feed;
    expect(inB.some((e) => e.data.keyId === key.id)).toBe(false);
  });

  it('refuses a revoked key at once, and an expired key', async () => {
    const key = await made({});
    expect((await svc.request('/api/v1/presets', { key: key.key })).status).toBe(200);
    const revoked = await svc.request(`/api/v1/keys/${key.id}`, { method: 'DELETE', key: KEYS.admin });
    expect(revoked.status).toBe(200);
    expect((await revoked.json()).data).toMatchObject({ id: key.id, revoked: true, revoked_by: 'user-admin' });
    expect((await svc.request('/api/v1/presets', { key: key.key })).status).toBe(401);
    // Revoking again changes nothing.
    expect((await svc.request(`/api/v1/keys/${key.id}`, { method: 'DELETE', key: KEYS.admin })).status).toBe(200);

    const soon = await made({ expires_at: new Date(Date.now() + 1500).toISOString() });
    expect((await svc.request('/api/v1/presets', { key: soon.key })).status).toBe(200);
    await sleep(1600);
    const expired = await svc.request('/api/v1/presets', { key: soon.key });
    expect(expired.status).toBe(401);
    expect(
      (await createKey({ user_id: 'u', scopes: ['presets:read'], workspaces: [WORKSPACE_A], expires_at: '2020-01-01T00:00:00Z' })).status,
    ).toBe(400);
  });

  it('authenticates every request of one keep-alive connection by its own key: keys in turn, an unknown one, a revoked one, an expired one', async () => {
    // The service keeps a connection's last key digest (src/auth/connectionDigests.ts): whatever it
    // remembers, each request must be answered as its own key, and the ring must still decide.
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    const reused: boolean[] = [];
    const status = (key: string) =>
      new Promise<number>((resolve, reject) => {
        const req = httpGet(`${svc.url}/api/v1/presets`, { agent, headers: { authorization: `Bearer ${key}` } }, (res) => {
          res.resume();
          res.on('end', () => resolve(res.statusCode!));
        });
        req.on('socket', () => reused.push(req.reusedSocket));
        req.on('error', reject);
      });
    try {
      const key = await made({});
      const soon = await made({ expires_at: new Date(Date.now() + 1500).toISOString() });
      const sameLength = `pk_${'x'.repeat(key.key.length - 3)}`;
      expect(await status(key.key)).toBe(200);
      expect(await status(KEYS.writerOnly)).toBe(403); // its own key's scopes, not the last request's
      expect(await status(key.key)).toBe(200);
      expect(await status(sameLength)).toBe(401);
      expect(await status(`${key.key}x`)).toBe(401);
      expect(await status(key.key)).toBe(200);
      expect((await svc.request(`/api/v1/keys/${key.id}`, { method: 'DELETE', key: KEYS.admin })).status).toBe(200);
      expect(await status(key.key)).toBe(401);
      expect(await status(soon.key)).toBe(200);
      await sleep(1600);
      expect(await status(soon.key)).toBe(401);
      expect(reused).toEqual([false, ...Array<boolean>(reused.length - 1).fill(true)]);
    } finally {
      agent.destroy();
    }
  });

  it('needs keys:manage to list, make or revoke keys', async () => {
    for (const res of [
      await svc.request('/api/v1/keys', { key: KEYS.writer }),
      await createKey({ user_id: 'u', scopes: ['presets:read'], workspaces: [WORKSPACE_A] }, KEYS.writer),
      await svc.request(`/api/v1/keys/${randomUUID()}`, { method: 'DELETE', key: KEYS.writer }),
    ]) {
      expect(res.status).toBe(403);
      expect((await res.json()).error.metadata).toMatchObject({ required_scope: 'keys:manage' });
    }
  });

  it('gives no key a workspace or a scope its maker lacks, and refuses a bad body with the paths', async () => {
    const other = randomUUID();
    const foreign = await createKey({ user_id: 'u', scopes: ['presets:read'], workspaces: [WORKSPACE_A, other] });
    expect(foreign.status).toBe(403);
    expect((await foreign.json()).error.message).toContain(other);
    const manager = await made({ scopes: ['keys:manage', 'presets:read'] });
    const beyond = await createKey({ scopes: ['presets:write'], workspaces: [WORKSPACE_A] }, manager.key);
    expect(beyond.status).toBe(403);
    expect((await beyond.json()).error.message).toContain('presets:write');

    const bad = await createKey({ user_id: '', scopes: ['presets:fly'], workspaces: ['nope'] });
    expect(bad.status).toBe(400);
    const paths = (await bad.json()).error.metadata.errors.map((e: { path: string }) => e.path);
    expect(paths).toEqual(['$.scopes[0]', '$.workspaces[0]', '$.user_id']);
    const misspelt = await createKey({
      user_id: 'u',
      scopes: ['presets:read'],
      workspaces: [WORKSPACE_A],
      expires: '2030-01-01T00:00:00Z',
    });
    expect(misspelt.status).toBe(400);
    expect((await misspelt.json()).error.metadata.errors).toEqual([expect.objectContaining({ path: '$.expires' })]);
    const before = (await svc.eventStore.readAll({ limit: 10_000 })).length;
    expect((await createKey({ user_id: 'u', scopes: [], workspaces: [WORKSPACE_A] })).status).toBe(400);
    expect((await svc.eventStore.readAll({ limit: 10_000 })).length).toBe(before); // nothing stored
    expect((await svc.request(`/api/v1/keys/${randomUUID()}`, { method: 'DELETE', key: KEYS.admin })).status).toBe(404);
  });

  it('lets a key with two workspaces act in each by workspace_id (query or body), and refuses a third', async () => {
    const key = await made({ workspaces: [WORKSPACE_B, WORKSPACE_A] });
    const slug = `two-${randomUUID().slice(0, 8)}`;
    const inA = await svc.request(`/api/v1/presets/${slug}/chat/completions?workspace_id=${WORKSPACE_A}`, {
      method: 'POST',
      json: chatBody({ temperature: 0.1 }),
      key: key.key,
    });
    expect(inA.status).toBe(200);
    expect((await inA.json()).data.workspace_id).toBe(WORKSPACE_A);
    const inB = await svc.request(`/api/v1/presets/${slug}/chat/completions`, {
      method: 'POST',
      json: { ...chatBody({ temperature: 0.9 }), workspace_id: WORKSPACE_B },
      key: key.key,
    });
    expect(inB.status).toBe(200);
    const inBJson = (await inB.json()).data;
    expect(inBJson.workspace_id).toBe(WORKSPACE_B);
    // The field chooses the workspace; it is not part of the preset.
    expect(inBJson.designated_version.config).not.toHaveProperty('workspace_id');
    // Without workspace_id: the key's first workspace (B).
    expect((await (await svc.request(`/api/v1/presets/${slug}`, { key: key.key })).json()).data.designated_version.config.temperature).toBe(
      0.9,
    );
    expect(
      (await (await svc.request(`/api/v1/presets/${slug}?workspace_id=${WORKSPACE_A}`, { key: key.key })).json()).data.designated_version
        .config.temperature,
    ).toBe(0.1);
    // Each workspace's own reads and writers see their own preset.
    expect((await (await svc.request(`/api/v1/presets/${slug}`, { key: KEYS.writer })).json()).data.workspace_id).toBe(WORKSPACE_A);
    expect((await (await svc.request(`/api/v1/presets/${slug}`, { key: KEYS.otherWorkspace })).json()).data.workspace_id).toBe(WORKSPACE_B);

    const third = randomUUID();
    const refused = await svc.request(`/api/v1/presets?workspace_id=${third}`, { key: key.key });
    expect(refused.status).toBe(403);
    expect((await refused.json()).error).toMatchObject({
      message: `this API key does not hold workspace ${third}`,
      metadata: { reason: 'workspace_not_held', workspace_id: third },
    });
    const inBody = await svc.request(`/api/v1/presets/${slug}/chat/completions`, {
      method: 'POST',
      json: { ...chatBody(), workspace_id: third },
      key: key.key,
    });
    expect(inBody.status).toBe(403);
    const contradicting = await svc.request(`/api/v1/presets/${slug}/chat/completions?workspace_id=${WORKSPACE_A}`, {
      method: 'POST',
      json: { ...chatBody(), workspace_id: WORKSPACE_B },
      key: key.key,
    });
    expect(contradicting.status).toBe(400);
    expect((await svc.request('/api/v1/presets?workspace_id=not-a-uuid', { key: key.key })).status).toBe(400);
  });
});

describe('workspace_id on the routes beside the presets (consumer groups, usage, resolve, events)', () => {
  it('acts in the workspace the query names, one the key holds, and nowhere else', async () => {
    const inB = `?workspace_id=${WORKSPACE_B}`;
    const admin = (path: string, init: { method?: string; json?: unknown } = {}) => svc.request(path, { key: KEYS.admin, ...init });
    const slug = `ws-${randomUUID().slice(0, 8)}`;
    expect((await admin(`/api/v1/presets/${slug}/chat/completions${inB}`, { method: 'POST', json: chatBody() })).status).toBe(200);

    // A consumer group defined in B is B's: B's own key sees it, A's does not, and the admin key sees it only in B.
    expect((await admin(`/api/v1/consumer-groups/ws-group${inB}`, { method: 'PUT', json: {} })).status).toBe(201);
    expect((await svc.request('/api/v1/consumer-groups/ws-group', { key: KEYS.otherWorkspace })).status).toBe(200);
    expect((await svc.request('/api/v1/consumer-groups/ws-group', { key: KEYS.writer })).status).toBe(404);
    expect((await admin('/api/v1/consumer-groups/ws-group')).status).toBe(404); // the admin key's first workspace is A
    const fetched = await admin(`/api/v1/consumer-groups/ws-group/fetch${inB}`, { method: 'POST', json: { max: 10 } });
    expect(fetched.status).toBe(200);
    const batch = (await fetched.json()) as { data: { stream: string }[] };
    expect(batch.data.length).toBeGreaterThan(0);
    expect(batch.data.every((e) => e.stream.startsWith(`preset-${WORKSPACE_B}-`))).toBe(true);

    // Resolving and its usage counts, and the events: B's, by workspace_id.
    const resolved = await admin(`/api/v1/resolve/chat/completions${inB}`, {
      method: 'POST',
      json: { model: `@preset/${slug}`, messages: [] },
    });
    expect(resolved.status).toBe(200);
    expect(
      (await admin('/api/v1/resolve/chat/completions', { method: 'POST', json: { model: `@preset/${slug}`, messages: [] } })).status,
    ).toBe(404);
    expect((await admin(`/api/v1/presets/${slug}/usage${inB}`)).status).toBe(200);
    expect((await admin(`/api/v1/presets/${slug}/usage`)).status).toBe(404);
    const events = (await (await admin(`/api/v1/events${inB}&limit=1000`)).json()) as { data: { stream: string }[] };
    expect(events.data.some((e) => e.stream === `preset-${WORKSPACE_B}-${slug}`)).toBe(true);
    expect(events.data.every((e) => e.stream.startsWith(`preset-${WORKSPACE_B}-`))).toBe(true);
  });
});
