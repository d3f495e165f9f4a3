import { presetStreamName } from '#src/presets/streamName';
import { startApiSpecification, useApiSpecification } from '../support/apiSpecification';
import { chatBody, KEYS, WORKSPACE_A } from '../support/service';

/** The preset lifecycle over HTTP: details, statuses, labels and notes, each change an event. */
const svc = useApiSpecification();

type Init = { key?: string; headers?: Record<string, string> };
const post = (slug: string, prompt = 'p', headers: Record<string, string> = {}) =>
  svc.request(`/api/v1/presets/${slug}/chat/completions`, {
    method: 'POST',
    headers,
    json: chatBody({ messages: [{ role: 'system', content: prompt }] }),
  });
const patch = (slug: string, json: unknown, init: Init = {}) => svc.request(`/api/v1/presets/${slug}`, { method: 'PATCH', json, ...init });
const archive = (slug: string, init: Init = {}) => svc.request(`/api/v1/presets/${slug}`, { method: 'DELETE', ...init });
const putLabel = (slug: string, label: string, json: unknown, init: Init = {}) =>
  svc.request(`/api/v1/presets/${slug}/labels/${label}`, { method: 'PUT', json, ...init });
const removeLabel = (slug: string, label: string, init: Init = {}) =>
  svc.request(`/api/v1/presets/${slug}/labels/${label}`, { method: 'DELETE', ...init });
const designate = (slug: string, json: unknown, init: Init = {}) =>
  svc.request(`/api/v1/presets/${slug}/designated-version`, { method: 'PUT', json, ...init });
const get = async (slug: string) => (await (await svc.request(`/api/v1/presets/${slug}`)).json()).data;
const getArchived = async (slug: string) => (await (await svc.request(`/api/v1/presets/${slug}?include_archived=true`)).json()).data;
const history = async (slug: string) =>
  (await (await svc.request(`/api/v1/presets/${slug}/events?limit=1000`)).json()).data as HistoryEvent[];
const streamLength = async (slug: string) => (await svc.eventStore.read(presetStreamName(WORKSPACE_A, slug))).length;
const withVersions = async (slug: string, n = 3) => {
  for (let i = 1; i <= n; i++) expect((await post(slug, `v${i}`)).status).toBe(200);
};
interface HistoryEvent {
  type: string;
  revision: number;
  recorded_at: string;
  data: Record<string, unknown>;
  metadata: { actorUserId: string };
}

