import { randomUUID } from 'node:crypto';
import { presetStreamName } from '#src/presets/streamName';
import { useApiSpecification } from '../support/apiSpecification';
import { chatBody, KEYS, WORKSPACE_A } from '../support/service';

/**
 * Consumer groups over HTTP: server-side positions, leased batches, at-least-once and in order.
 * What each consumer sees is compared with the workspace's feed (GET /api/v1/events), the record
 * of what was stored.
 */
jest.setTimeout(60_000);

const svc = useApiSpecification();

interface Event {
  id: string;
  type: string;
  stream: string;
  position: string;
}
interface Batch {
  data: Event[];
  lease: { id: string; expires_at: string; first_position: string; last_position: string; count: number } | null;
}

const write = async (slug: string, n = 0, key = KEYS.writer) => {
  const res = await svc.request(`/api/v1/presets/${slug}/chat/completions`, { method: 'POST', key, json: chatBody({ seed: n }) });
  expect(res.status).toBe(200);
};
const put = (name: string, json: unknown = {}, key = KEYS.writer) =>
  svc.request(`/api/v1/consumer-groups/${name}`, { method: 'PUT', json, key });
const fetchBatch = (name: string, json: unknown = {}, key = KEYS.writer) =>
  svc.request(`/api/v1/consumer-groups/${name}/fetch`, { method: 'POST', json, key });
const ack = (name: string, json: unknown, key = KEYS.writer) =>
  svc.request(`/api/v1/consumer-groups/${name}/ack`, { method: 'POST', json, key });
const feed = async (key = KEYS.writer): Promise<Event[]> => (await (await svc.request('/api/v1/events?limit=1000', { key })).json()).data;
const group = async (name: string, key = KEYS.writer) =>
  (await (await svc.request(`/api/v1/consumer-groups/${name}`, { key })).json()).data;

/** Fetches and acknowledges until a fetch answers nothing; what was handled, in order. */
const drain = async (name: string, max = 3): Promise<Event[]> => {
  const seen: Event[] = [];
  for (;;) {
    const res = await fetchBatch(name, { max });
    expect(res.status).toBe(200);
    const batch: Batch = await res.json();
    if (batch.data.length === 0) return seen;
    seen.push(...batch.data);
    expect((await ack(name, { lease_id: batch.lease!.id })).status).toBe(200);
  }
};

describe('defining consumer groups', () => {
  it('creates with 201 and a Location, changes with 200, lists with position, head and lag, and deletes', async () => {
    await write('cg-define-a');
    const created = await put('defined', { filter: { types: ['PresetCreated'] }, lease_ms: 5000 });
    expect(created.status).toBe(201);
    expect(created.headers.get('location')).toBe('/api/v1/consumer-groups/defined');
    const body = (await created.json()).data;
    expect(body).toMatchObject({
      name: 'defined',
      filter: { types: ['PresetCreated'], slug_prefix: null },
      lease_ms: 5000,
      position: null,
      lease: null,
    });
    const createdEvents = (await feed()).filter((e) => e.type === 'PresetCreated');
    expect(body.lag).toBe(createdEvents.length);
    expect(body.head).toBe((await feed()).at(-1)!.position);

    const changed = await put('defined', { filter: { types: ['PresetCreated', 'PresetVersionAdded'] } });
    expect(changed.status).toBe(200);
    expect((await changed.json()).data).toMatchObject({ lease_ms: 5000, filter: { types: ['PresetCreated', 'PresetVersionAdded'] } });

    const list = (await (await svc.request('/api/v1/consumer-groups')).json()).data as Array<{ name: string }>;
    expect(list.map((g) => g.name)).toContain('defined');
    expect((await svc.request('/api/v1/consumer-groups/defined', { method: 'DELETE' })).status).toBe(204);
    expect((await svc.request('/api/v1/consumer-groups/defined')).status).toBe(404);
    expect((await svc.request('/api/v1/consumer-groups/defined', { method: 'DELETE' })).status).toBe(404);
  });

  it.each([
    [{ filter: { types: ['NoSuchEvent'] } }, '$.filter.types[0]'],
    [{ filter: { types: [] } }, '$.filter.types'],
    [{ filter: { slug_prefix: 'has space' } }, '$.filter.slug_prefix'],
    [{ start: 'yesterday' }, '$.start'],
    [{ lease_ms: 10 }, '$.lease_ms'],
    [{ filter: {}, colour: 'red' }, '$.colour'],
  ])('refuses %j with a 400 naming %s, and stores nothing', async (json, path) => {
    const res = await put('refused', json);
    expect(res.status).toBe(400);
    const body = await res.json();
    expect(body.error.metadata.errors.map((e: { path: string }) => e.path)).toContain(path);
    expect((await svc.request('/api/v1/consumer-groups/refused')).status).toBe(404);
  });

  it('refuses a name that is not URL-safe, and a fetch body out of range', async () => {
    expect((await put('-leading-dash')).status).toBe(400);
    expect((await put('bounds')).status).toBe(201);
    for (const json of [{ max: 0 }, { max: 1001 }, { wait_ms: 30_001 }, { max: 'ten' }]) {
      const res = await fetchBatch('bounds', json);
      expect(res.status).toBe(400);
    }
    expect((await ack('bounds', {})).status).toBe(400);
  });
});

