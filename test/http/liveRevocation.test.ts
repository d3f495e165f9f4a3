import { createPresetClient, PresetServiceError } from '#src/client';
import { useApiSpecification } from '../support/apiSpecification';
import { KEYS, WORKSPACE_A, chatBody } from '../support/service';
import { drainSse, expectEndedByKeyGone, openSse } from '../support/sse';
import { until } from '../support/until';

/**
 * Finding 1 of the security review (issue 54): a key revoked or expired while it holds a live
 * stream open gets nothing more through it. The event stream (and with it `presets/client`'s
 * feed) ends within a second with a final `error` event; a consumer group's long poll answers 401;
 * on the process that took the revoke (a replica that learns of it from the log:
 * test/reliability/replicas.test.ts).
 */
const svc = useApiSpecification();

/** The bound the issue sets: a revoked or expired key's stream ends within a second. */
const WITHIN_MS = 1000;

const makeKey = async (extra: Record<string, unknown> = {}) => {
  const res = await svc.request('/api/v1/keys', {
    method: 'POST',
    json: { user_id: 'user-admin', scopes: ['presets:read', 'events:consume'], workspaces: [WORKSPACE_A], ...extra },
    key: KEYS.admin,
  });
  expect(res.status).toBe(201);
  return (await res.json()).data as { id: string; key: string };
};
const revoke = async (id: string) =>
  expect((await svc.request(`/api/v1/keys/${id}`, { method: 'DELETE', key: KEYS.admin })).status).toBe(200);
const write = async (slug: string) =>
  expect((await svc.request(`/api/v1/presets/${slug}/chat/completions`, { method: 'POST', json: chatBody() })).status).toBe(200);
const head = async () => (await svc.eventStore.headPosition())?.toString() ?? '0';

describe('the live event stream of a key', () => {
  it('ends within a second of its revoke, with a final error event, and carries nothing written after it', async () => {
    const key = await makeKey();
    const client = await openSse(`${svc.url}/api/v1/events?after=${await head()}`, { authorization: `Bearer ${key.key}` }, svc.fetch);
    await write('before-revoke');
    expect((await client.events(1))[0]!.event).toBe('PresetCreated');
    await revoke(key.id);
    const ended = drainSse(client, WITHIN_MS);
    await write('after-revoke');
    const frames = await ended;
    expectEndedByKeyGone(frames, 'key_revoked');
    expect(frames.filter((f) => f.data?.includes('after-revoke'))).toEqual([]);
  });

  it('ends within a second of its expiry', async () => {
    const expiresAt = Date.now() + 1500;
    const key = await makeKey({ expires_at: new Date(expiresAt).toISOString() });
    const client = await openSse(`${svc.url}/api/v1/events?after=${await head()}`, { authorization: `Bearer ${key.key}` }, svc.fetch);
    const frames = await drainSse(client, expiresAt - Date.now() + WITHIN_MS);
    expect(Date.now()).toBeGreaterThanOrEqual(expiresAt);
    expectEndedByKeyGone(frames, 'key_expired');
  });
});

describe("a consumer group's long poll", () => {
  it('answers 401 within a second of its key’s revoke, instead of waiting out wait_ms', async () => {
    const key = await makeKey();
    const group = `revoked-${key.id.slice(0, 8)}`;
    expect((await svc.request(`/api/v1/consumer-groups/${group}`, { method: 'PUT', json: { start: 'now' }, key: key.key })).status).toBe(
      201,
    );
    const started = Date.now();
    const poll = svc.request(`/api/v1/consumer-groups/${group}/fetch`, { method: 'POST', json: { wait_ms: 20_000 }, key: key.key });
    await new Promise((r) => setTimeout(r, 100)); // the poll is waiting
    await revoke(key.id);
    const revokedAt = Date.now();
    const res = await poll;
    expect(res.status).toBe(401);
    expect((await res.json()).error.metadata).toEqual({ reason: 'key_revoked' });
    expect(Date.now() - revokedAt).toBeLessThan(WITHIN_MS);
    expect(Date.now() - started).toBeLessThan(20_000);
  });
});

describe('presets/client', () => {
  it('is told its key was revoked: its feed ends with the error, and reconnecting is refused', async () => {
    const key = await makeKey();
    await write('client-revoked');
    const errors: unknown[] = [];
    const client = createPresetClient({
      baseUrl: svc.url,
      fetch: svc.fetch,
      apiKey: key.key,
      reconnect: { initialMs: 50, maxMs: 200 },
      revalidateAfterMs: 60_000,
      onError: (error) => errors.push(error),
    });
    try {
      await client.ready();
      await revoke(key.id);
      await until(() => errors.some((e) => e instanceof PresetServiceError && e.status === 401), WITHIN_MS * 2);
      expect(errors[0]).toBeInstanceOf(PresetServiceError);
      expect((errors[0] as PresetServiceError).status).toBe(401);
    } finally {
      await client.close();
    }
  });
});
