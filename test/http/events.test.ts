import { createHash } from 'node:crypto';
import { useApiSpecification } from '../support/apiSpecification';
import { chatBody, KEYS, WORKSPACE_A, WORKSPACE_B } from '../support/service';
import { CURRENT_SCHEMA_VERSION } from '#src/presets/events';
import { presetStreamName } from '#src/presets/streamName';
import { workspaceStreamPrefix } from '#src/events/workspaceStreams';

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

const svc = useApiSpecification();

type Format = 'chat/completions' | 'messages' | 'responses';
const BODIES: Record<Format, unknown> = {
  'chat/completions': chatBody(),
  messages: { model: 'anthropic/claude-sonnet-4', max_tokens: 100, system: 'Be terse.', messages: [{ role: 'user', content: 'hi' }] },
  responses: { model: 'openai/o4-mini', instructions: 'Be terse.', input: 'hi' },
};
const write = async (slug: string, format: Format = 'chat/completions', key = KEYS.writer, requestId?: string) => {
  const headers = requestId ? { 'x-request-id': requestId } : undefined;
  const res = await svc.request(`/api/v1/presets/${slug}/${format}`, { method: 'POST', json: BODIES[format], key, headers });
  expect(res.status).toBe(200);
};
const get = async (path: string, key = KEYS.writer) => {
  const res = await svc.request(path, { key });
  expect(res.status).toBe(200);
  return res.json();
};
const all = async (key = KEYS.writer) =>
  (await get('/api/v1/events?limit=1000', key)).data as Array<{ stream: string; position: string; type: string }>;

describe('GET /api/v1/presets/{slug}/events', () => {
  beforeAll(async () => {
    await write('audited', 'chat/completions', KEYS.writer, 'req-audit-1');
    await write('audited', 'messages', KEYS.writer, 'req-audit-2');
    await write('audited', 'responses', KEYS.writer, 'req-audit-3');
  });

  it('answers the stream as stored, event by event', async () => {
    const body = await get('/api/v1/presets/audited/events');
    expect(body.next_from).toBeNull();
    expect(body.data.map((e: { type: string }) => e.type)).toEqual(['PresetCreated', 'PresetVersionAdded', 'PresetVersionAdded']);
    expect(body.data.map((e: { revision: number }) => e.revision)).toEqual([0, 1, 2]);
    expect(body.data.map((e: { data: { version: { number: number } } }) => e.data.version.number)).toEqual([1, 2, 3]);
    expect(body.data.map((e: { metadata: unknown }) => e.metadata)).toEqual(
      ['chat_completions', 'messages', 'responses'].map((sourceFormat, i) => ({
        requestId: `req-audit-${i + 1}`,
        actorUserId: 'user-writer',
        sourceFormat,
        schemaVersion: CURRENT_SCHEMA_VERSION,
        // The key that wrote it (first 12 hex of its SHA-256) and the event's chain link, over its text as stored.
        keyId: createHash('sha256').update(KEYS.writer).digest('hex').slice(0, 12),
        hashed: 'as_stored',
        hash: expect.stringMatching(/^[0-9a-f]{64}$/),
      })),
    );
    const stored = await svc.eventStore.read(presetStreamName(WORKSPACE_A, 'audited'));
    body.data.forEach((e: Record<string, unknown>, i: number) => {
      expect(Object.keys(e)).toEqual(['id', 'type', 'stream', 'revision', 'position', 'recorded_at', 'data', 'metadata']);
      expect(e).toMatchObject({
        id: stored[i]!.id,
        stream: presetStreamName(WORKSPACE_A, 'audited'),
        position: stored[i]!.position.toString(),
      });
      expect(e.recorded_at).toMatch(ISO);
    });
    expect(body.data[0].data).toMatchObject({ slug: 'audited', workspaceId: WORKSPACE_A, creatorUserId: 'user-writer' });
  });

  it('pages with from and limit; next_from is the next revision, null at the end', async () => {
    const first = await get('/api/v1/presets/audited/events?limit=2');
    expect(first.data.map((e: { revision: number }) => e.revision)).toEqual([0, 1]);
    expect(first.next_from).toBe(2);
    const second = await get(`/api/v1/presets/audited/events?from=${first.next_from}&limit=2`);
    expect(second.data.map((e: { revision: number }) => e.revision)).toEqual([2]);
    expect(second.next_from).toBeNull();
    const middle = await get('/api/v1/presets/audited/events?from=1&limit=1');
    expect(middle.data.map((e: { revision: number }) => e.revision)).toEqual([1]);
    expect(middle.next_from).toBe(2);
    expect(await get('/api/v1/presets/audited/events?from=3')).toEqual({ data: [], next_from: null });
  });

  it('404 for a preset that does not exist, also past its end', async () => {
    for (const path of ['/api/v1/presets/never-written/events', '/api/v1/presets/never-written/events?from=5']) {
      const res = await svc.request(path);
      expect(res.status).toBe(404);
      expect((await res.json()).error.code).toBe(404);
    }
  });

  it.each(['limit=0', 'limit=1001', 'limit=x', 'from=-1', 'from=1.5', 'from=99999999999999999', 'from=1&from=2'])(
    '400 for %s',
    async (query) => {
      const res = await svc.request(`/api/v1/presets/audited/events?${query}`);
      expect(res.status).toBe(400);
      expect((await res.json()).error.metadata.errors[0].path).toMatch(/^(from|limit)$/);
    },
  );
});