describe('PATCH /api/v1/presets/{slug}', () => {
  it('changes name and description, one event with only what changed; status in its own event with its time', async () => {
    await withVersions('details', 1);
    const before = await get('details');
    expect(before).toMatchObject({ name: 'details', description: null, status: 'active', status_updated_at: null, labels: {} });

    const res = await patch('details', { name: 'Support bot', description: 'Answers tickets.' });
    expect(res.status).toBe(200);
    expect(res.headers.get('etag')).toBe('"1"');
    const renamed = (await res.json()).data;
    expect(renamed).toMatchObject({
      name: 'Support bot',
      description: 'Answers tickets.',
      slug: 'details',
      status: 'active',
      status_updated_at: null,
    });
    expect(renamed.updated_at > before.updated_at).toBe(true);
    expect(renamed.designated_version).toEqual(before.designated_version);

    const disabled = (await (await patch('details', { status: 'disabled', name: 'Support bot' })).json()).data;
    expect(disabled).toMatchObject({ status: 'disabled', name: 'Support bot' });
    expect(disabled.status_updated_at).toBe(disabled.updated_at);
    const cleared = (await (await patch('details', { description: null })).json()).data;
    expect(cleared).toMatchObject({ description: null, status: 'disabled', status_updated_at: disabled.status_updated_at });

    const events = await history('details');
    expect(events.map((e) => e.type)).toEqual(['PresetCreated', 'PresetDetailsChanged', 'PresetStatusChanged', 'PresetDetailsChanged']);
    expect(events[1]!.data).toEqual({
      presetId: before.id,
      name: 'Support bot',
      description: 'Answers tickets.',
      occurredAt: renamed.updated_at,
    });
    expect(events[2]!.data).toEqual({ presetId: before.id, status: 'disabled', previousStatus: 'active', occurredAt: disabled.updated_at });
    expect(events[2]!.metadata.actorUserId).toBe('user-writer');
  });

  it('stores nothing and answers 200 when nothing changes', async () => {
    await withVersions('same', 1);
    const etag = (await svc.request('/api/v1/presets/same')).headers.get('etag');
    for (const json of [{ name: 'same' }, { status: 'active', description: null }]) {
      const res = await patch('same', json);
      expect(res.status).toBe(200);
      expect(res.headers.get('etag')).toBe(etag);
    }
    expect(await streamLength('same')).toBe(1);
  });

  it.each([
    ['an empty name', { name: '' }, ['$.name']],
    ['a name of 201 characters', { name: 'x'.repeat(201) }, ['$.name']],
    ['a description of 2,001 characters', { description: 'd'.repeat(2001) }, ['$.description']],
    ['an unknown status', { status: 'deleted' }, ['$.status']],
    ['a null status', { status: null }, ['$.status']],
    ['a misspelt field', { descripton: 'typo' }, ['$.descripton']],
    ['a wrong type and an unknown field', { name: 1, extra: true }, ['$.name', '$.extra']],
    ['a list', [], ['$']],
    ['an empty object: nothing to change', {}, ['$']],
  ])('answers 400 naming every offending path for %s, and stores nothing', async (_what, json, paths) => {
    await withVersions('bad-patch', 1);
    const before = await streamLength('bad-patch');
    const res = await patch('bad-patch', json);
    expect(res.status).toBe(400);
    expect((await res.json()).error.metadata.errors.map((e: { path: string }) => e.path).sort()).toEqual([...paths].sort());
    expect(await streamLength('bad-patch')).toBe(before);
  });

  it('takes 200 characters of name and 2,000 of description, counted as a reader counts them', async () => {
    await withVersions('long', 1);
    const res = await patch('long', { name: '🙂'.repeat(200), description: 'é'.repeat(2000) });
    expect(res.status).toBe(200);
  });

  it('404 for an unknown preset and another workspace’s; 403 without presets:write', async () => {
    await withVersions('owned', 1);
    expect((await patch('nobody', { name: 'x' })).status).toBe(404);
    expect((await patch('owned', { name: 'x' }, { key: KEYS.otherWorkspace })).status).toBe(404);
    expect((await patch('owned', { name: 'x' }, { key: KEYS.readerOnly })).status).toBe(403);
    expect((await archive('owned', { key: KEYS.readerOnly })).status).toBe(403);
    expect((await putLabel('owned', 'production', { version: 1 }, { key: KEYS.readerOnly })).status).toBe(403);
    expect((await removeLabel('owned', 'production', { key: KEYS.readerOnly })).status).toBe(403);
    expect(await streamLength('owned')).toBe(1);
  });
});

