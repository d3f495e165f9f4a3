import { EventEmitter } from 'node:events';
import type { ServerResponse } from 'node:http';
import { startApiSpecification, useApiSpecification, type ApiSpecification } from '../support/apiSpecification';
import { chatBody, KEYS, WORKSPACE_B } from '../support/service';
import { openSse } from '../support/sse';
import { until as waitUntil } from '../support/until';
import { createSseRegistry } from '#src/http/sse';
import { workspaceStreamPrefix } from '#src/events/workspaceStreams';

const svc = useApiSpecification({ SSE_HEARTBEAT_MS: '50' });

const auth = (key: string = KEYS.writer) => ({ authorization: `Bearer ${key}` });
const write = async (slug: string, key: string = KEYS.writer) => {
  const res = await svc.request(`/api/v1/presets/${slug}/chat/completions`, { method: 'POST', json: chatBody(), key });
  expect(res.status).toBe(200);
};
const head = async () => (await svc.eventStore.headPosition())?.toString() ?? '0';
/** The SSE tests' bound on what arrives live. */
const until = (condition: () => boolean, timeoutMs = 2000) => waitUntil(condition, timeoutMs);
const eventsAfter = async (after: string) =>
  (await (await svc.request(`/api/v1/events?limit=1000&after=${after}`)).json()).data as Array<{ position: string; type: string }>;