describe('GET /api/v1/events', () => {
  it('answers the workspace events in global order, across presets', async () => {
    await write('feed-a');
    await write('feed-b', 'messages');
    await write('feed-a', 'responses');
    const events = await all();
    const positions = events.map((e) => BigInt(e.position));
    expect([...positions].sort((a, b) => (a < b ? -1 : 1))).toEqual(positions);
    const stored = await svc.eventStore.readAll({ limit: 1000, streamPrefix: workspaceStreamPrefix(WORKSPACE_A) });
    expect(events.map((e) => e.position)).toEqual(stored.map((e) => e.position.toString()));
    expect(events.slice(-3).map((e) => [e.stream, e.type])).toEqual([
      [presetStreamName(WORKSPACE_A, 'feed-a'), 'PresetCreated'],
      [presetStreamName(WORKSPACE_A, 'feed-b'), 'PresetCreated'],
      [presetStreamName(WORKSPACE_A, 'feed-a'), 'PresetVersionAdded'],
    ]);
  });

  it('pages with after and next_after', async () => {
    const expected = await all();
    expect(expected.length).toBeGreaterThan(3);
    const paged: typeof expected = [];
    let after: string | null = null;
    for (;;) {
      const body = await get(`/api/v1/events?limit=2${after ? `&after=${after}` : ''}`);
      if (body.data.length === 0) {
        expect(body.next_after).toBeNull();
        break;
      }
      expect(body.data.length).toBeLessThanOrEqual(2);
      expect(body.next_after).toBe(body.data[body.data.length - 1].position);
      paged.push(...body.data);
      after = body.next_after;
    }
    expect(paged).toEqual(expected);
  });

  it.each(['after=abc', 'after=-1', 'after=1.5', 'after=', 'limit=0', 'limit=1001', 'after=1&after=2'])('400 for %s', async (query) => {
    const res = await svc.request(`/api/v1/events?${query}`);
    expect(res.status).toBe(400);
    expect((await res.json()).error.code).toBe(400);
  });

  it('direction=backwards answers the newest first, paged with before and next_before until the start', async () => {
    const expected = [...(await all())].reverse();
    const first = await get('/api/v1/events?direction=backwards&limit=2');
    expect(first.data).toEqual(expected.slice(0, 2));
    const paged: typeof expected = [];
    let before: string | null = null;
    for (let pages = 0; ; pages++) {
      const body = await get(`/api/v1/events?direction=backwards&limit=2${before ? `&before=${before}` : ''}`);
      paged.push(...body.data);
      if (body.next_before === null) break;
      expect(body.data).toHaveLength(2);
      expect(body.next_before).toBe(body.data[1].position);
      before = body.next_before;
    }
    expect(paged).toEqual(expected);
    // A last page that is exactly full says so: no empty page after it.
    const exact = await get(`/api/v1/events?direction=backwards&limit=${expected.length}`);
    expect(exact.data).toHaveLength(expected.length);
    expect(exact.next_before).toBeNull();
  });

  it('type filters either direction to the named event types (repeated or comma-separated)', async () => {
    const events = await all();
    const created = events.filter((e) => e.type === 'PresetCreated');
    const added = events.filter((e) => e.type === 'PresetVersionAdded');
    expect(created.length).toBeGreaterThan(1);
    expect(added.length).toBeGreaterThan(1);
    expect((await get('/api/v1/events?type=PresetCreated&limit=1000')).data).toEqual(created);
    expect((await get('/api/v1/events?direction=backwards&type=PresetVersionAdded&limit=1000')).data).toEqual([...added].reverse());
    const both = events.filter((e) => e.type !== 'PresetVersionDesignated');
    expect((await get('/api/v1/events?type=PresetCreated,PresetVersionAdded&limit=1000')).data).toEqual(both);
    expect((await get('/api/v1/events?type=PresetCreated&type=PresetVersionAdded&limit=1000')).data).toEqual(both);
    const page = await get('/api/v1/events?direction=backwards&type=PresetCreated&limit=1');
    expect(page.data).toEqual([created[created.length - 1]]);
    expect(page.next_before).toBe(created[created.length - 1]!.position);
  });

  it.each([
    ['type=PresetDeleted', 'type'],
    ['type=', 'type'],
    ['direction=sideways', 'direction'],
    ['direction=backwards&after=1', 'after'],
    ['before=5', 'before'],
    ['direction=backwards&before=x', 'before'],
  ])('400 for %s, naming %s', async (query, path) => {
    const res = await svc.request(`/api/v1/events?${query}`);
    expect(res.status).toBe(400);
    expect((await res.json()).error.metadata.errors.map((e: { path: string }) => e.path)).toContain(path);
  });

  it('403 without presets:read, on both endpoints', async () => {
    for (const path of ['/api/v1/events', '/api/v1/presets/audited/events']) {
      const res = await svc.request(path, { key: KEYS.writerOnly });
      expect(res.status).toBe(403);
    }
  });
});

describe('workspace isolation', () => {
  it('another workspace sees none of these events, and not the slug', async () => {
    await write('isolated');
    await write('theirs', 'chat/completions', KEYS.otherWorkspace);
    const theirs = await all(KEYS.otherWorkspace);
    expect(theirs.length).toBeGreaterThan(0);
    expect(theirs.every((e) => e.stream.startsWith(workspaceStreamPrefix(WORKSPACE_B)))).toBe(true);
    const mine = await all();
    expect(mine.every((e) => e.stream.startsWith(workspaceStreamPrefix(WORKSPACE_A)))).toBe(true);
    expect((await svc.request('/api/v1/presets/isolated/events', { key: KEYS.otherWorkspace })).status).toBe(404);
    expect((await svc.request('/api/v1/presets/theirs/events')).status).toBe(404);
  });
});