describe('statuses', () => {
  it('archived: DELETE archives; hidden from the get (as OpenRouter answers) but for include_archived; changes refused with 409; PATCH restores', async () => {
    await withVersions('retired', 2);
    expect((await putLabel('retired', 'production', { version: 1 })).status).toBe(200);
    const res = await archive('retired');
    expect(res.status).toBe(200);
    expect((await res.json()).data).toMatchObject({ status: 'archived' });
    expect((await svc.request('/api/v1/presets/retired/events')).status).toBe(200);
    expect((await svc.request('/api/v1/presets/retired/versions/2')).status).toBe(200);
    const hidden = await svc.request('/api/v1/presets/retired');
    expect(hidden.status).toBe(404);
    expect((await hidden.json()).error.metadata).toEqual({ reason: 'preset_archived' });
    expect(await getArchived('retired')).toMatchObject({ status: 'archived', labels: { production: 1 } });

    const before = await streamLength('retired');
    for (const refused of [
      await post('retired', 'v3'),
      await putLabel('retired', 'production', { version: 2 }),
      await removeLabel('retired', 'production'),
      await designate('retired', { version: 1 }),
    ]) {
      expect(refused.status).toBe(409);
      const { error } = await refused.json();
      expect(error.message).toMatch(/archived.*restore it first/);
      expect(error.metadata).toEqual({ reason: 'preset_archived' });
    }
    expect(await streamLength('retired')).toBe(before);
    expect((await archive('retired')).status).toBe(200); // archiving an archived preset changes nothing
    expect(await streamLength('retired')).toBe(before);

    const restored = await patch('retired', { status: 'disabled' });
    expect((await restored.json()).data).toMatchObject({ status: 'disabled', labels: { production: 1 } });
    expect((await post('retired', 'v3')).status).toBe(200);
    expect((await patch('retired', { status: 'active' })).status).toBe(200);
  });

  it('disabled: versions, labels and designations still work', async () => {
    await withVersions('paused', 2);
    expect((await patch('paused', { status: 'disabled' })).status).toBe(200);
    expect((await post('paused', 'v3')).status).toBe(200);
    expect((await putLabel('paused', 'staging', { version: 3 })).status).toBe(200);
    expect((await designate('paused', { version: 1 })).status).toBe(200);
    expect(await get('paused')).toMatchObject({ status: 'disabled', labels: { staging: 3 }, designated_version: { version: 1 } });
  });

  it('the slug of an archived preset stays taken', async () => {
    await withVersions('taken', 1);
    await archive('taken');
    expect((await post('taken', 'again')).status).toBe(409);
    expect(await getArchived('taken')).toMatchObject({ status: 'archived', designated_version: { version: 1 } });
  });
});

describe('GET /api/v1/presets?status=', () => {
  it('lists active and disabled by default, one status or all on request, total_count counting what is listed', async () => {
    const list = await startApiSpecification();
    try {
      const write = (path: string, init: RequestInit & { json?: unknown } = {}) => list.request(path, init);
      for (const slug of ['a1', 'a2', 'd1', 'x1', 'x2']) {
        await write(`/api/v1/presets/${slug}/chat/completions`, { method: 'POST', json: chatBody() });
      }
      await write('/api/v1/presets/d1', { method: 'PATCH', json: { status: 'disabled' } });
      for (const slug of ['x1', 'x2']) await write(`/api/v1/presets/${slug}`, { method: 'DELETE' });
      const listed = async (query = '') => {
        const body = await (await write(`/api/v1/presets${query}`)).json();
        return { slugs: body.data.map((p: { slug: string }) => p.slug).sort(), total: body.total_count };
      };
      expect(await listed()).toEqual({ slugs: ['a1', 'a2', 'd1'], total: 3 });
      expect(await listed('?status=active')).toEqual({ slugs: ['a1', 'a2'], total: 2 });
      expect(await listed('?status=disabled')).toEqual({ slugs: ['d1'], total: 1 });
      expect(await listed('?status=archived')).toEqual({ slugs: ['x1', 'x2'], total: 2 });
      expect(await listed('?status=all')).toEqual({ slugs: ['a1', 'a2', 'd1', 'x1', 'x2'], total: 5 });
      const paged = await (await write('/api/v1/presets?status=all&limit=2&offset=1')).json();
      expect(paged.data).toHaveLength(2);
      expect(paged.total_count).toBe(5);
      for (const bad of ['?status=deleted', '?status=active&status=archived', '?status=']) {
        const res = await write(`/api/v1/presets${bad}`);
        expect(res.status).toBe(400);
        expect((await res.json()).error.metadata.errors[0].path).toBe('status');
      }
    } finally {
      await list.close();
    }
  });
});