describe('GET /api/v1/events as text/event-stream', () => {
  it('sends the SSE headers, retry first, then heartbeats', async () => {
    const client = await openSse(`${svc.url}/api/v1/events?after=${await head()}`, { ...auth(), 'x-request-id': 'sse-headers' }, svc.fetch);
    expect(client.res.status).toBe(200);
    expect(client.res.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
    expect(client.res.headers.get('cache-control')).toBe('no-store');
    expect(client.res.headers.get('x-accel-buffering')).toBe('no');
    expect(client.res.headers.get('x-request-id')).toBe('sse-headers');
    expect((await client.next())?.retry).toBe('1000');
    for (let i = 0; i < 2; i++) expect((await client.next(1000))?.comments).toEqual(['heartbeat']);
    client.close();
  });

  it('catches up, goes live, and after a drop resumes with Last-Event-ID: every event once, in order', async () => {
    const start = await head();
    for (let i = 0; i < 3; i++) await write('live-a');
    const first = await openSse(`${svc.url}/api/v1/events?after=${start}`, { ...auth(), 'x-request-id': 'sse-dropped' }, svc.fetch);
    const received = await first.events(3); // caught up
    const writes = (async () => {
      for (let i = 0; i < 9; i++) await write(i % 2 ? 'live-a' : 'live-b');
    })();
    received.push(...(await first.events(2))); // live
    first.close(); // drops in the middle of the writes
    await writes;
    // The server noticed: the request ended (its log line is written once the subscription stopped).
    await until(() => svc.logs.some((l) => l.includes('"requestId":"sse-dropped"') && l.includes('"msg":"request"')));
    const expected = await eventsAfter(start);
    expect(expected).toHaveLength(12);
    // ?after is older than Last-Event-ID: the header wins, as it does for a reconnecting EventSource.
    const second = await openSse(
      `${svc.url}/api/v1/events?after=${start}`,
      {
        ...auth(),
        'last-event-id': received[received.length - 1]!.id!,
      },
      svc.fetch,
    );
    received.push(...(await second.events(expected.length - received.length)));
    expect(received.map((f) => f.id)).toEqual(expected.map((e) => e.position));
    expect(received.map((f) => f.event)).toEqual(expected.map((e) => e.type));
    expect(received.map((f) => JSON.parse(f.data!))).toEqual(expected);
    // Nothing more arrives but heartbeats.
    for (let i = 0; i < 3; i++) expect((await second.next(1000))?.data).toBeUndefined();
    second.close();
  });

  it('with ?type, sends only events of those types, with their own positions as ids', async () => {
    const start = await head();
    const client = await openSse(`${svc.url}/api/v1/events?after=${start}&type=PresetVersionAdded`, auth(), svc.fetch);
    await write('typed'); // PresetCreated: not sent
    await write('typed');
    await write('typed');
    const frames = await client.events(2);
    const added = (await eventsAfter(start)).filter((e) => e.type === 'PresetVersionAdded');
    expect(added).toHaveLength(2);
    expect(frames.map((f) => [f.id, f.event])).toEqual(added.map((e) => [e.position, 'PresetVersionAdded']));
    client.close();
    const refused = await svc.request('/api/v1/events?direction=backwards', { headers: { accept: 'text/event-stream' } });
    expect(refused.status).toBe(400);
  });

  it('shows a consumer only its own workspace', async () => {
    const theirs = await openSse(`${svc.url}/api/v1/events`, auth(KEYS.otherWorkspace), svc.fetch);
    await write('not-for-b');
    await write('for-b', KEYS.otherWorkspace);
    const [event] = await theirs.events(1);
    expect(JSON.parse(event!.data!).stream.startsWith(workspaceStreamPrefix(WORKSPACE_B))).toBe(true);
    const all = await (await svc.request('/api/v1/events?limit=1000', { key: KEYS.otherWorkspace })).json();
    expect(event!.id).toBe(all.data[all.data.length - 1].position);
    theirs.close();
  });

  it.each([
    [401, {}],
    [403, auth(KEYS.writerOnly)],
    [400, { ...auth(), 'last-event-id': 'not-a-position' }],
  ])('%d in the JSON error envelope before the stream starts', async (status, headers) => {
    const res = await svc.request('/api/v1/events', { key: null, headers: { accept: 'text/event-stream', ...headers } });
    expect(res.status).toBe(status);
    expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(res.headers.get('x-request-id')).toMatch(/.+/);
    expect((await res.json()).error.code).toBe(status);
  });
});

describe('backpressure', () => {
  it('a send waits for drain while the buffer is full, and a close releases it', async () => {
    const res = Object.assign(new EventEmitter(), {
      destroyed: false,
      writableEnded: false,
      writableNeedDrain: false,
      writeHead: () => undefined,
      write: jest.fn(() => true),
      end: () => undefined,
      destroy: () => undefined,
    });
    const connection = createSseRegistry().open(res as unknown as ServerResponse, { heartbeatMs: 60_000 })!;
    res.write.mockReturnValue(false);
    let sent = false;
    const first = connection.send('1', 'E', '{}').then(() => {
      sent = true;
    });
    await new Promise((r) => setImmediate(r));
    expect(sent).toBe(false);
    res.emit('drain');
    await first;
    const second = connection.send('2', 'E', '{}');
    res.emit('close');
    await second;
    await connection.closed;
  });
});

describe('a quiet stream follows the log', () => {
  it("a keep-alive carries the position scanned past other workspaces' events, and a reconnect with it re-reads none of them", async () => {
    const start = await head();
    const client = await openSse(`${svc.url}/api/v1/events?after=${start}`, auth(KEYS.otherWorkspace), svc.fetch);
    expect((await client.next())?.retry).toBe('1000');
    for (let i = 0; i < 3; i++) await write('elsewhere'); // workspace A; the stream is workspace B's
    const moved = await head();
    let frame = await client.next(2000);
    while (frame && frame.id !== moved) frame = await client.next(2000);
    expect(frame).toMatchObject({ id: moved, comments: ['heartbeat'] });
    expect(frame!.data).toBeUndefined(); // no event: an EventSource only takes the id
    client.close();
  });
});

describe('limits on open streams', () => {
  let limited: ApiSpecification;
  beforeAll(async () => {
    limited = await startApiSpecification({ SSE_HEARTBEAT_MS: '1000', SSE_MAX_PER_KEY: '2', SSE_MAX_CONNECTIONS: '4' });
  });
  afterAll(async () => limited.close());
  const open = (key: string) => openSse(`${limited.url}/api/v1/events`, auth(key), limited.fetch);
  const refused = async (key: string) => {
    const res = await limited.request('/api/v1/events', { key, headers: { accept: 'text/event-stream' } });
    expect(res.status).toBe(429);
    expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
    return (await res.json()) as { error: { code: number; message: string; metadata: Record<string, unknown> } };
  };

  it('answers 429 with Retry-After past the per-key cap, then past the per-process cap; a closed stream frees its place', async () => {
    const mine = [await open(KEYS.writer), await open(KEYS.writer)];
    const perKey = await refused(KEYS.writer);
    expect(perKey.error).toMatchObject({ code: 429, metadata: { cap: 'per_key', limit: 2 } });
    expect(perKey.error.message).toMatch(/this API key has 2 event streams open/);
    const reader = await open(KEYS.readerOnly);
    const other = await open(KEYS.otherWorkspace);
    expect((await refused(KEYS.readerOnly)).error.metadata).toMatchObject({ cap: 'per_process', limit: 4 });
    other.close();
    const again = await until2(async () => {
      const c = await open(KEYS.readerOnly);
      if (c.res.status !== 200) throw new Error(`status ${c.res.status}`);
      return c;
    });
    const lines = limited.logs.filter((l: string) => l.includes('event stream refused'));
    // The two refusals above, then any the retry met while the closed stream's place was being freed.
    const caps = lines.map((l) => JSON.parse(l).cap as string);
    expect(caps.slice(0, 2)).toEqual(['per_key', 'per_process']);
    expect(new Set(caps.slice(2))).toEqual(new Set(caps.length > 2 ? ['per_process'] : []));
    for (const l of lines) for (const key of Object.values(KEYS)) expect(l).not.toContain(key);
    for (const c of [...mine, reader, again]) c.close();
  });
});

/** Retries `attempt` until it stops failing (a stream's place is freed when the server sees its close). */
const until2 = async <T>(attempt: () => Promise<T>, timeoutMs = 3000): Promise<T> => {
  for (const deadline = Date.now() + timeoutMs; ; await new Promise((r) => setTimeout(r, 20))) {
    try {
      return await attempt();
    } catch (error) {
      if (Date.now() > deadline) throw error;
    }
  }
};