describe('fetching and acknowledging', () => {
  it('hands out every event once, in the order of the feed, across batches', async () => {
    for (let i = 0; i < 7; i++) await write(`cg-all-${i % 3}`, i);
    expect((await put('all')).status).toBe(201);
    const seen = await drain('all', 3);
    expect(seen.map((e) => e.id)).toEqual((await feed()).map((e) => e.id));
    const after = await group('all');
    expect(after).toMatchObject({ lag: 0, lease: null, position: seen.at(-1)!.position });
  });

  it('hands out the next batch as the feed has it after a full batch, read ahead or not: events added meanwhile, a short batch, another max, a moved group', async () => {
    // After a full batch the service reads the next one ahead; each fetch must still answer what the feed holds after the group's position.
    const slug = (i: number) => `cg-ahead-${i}`;
    expect((await put('ahead', { filter: { slug_prefix: 'cg-ahead-' }, start: 'now' })).status).toBe(201);
    const theFeed = async () => (await feed()).filter((e) => /-cg-ahead-/.test(e.stream));
    const next = async (max: number, expected: Event[]) => {
      const batch: Batch = await (await fetchBatch('ahead', { max })).json();
      expect(batch.data.map((e) => e.id)).toEqual(expected.map((e) => e.id));
      if (batch.lease) expect((await ack('ahead', { lease_id: batch.lease.id })).status).toBe(200);
      return batch;
    };
    for (let i = 0; i < 4; i++) await write(slug(i));
    let all = await theFeed();
    await next(2, all.slice(0, 2)); // full: 3-4 read ahead
    for (let i = 4; i < 6; i++) await write(slug(i));
    all = await theFeed();
    await next(2, all.slice(2, 4)); // the batch read ahead; 5-6 read ahead, stored since
    await next(2, all.slice(4, 6)); // and nothing after them read ahead (a short, empty batch)
    for (let i = 6; i < 10; i++) await write(slug(i));
    all = await theFeed();
    await next(2, all.slice(6, 8)); // read now, not the empty batch read ahead; full: 9-10 read ahead
    await next(1, all.slice(8, 9)); // another max than the batch read ahead
    await next(3, all.slice(9, 10));
    for (let i = 10; i < 14; i++) await write(slug(i));
    all = await theFeed();
    await next(2, all.slice(10, 12)); // full: 13-14 read ahead
    expect((await put('ahead', { filter: { slug_prefix: 'cg-ahead-' }, start: all[2]!.position })).status).toBe(200);
    await next(2, all.slice(3, 5)); // from where the group was moved to
    expect((await put('ahead', { filter: { slug_prefix: 'cg-ahead-1' } })).status).toBe(200); // 10, 11, 12 from 5 on
    await next(
      2,
      all
        .slice(5)
        .filter((e) => /-cg-ahead-1\d?$/.test(e.stream))
        .slice(0, 2),
    );
  });

  it('hands a batch out again when its consumer died before acknowledging (the lease expired)', async () => {
    expect((await put('dying', { start: 'now', lease_ms: 1000 })).status).toBe(201);
    for (let i = 0; i < 4; i++) await write('cg-dying', i);
    const first: Batch = await (await fetchBatch('dying', { max: 3 })).json();
    expect(first.data).toHaveLength(3);
    // The consumer dies mid-batch. Until the lease expires nobody else gets these events.
    const blocked = await fetchBatch('dying');
    expect(blocked.status).toBe(409);
    expect(Number(blocked.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect((await blocked.json()).error.metadata).toMatchObject({ reason: 'lease_open', retry_after_seconds: expect.any(Number) });
    await new Promise((r) => setTimeout(r, 1100));
    const again: Batch = await (await fetchBatch('dying', { max: 3 })).json();
    expect(again.data.map((e) => e.id)).toEqual(first.data.map((e) => e.id));
    expect(again.lease!.id).not.toBe(first.lease!.id);
    // The dead consumer's lease is not the group's any more.
    const stale = await ack('dying', { lease_id: first.lease!.id });
    expect(stale.status).toBe(409);
    expect((await stale.json()).error.metadata.reason).toBe('lease_lost');
    expect((await ack('dying', { lease_id: again.lease!.id })).status).toBe(200);
    const rest = await drain('dying');
    expect([...again.data, ...rest].map((e) => e.id)).toEqual(
      (await feed()).filter((e) => e.stream.endsWith('-cg-dying')).map((e) => e.id),
    );
  });

  it('acknowledges part of a batch by position: the rest comes again', async () => {
    expect((await put('partial', { start: 'now' })).status).toBe(201);
    for (let i = 0; i < 3; i++) await write('cg-partial', i);
    const batch: Batch = await (await fetchBatch('partial')).json();
    expect(batch.data).toHaveLength(3);
    expect((await ack('partial', { lease_id: batch.lease!.id, position: batch.data[0]!.position })).status).toBe(200);
    const rest: Batch = await (await fetchBatch('partial')).json();
    expect(rest.data.map((e) => e.id)).toEqual(batch.data.slice(1).map((e) => e.id));
    const outside = await ack('partial', { lease_id: rest.lease!.id, position: batch.data[0]!.position });
    expect(outside.status).toBe(400);
  });

  it('gives one lease to one of two consumers racing for a group', async () => {
    expect((await put('raced', { start: 'now' })).status).toBe(201);
    await write('cg-raced');
    const answers = await Promise.all([fetchBatch('raced'), fetchBatch('raced'), fetchBatch('raced')]);
    const statuses = answers.map((r) => r.status).sort();
    expect(statuses).toEqual([200, 409, 409]);
  });

  it('waits for new events up to wait_ms (a long poll), and answers an empty batch when none come', async () => {
    expect((await put('waiting', { start: 'now' })).status).toBe(201);
    const started = Date.now();
    const empty: Batch = await (await fetchBatch('waiting', { wait_ms: 300 })).json();
    expect(empty).toEqual({ data: [], lease: null });
    expect(Date.now() - started).toBeGreaterThanOrEqual(290);
    const polling = fetchBatch('waiting', { wait_ms: 10_000 });
    await new Promise((r) => setTimeout(r, 100));
    await write('cg-waiting');
    const got: Batch = await (await polling).json();
    expect(got.data.map((e) => e.stream)).toEqual([expect.stringMatching(/-cg-waiting$/)]);
  });
});

describe('filters and start positions', () => {
  it('hands out only the filtered types of the presets with the slug prefix', async () => {
    expect((await put('filtered', { filter: { types: ['PresetVersionAdded'], slug_prefix: 'cg-filter-yes' }, start: 'now' })).status).toBe(
      201,
    );
    for (const slug of ['cg-filter-yes-1', 'cg-filter-no-1', 'cg-filter-yes-2']) {
      await write(slug, 1);
      await write(slug, 2);
    }
    const seen = await drain('filtered');
    const expected = (await feed()).filter((e) => e.type === 'PresetVersionAdded' && /-cg-filter-yes-/.test(e.stream));
    expect(expected).toHaveLength(2);
    expect(seen.map((e) => e.id)).toEqual(expected.map((e) => e.id));
  });

  it('starts at the beginning, now, or after a position', async () => {
    await write('cg-start', 1);
    const all = await feed();
    const middle = all[Math.floor(all.length / 2)]!;
    expect((await put('from-start', { start: 'beginning' })).status).toBe(201);
    expect((await put('from-now', { start: 'now' })).status).toBe(201);
    expect((await put('from-middle', { start: middle.position })).status).toBe(201);
    await write('cg-start', 2);
    const now = await feed();
    expect((await drain('from-start', 1000)).map((e) => e.id)).toEqual(now.map((e) => e.id));
    expect((await drain('from-now', 1000)).map((e) => e.id)).toEqual([now.at(-1)!.id]);
    expect((await drain('from-middle', 1000)).map((e) => e.id)).toEqual(
      now.filter((e) => BigInt(e.position) > BigInt(middle.position)).map((e) => e.id),
    );
  });

  it('moves an existing group when PUT names a start again', async () => {
    expect((await put('rewound')).status).toBe(201);
    await drain('rewound', 1000);
    expect((await group('rewound')).lag).toBe(0);
    expect((await put('rewound', { start: 'beginning' })).status).toBe(200);
    expect((await drain('rewound', 1000)).map((e) => e.id)).toEqual((await feed()).map((e) => e.id));
  });
});

describe('what a batch shows', () => {
  it('each event exactly as the feed shows it: every kind of preset change, and an event of an older schema version upcast', async () => {
    // The embedded store hands a group its events' stored text (src/workspaceLog/eventJson.ts); the feed
    // (GET /api/v1/events) parses and checks each one: both must show the same values.
    const slug = 'cg-shown';
    const call = async (path: string, method: string, json?: unknown) => {
      const res = await svc.request(`/api/v1/presets/${slug}${path}`, { method, key: KEYS.writer, json });
      expect(res.status).toBeLessThan(300);
    };
    await write(slug, 1);
    await write(slug, 2);
    await write(slug, 3);
    await call('/designated-version', 'PUT', { version: 2 });
    await call('', 'PATCH', { name: 'Shown \u2603 "quoted"', description: 'line\nbreak' });
    await call('/labels/production', 'PUT', { version: 1 });
    await call('/labels/production', 'PUT', {
      split: [
        { version: 1, weight: 90 },
        { version: 3, weight: 10 },
      ],
      note: 'canary',
    });
    await call('/labels/staging', 'PUT', { version: 3 });
    await call('/labels/staging', 'DELETE');
    await call('', 'PATCH', { status: 'disabled' });
    // Written by a release before version.creatorId (schema version 1): shown upcast, as the feed shows it.
    const legacy = randomUUID();
    await svc.eventStore.append(
      presetStreamName(WORKSPACE_A, 'cg-legacy'),
      [
        {
          id: randomUUID(),
          type: 'PresetCreated',
          metadata: { requestId: 'r', actorUserId: 'alice', schemaVersion: 1 },
          data: {
            presetId: legacy,
            workspaceId: WORKSPACE_A,
            slug: 'cg-legacy',
            name: 'cg-legacy',
            creatorUserId: 'alice',
            version: { id: `${legacy}-v1`, number: 1, config: { model: 'm' }, systemPrompt: 'S' },
            occurredAt: '2025-01-01T00:00:00.000Z',
          },
        },
      ],
      'no_stream',
    );
    expect((await put('shown')).status).toBe(201);
    const seen = await drain('shown', 1000);
    const fed = await feed();
    expect(seen).toEqual(fed);
    const ours = seen.filter((e) => e.stream.endsWith(`-${slug}`)).map((e) => e.type);
    expect(new Set(ours)).toEqual(
      new Set([
        'PresetCreated',
        'PresetVersionAdded',
        'PresetVersionDesignated',
        'PresetDetailsChanged',
        'PresetLabelMoved',
        'PresetLabelSplit',
        'PresetLabelRemoved',
        'PresetStatusChanged',
      ]),
    );
    const old = seen.find((e) => e.stream.endsWith('-cg-legacy')) as unknown as { data: { version: { creatorId: string } } };
    expect(old.data.version.creatorId).toBe('alice');
  });
});

describe('workspaces and scopes', () => {
  it("keeps each workspace's groups and events apart", async () => {
    expect((await put('shared-name')).status).toBe(201);
    expect((await svc.request('/api/v1/consumer-groups/shared-name', { key: KEYS.otherWorkspace })).status).toBe(404);
    expect((await put('shared-name', {}, KEYS.otherWorkspace)).status).toBe(201);
    await write('cg-other-ws', 1, KEYS.otherWorkspace);
    const ours = await drain('shared-name', 1000);
    expect(ours.map((e) => e.id)).toEqual((await feed()).map((e) => e.id));
    expect(ours.some((e) => e.stream.includes('-cg-other-ws'))).toBe(false);
    const res = await fetchBatch('shared-name', { max: 1000 }, KEYS.otherWorkspace);
    const batch: Batch = await res.json();
    expect(batch.data.map((e) => e.id)).toEqual((await feed(KEYS.otherWorkspace)).map((e) => e.id));
    expect(batch.data.every((e) => e.stream.includes('-cg-other-ws'))).toBe(true);
  });

  it('needs the events:consume scope', async () => {
    for (const res of [
      await svc.request('/api/v1/consumer-groups', { key: KEYS.readerOnly }),
      await put('scoped', {}, KEYS.readerOnly),
      await fetchBatch('scoped', {}, KEYS.writerOnly),
    ]) {
      expect(res.status).toBe(403);
      expect((await res.json()).error.metadata.required_scope).toBe('events:consume');
    }
    expect((await svc.request('/api/v1/consumer-groups', { key: null })).status).toBe(401);
  });
});