describe('labels', () => {
  it('are created, moved and removed; the preset shows them; the history says who moved which from where to where', async () => {
    await withVersions('labelled', 3);
    const created = await putLabel('labelled', 'production', { version: 2, note: 'release 2' });
    expect(created.status).toBe(200);
    expect((await created.json()).data).toMatchObject({ labels: { production: 2 }, designated_version: { version: 3 } });
    await putLabel('labelled', 'staging', { version: 3 });
    const moved = await (await putLabel('labelled', 'production', { version: 3 })).json();
    expect(moved.data.labels).toEqual({ production: 3, staging: 3 });
    const removed = await removeLabel('labelled', 'staging');
    expect(removed.status).toBe(200);
    expect((await removed.json()).data.labels).toEqual({ production: 3 });
    expect((await get('labelled')).labels).toEqual({ production: 3 });

    const events = (await history('labelled')).filter((e) => e.type.startsWith('PresetLabel'));
    const preset = await get('labelled');
    expect(
      events.map((e) => [
        e.type,
        e.data.label,
        'previousVersionNumber' in e.data ? e.data.previousVersionNumber : '-',
        e.data.versionNumber,
      ]),
    ).toEqual([
      ['PresetLabelMoved', 'production', null, 2],
      ['PresetLabelMoved', 'staging', null, 3],
      ['PresetLabelMoved', 'production', 2, 3],
      ['PresetLabelRemoved', 'staging', '-', 3],
    ]);
    expect(events[0]!.data).toMatchObject({ presetId: preset.id, note: 'release 2' });
    expect(events[2]!.data.versionId).toBe(preset.designated_version.id);
    expect(events.every((e) => e.metadata.actorUserId === 'user-writer' && !Number.isNaN(Date.parse(e.data.occurredAt as string)))).toBe(
      true,
    );
  });

  it('moving a label to the version it names stores nothing', async () => {
    await withVersions('steady', 2);
    await putLabel('steady', 'production', { version: 1 });
    const before = await streamLength('steady');
    const again = await putLabel('steady', 'production', { version: 1 });
    expect(again.status).toBe(200);
    expect(await streamLength('steady')).toBe(before);
  });

  it('404 for a label that is not there, a version that does not exist, a preset that does not exist', async () => {
    await withVersions('sparse', 1);
    expect((await removeLabel('sparse', 'production')).status).toBe(404);
    const noVersion = await putLabel('sparse', 'production', { version: 2 });
    expect(noVersion.status).toBe(404);
    expect((await noVersion.json()).error.message).toMatch(/no version 2/);
    expect((await putLabel('nowhere', 'production', { version: 1 })).status).toBe(404);
    expect((await removeLabel('sparse', 'constructor')).status).toBe(404);
  });

  it.each([
    ['Production', 'label'],
    ['-dash', 'label'],
    ['x'.repeat(37), 'label'],
    ['latest', 'label'],
    ['sp%20ace', 'label'],
  ])('refuses the label name %s with 400', async (label, path) => {
    await withVersions('names', 1);
    const res = await putLabel('names', label, { version: 1 });
    expect(res.status).toBe(400);
    expect((await res.json()).error.metadata.errors[0].path).toBe(path);
  });

  it('accepts every allowed kind of name', async () => {
    await withVersions('kinds', 1);
    for (const label of ['a', '0', 'prod.eu-1_b', 'a'.repeat(36), 'constructor', 'latest2']) {
      expect((await putLabel('kinds', label, { version: 1 })).status).toBe(200);
    }
    expect(Object.keys((await get('kinds')).labels).sort()).toEqual(
      ['0', 'a', 'a'.repeat(36), 'constructor', 'latest2', 'prod.eu-1_b'].sort(),
    );
  });

  it.each([
    ['no version', {}],
    ['version 0', { version: 0 }],
    ['a version as a string', { version: '1' }],
    ['a note that is not a string', { version: 1, note: 5 }],
    ['a note of 1,001 characters', { version: 1, note: 'n'.repeat(1001) }],
  ])('answers 400 for a body with %s', async (_what, json) => {
    await withVersions('label-body', 1);
    expect((await putLabel('label-body', 'production', json)).status).toBe(400);
  });
});

describe('If-Match on every lifecycle write', () => {
  it('a stale ETag is 412 and stores nothing; the current one works', async () => {
    await withVersions('guarded-life', 2);
    const etag = (await svc.request('/api/v1/presets/guarded-life')).headers.get('etag')!;
    const ok = await putLabel('guarded-life', 'production', { version: 1 }, { headers: { 'If-Match': etag } });
    expect(ok.status).toBe(200);
    const before = await streamLength('guarded-life');
    const stale = { headers: { 'If-Match': etag } };
    expect((await patch('guarded-life', { name: 'n' }, stale)).status).toBe(412);
    expect((await archive('guarded-life', stale)).status).toBe(412);
    expect((await putLabel('guarded-life', 'staging', { version: 2 }, stale)).status).toBe(412);
    expect((await removeLabel('guarded-life', 'production', stale)).status).toBe(412);
    expect(await streamLength('guarded-life')).toBe(before);
    const current = { headers: { 'If-Match': ok.headers.get('etag')! } };
    const renamed = await patch('guarded-life', { name: 'n' }, current);
    expect(renamed.status).toBe(200);
    expect((await removeLabel('guarded-life', 'production', { headers: { 'If-Match': renamed.headers.get('etag')! } })).status).toBe(200);
  });
});

