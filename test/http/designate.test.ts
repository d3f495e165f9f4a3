import { ConcurrencyConflict, type EventStore } from '#src/eventstore/eventStore';
import { createPresetCommandHandler, PreconditionFailed, type PresetCommandRequest } from '#src/presets/handler';
import { presetStreamName } from '#src/presets/streamName';
import { startApiSpecification, useApiSpecification } from '../support/apiSpecification';
import { chatBody, KEYS, WORKSPACE_A } from '../support/service';

const svc = useApiSpecification();

const post = (slug: string, prompt = 'p', headers: Record<string, string> = {}) =>
  svc.request(`/api/v1/presets/${slug}/chat/completions`, {
    method: 'POST',
    headers,
    json: chatBody({ messages: [{ role: 'system', content: prompt }] }),
  });
const put = (slug: string, json: unknown, init: { key?: string; headers?: Record<string, string> } = {}) =>
  svc.request(`/api/v1/presets/${slug}/designated-version`, { method: 'PUT', json, ...init });
const streamLength = async (slug: string) => (await svc.eventStore.read(presetStreamName(WORKSPACE_A, slug))).length;
/** A preset with versions 1..n (revisions 0..n-1). */
const withVersions = async (slug: string, n = 3) => {
  for (let i = 1; i <= n; i++) expect((await post(slug, `v${i}`)).status).toBe(200);
};

describe('PUT /api/v1/presets/{slug}/designated-version', () => {
  it('rolls back to version 1; reads show it; a new version is numbered 4 and becomes designated', async () => {
    await withVersions('rollback');
    const res = await put('rollback', { version: 1 });
    expect(res.status).toBe(200);
    expect(res.headers.get('etag')).toBe('"3"');
    expect(res.headers.get('location')).toBe('/api/v1/presets/rollback');
    const body = await res.json();
    expect(body.data.designated_version).toMatchObject({ version: 1, system_prompt: 'v1' });
    expect(body.data.designated_version_id).toBe(body.data.designated_version.id);

    const get = await svc.request('/api/v1/presets/rollback');
    expect(get.headers.get('etag')).toBe('"3"');
    expect((await get.json()).data).toEqual(body.data);
    const versions = await (await svc.request('/api/v1/presets/rollback/versions')).json();
    expect(versions.data.map((v: { version: number }) => v.version)).toEqual([1, 2, 3]);

    const next = await post('rollback', 'v4');
    expect(next.headers.get('etag')).toBe('"4"');
    expect((await next.json()).data.designated_version).toMatchObject({ version: 4, system_prompt: 'v4' });
  });

  it('honours If-Match: the current ETag works, a stale one is 412 and stores nothing', async () => {
    await withVersions('guarded');
    const etag = (await svc.request('/api/v1/presets/guarded')).headers.get('etag')!;
    expect(etag).toBe('"2"');
    const ok = await put('guarded', { version: 1 }, { headers: { 'If-Match': etag } });
    expect(ok.status).toBe(200);
    const before = await streamLength('guarded');
    const stale = await put('guarded', { version: 3 }, { headers: { 'If-Match': etag } });
    expect(stale.status).toBe(412);
    expect((await stale.json()).error).toMatchObject({ code: 412 });
    expect(await streamLength('guarded')).toBe(before);
    // A POST honours it too, with the ETag its own answer or the PUT's gave.
    expect((await post('guarded', 'x', { 'If-Match': etag })).status).toBe(412);
    expect((await post('guarded', 'x', { 'If-Match': ok.headers.get('etag')! })).status).toBe(200);
  });

  it('answers 400 for an If-Match that is not an ETag, 412 for one that can never match', async () => {
    await withVersions('odd-etag', 1);
    expect((await put('odd-etag', { version: 1 }, { headers: { 'If-Match': '0' } })).status).toBe(400);
    expect((await put('odd-etag', { version: 1 }, { headers: { 'If-Match': '"0", "1"' } })).status).toBe(400);
    expect((await put('odd-etag', { version: 1 }, { headers: { 'If-Match': 'W/"0"' } })).status).toBe(412);
    expect((await put('odd-etag', { version: 1 }, { headers: { 'If-Match': '*' } })).status).toBe(200);
  });

  it('is a no-op for the designated version: 200 with the preset as it is, nothing stored', async () => {
    await withVersions('noop', 2);
    const before = await streamLength('noop');
    const res = await put('noop', { version: 2 });
    expect(res.status).toBe(200);
    expect(res.headers.get('etag')).toBe('"1"');
    expect((await res.json()).data.designated_version.version).toBe(2);
    expect(await streamLength('noop')).toBe(before);
  });

  it('answers 404 for an unknown version, an unknown preset, and another workspace’s preset', async () => {
    await withVersions('mine', 2);
    const unknown = await put('mine', { version: 3 });
    expect(unknown.status).toBe(404);
    expect((await unknown.json()).error.message).toMatch(/no version 3/);
    expect((await put('nobody-here', { version: 1 })).status).toBe(404);
    expect((await put('mine', { version: 1 }, { key: KEYS.otherWorkspace })).status).toBe(404);
    expect(await streamLength('mine')).toBe(2);
  });

  it.each([[{ version: 0 }], [{ version: -1 }], [{ version: 1.5 }], [{ version: '1' }], [{}], [{ version: null }], [[1]], [1]])(
    'answers 400 with the JSON path for the body %j',
    async (json) => {
      await withVersions('strict', 1);
      const res = await put('strict', json);
      expect(res.status).toBe(400);
      const { error } = await res.json();
      expect(error.metadata.errors[0].path).toBe(Array.isArray(json) || typeof json !== 'object' ? '$' : '$.version');
    },
  );

  it('needs presets:write: a reader-only key gets 403', async () => {
    await withVersions('scoped', 1);
    expect((await put('scoped', { version: 1 }, { key: KEYS.readerOnly })).status).toBe(403);
  });
});