describe('notes', () => {
  it('a version’s note comes from the Preset-Note header (percent-encoded), shown on the version and in the history', async () => {
    const note = 'Cheaper model — see ticket #42 / “ops”';
    const res = await post('noted', 'v1', { 'Preset-Note': encodeURIComponent(note) });
    expect(res.status).toBe(200);
    expect((await res.json()).data.designated_version.note).toBe(note);
    await post('noted', 'v2');
    const versions = (await (await svc.request('/api/v1/presets/noted/versions')).json()).data;
    expect(versions.map((v: { note: string | null }) => v.note)).toEqual([note, null]);
    expect((await (await svc.request('/api/v1/presets/noted/versions/1')).json()).data.note).toBe(note);
    const [created] = await history('noted');
    expect((created!.data.version as { note: string }).note).toBe(note);
  });

  it('designations, label moves and status changes keep theirs in the history', async () => {
    await withVersions('why', 2);
    await designate('why', { version: 1, note: 'incident 7: roll back' });
    await putLabel('why', 'production', { version: 1, note: 'pin prod' });
    await removeLabel('why', 'production', { headers: { 'Preset-Note': encodeURIComponent('unpinned') } });
    await archive('why', { headers: { 'Preset-Note': 'retired' } });
    const notes = (await history('why')).filter((e) => e.data.note !== undefined).map((e) => [e.type, e.data.note]);
    expect(notes).toEqual([
      ['PresetVersionDesignated', 'incident 7: roll back'],
      ['PresetLabelMoved', 'pin prod'],
      ['PresetLabelRemoved', 'unpinned'],
      ['PresetStatusChanged', 'retired'],
    ]);
  });

  it('refuses a note that is not percent-encoded UTF-8, longer than 1,000 characters, or given twice', async () => {
    await withVersions('bad-notes', 1);
    const before = await streamLength('bad-notes');
    const malformed = await post('bad-notes', 'x', { 'Preset-Note': '%E0%A4%A' });
    expect(malformed.status).toBe(400);
    expect((await malformed.json()).error.metadata.errors[0].path).toBe('Preset-Note');
    expect((await post('bad-notes', 'x', { 'Preset-Note': encodeURIComponent('é'.repeat(1001)) })).status).toBe(400);
    expect((await post('bad-notes', 'x', { 'Preset-Note': encodeURIComponent('🙂'.repeat(1000)) })).status).toBe(200);
    expect((await designate('bad-notes', { version: 1, note: 'n' }, { headers: { 'Preset-Note': 'n' } })).status).toBe(400);
    expect((await designate('bad-notes', { version: 1, note: 'x'.repeat(1001) })).status).toBe(400);
    expect(await streamLength('bad-notes')).toBe(before + 1);
  });
});

describe('the workspace feed carries the lifecycle', () => {
  it('every new event type appears in /api/v1/events, in order', async () => {
    await withVersions('fed', 1);
    await patch('fed', { name: 'Fed', status: 'disabled' });
    await putLabel('fed', 'production', { version: 1 });
    await removeLabel('fed', 'production');
    const all = (await (await svc.request('/api/v1/events?limit=1000')).json()).data as Array<{ stream: string; type: string }>;
    expect(all.filter((e) => e.stream === presetStreamName(WORKSPACE_A, 'fed')).map((e) => e.type)).toEqual([
      'PresetCreated',
      'PresetDetailsChanged',
      'PresetStatusChanged',
      'PresetLabelMoved',
      'PresetLabelRemoved',
    ]);
  });
});