describe('conflicts: If-Match failures are 412, lost races 409', () => {
  const request = (requestId: string): PresetCommandRequest => ({
    type: 'AddPresetVersion',
    data: { workspaceId: WORKSPACE_A, slug: 'race', config: {}, systemPrompt: '' },
    metadata: { requestId, actorUserId: 'u' },
  });
  /** A store whose read lets a competing write in right after it answers. */
  const racing = (): EventStore => ({
    ...svc.eventStore,
    read: async (stream, options) => {
      const events = await svc.eventStore.read(stream, options);
      await createPresetCommandHandler({ eventStore: svc.eventStore })(request('competitor'));
      return events;
    },
  });

  it('tells the two apart', async () => {
    await withVersions('race', 1);
    const handle = createPresetCommandHandler({ eventStore: racing() });
    const lost = handle(request('loser'));
    await expect(lost).rejects.toBeInstanceOf(ConcurrencyConflict);
    await expect(lost).rejects.not.toBeInstanceOf(PreconditionFailed);
    // With If-Match the append's expected revision is the client's: losing the race means it is stale.
    const revision = BigInt(await streamLength('race')) - 1n;
    await expect(handle(request('guarded'), { expectedRevision: revision })).rejects.toBeInstanceOf(PreconditionFailed);
  });
});

describe('when the read model lags', () => {
  it('answers 202 pending with the preset to poll, and the write is stored', async () => {
    const lagging = await startApiSpecification({ PROJECTOR: 'off', READ_YOUR_WRITES_TIMEOUT_MS: '50' });
    try {
      for (const p of ['a', 'b'])
        await lagging.request('/api/v1/presets/slow/chat/completions', {
          method: 'POST',
          json: chatBody({ messages: [{ role: 'system', content: p }] }),
        });
      const res = await lagging.request('/api/v1/presets/slow/designated-version', { method: 'PUT', json: { version: 1 } });
      expect(res.status).toBe(202);
      expect(res.headers.get('location')).toBe('/api/v1/presets/slow');
      expect((await res.json()).data).toMatchObject({ slug: 'slow', version: 1, status: 'pending' });
      const types = (await lagging.eventStore.read(presetStreamName(WORKSPACE_A, 'slow'))).map((e) => e.type);
      expect(types).toEqual(['PresetCreated', 'PresetVersionAdded', 'PresetVersionDesignated']);
    } finally {
      await lagging.close();
    }
  });
});
