import { createPresetClient, PresetResolveError, type PresetClient } from '#src/client';
import { checkResponse } from '../support/contract';
import { useApiSpecification } from '../support/apiSpecification';
import { KEYS } from '../support/service';

/**
 * The in-process client (`presets/client`) against the real service on loopback: it resolves from
 * its own copy what the service's endpoint answers, and the live feed (or, while the feed is down,
 * revalidation) brings every change to it. Its requests go through a fetch that records them and
 * can cut the feed, as a network would.
 */
const svc = useApiSpecification();

const user = (content: string) => ({ role: 'user', content });
const write = async (slug: string, body: Record<string, unknown>) => {
  const res = await svc.request(`/api/v1/presets/${slug}/chat/completions`, { method: 'POST', json: { messages: [], ...body } });
  expect(res.status).toBe(200);
  return (await res.json()).data;
};
const serverAnswer = async (body: unknown) => {
  const res = await svc.request('/api/v1/resolve/chat/completions', { method: 'POST', json: body });
  const answer = await res.json();
  return res.status === 200 ? { ok: answer.data } : { error: answer.error };
};
const clientAnswer = async (client: PresetClient, body: unknown) => {
  try {
    return { ok: await client.resolve('chat_completions', body) };
  } catch (error) {
    if (!(error instanceof PresetResolveError)) throw error;
    return { error: { code: error.code, message: error.message, metadata: error.metadata } };
  }
};
/** Polls until the client's answer satisfies `ok`, or fails with the last answer. */
const eventually = async <T>(get: () => Promise<T>, ok: (value: T) => boolean, timeoutMs = 5000): Promise<T> => {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await get();
    if (ok(value)) return value;
    if (Date.now() > deadline) throw new Error(`not within ${timeoutMs} ms; last: ${JSON.stringify(value)}`);
    await new Promise((r) => setTimeout(r, 20));
  }
};

/** A fetch that records what it was asked, checks every answer against the OpenAPI document, and can refuse or cut the event feed. */
const recordingFetch = () => {
  const requests: Array<{ url: string; headers: Record<string, string>; status?: number }> = [];
  const feeds = new Set<AbortController>();
  let refuseFeed = false;
  const fetcher: typeof fetch = async (input, init = {}) => {
    const url = String(input);
    const headers = Object.fromEntries(new Headers(init.headers).entries());
    const recorded: (typeof requests)[number] = { url, headers };
    requests.push(recorded);
    if (!url.endsWith('/api/v1/events')) {
      const res = await svc.fetch(input, init);
      recorded.status = res.status;
      await checkResponse('GET', url, res);
      return res;
    }
    if (refuseFeed) throw new TypeError('fetch failed (the feed is cut)');
    const cut = new AbortController();
    feeds.add(cut);
    const signal = init.signal ? AbortSignal.any([init.signal, cut.signal]) : cut.signal;
    return svc.fetch(input, { ...init, signal });
  };
  return {
    fetch: fetcher,
    requests,
    /** Drops every open feed connection; with `refuse`, new ones fail until `restore`. */
    cut(refuse = false) {
      refuseFeed = refuse;
      for (const c of feeds) c.abort();
      feeds.clear();
    },
    restore() {
      refuseFeed = false;
    },
    feedRequests: () => requests.filter((r) => r.url.endsWith('/api/v1/events')),
  };
};

const clients: PresetClient[] = [];
const newClient = (fetcher: typeof fetch = svc.fetch, extra: Partial<Parameters<typeof createPresetClient>[0]> = {}) => {
  const client = createPresetClient({
    baseUrl: svc.url,
    apiKey: KEYS.readerOnly,
    fetch: fetcher,
    reconnect: { initialMs: 50, maxMs: 200 },
    ...extra,
  });
  clients.push(client);
  return client;
};
afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close()));
});

describe('answers', () => {
  beforeAll(async () => {
    await write('bot', {
      model: 'openai/gpt-4o',
      temperature: 0.3,
      tools: [{ type: 'function', function: { name: 'a' } }],
      messages: [{ role: 'system', content: 'Be terse.' }],
    });
    await write('bot', { model: 'openai/gpt-4o', temperature: 0.5 });
    expect((await svc.request('/api/v1/presets/bot/labels/stable', { method: 'PUT', json: { version: 1 } })).status).toBe(200);
    await write('off', { model: 'm/x' });
    expect((await svc.request('/api/v1/presets/off', { method: 'PATCH', json: { status: 'disabled' } })).status).toBe(200);
  });

  it("are the service's, for every form, pin and error", async () => {
    const client = newClient();
    const bodies = [
      { model: '@preset/bot', messages: [user('hi')] },
      { model: 'x/y@preset/bot@1', messages: [user('hi')], tools: [{ type: 'function', function: { name: 'b' } }] },
      { preset: 'bot@stable', messages: [user('hi')] },
      { model: '@preset/bot@latest', messages: [] },
      { model: '@preset/bot@9', messages: [] },
      { model: '@preset/bot@nope', messages: [] },
      { model: '@preset/absent', messages: [] },
      { model: '@preset/off', messages: [] },
      { model: '@preset/bot@Bad', messages: [] },
      { model: 'plain', messages: [] },
      { model: '@preset/bot', messages: 'not a list' },
    ];
    for (const body of bodies)
      expect({ body, answer: await clientAnswer(client, body) }).toEqual({ body, answer: await serverAnswer(body) });
  });

  it('shares frozen parts of its copy: a caller cannot change what the next one gets', async () => {
    const { request } = await newClient().resolve('chat_completions', { model: '@preset/bot@1', messages: [] });
    expect(Object.isFrozen(request)).toBe(false);
    expect(Object.isFrozen(request.tools)).toBe(true);
    expect(() => (request.tools as unknown[]).push({})).toThrow(/not extensible/);
  });
});

describe('keeping current', () => {
  it('sees a new version, a rollback, a label, a status change and a new preset through the feed', async () => {
    await write('live', { model: 'm/1' });
    const recorder = recordingFetch();
    const client = newClient(recorder.fetch);
    const model = async (body: Record<string, unknown>) =>
      (await clientAnswer(client, { messages: [], ...body })).ok?.request.model ?? null;
    expect(await model({ model: '@preset/live' })).toBe('m/1');

    await write('live', { model: 'm/2' });
    await eventually(
      () => model({ model: '@preset/live' }),
      (m) => m === 'm/2',
    );
    expect(await model({ model: '@preset/live@latest' })).toBe('m/2');
    expect((await svc.request('/api/v1/presets/live/designated-version', { method: 'PUT', json: { version: 1 } })).status).toBe(200);
    await eventually(
      () => model({ model: '@preset/live' }),
      (m) => m === 'm/1',
    );
    expect((await svc.request('/api/v1/presets/live/labels/canary', { method: 'PUT', json: { version: 2 } })).status).toBe(200);
    await eventually(
      () => model({ model: '@preset/live@canary' }),
      (m) => m === 'm/2',
    );
    expect((await svc.request('/api/v1/presets/live/labels/canary', { method: 'DELETE' })).status).toBe(200);
    await eventually(
      () => clientAnswer(client, { model: '@preset/live@canary', messages: [] }),
      (a) => a.error?.code === 404,
    );
    expect((await svc.request('/api/v1/presets/live', { method: 'PATCH', json: { status: 'disabled' } })).status).toBe(200);
    await eventually(
      () => clientAnswer(client, { model: '@preset/live', messages: [] }),
      (a) => a.error?.metadata.reason === 'preset_disabled',
    );
    await write('born-later', { model: 'm/new' });
    await eventually(
      () => model({ model: '@preset/born-later' }),
      (m) => m === 'm/new',
    );

    // One feed connection did it all, from the position the list gave.
    const feeds = recorder.feedRequests();
    expect(feeds).toHaveLength(1);
    expect(feeds[0]!.headers['last-event-id']).toMatch(/^\d+$/);
    expect(feeds[0]!.headers.accept).toBe('text/event-stream');
  });

  it("passes by the events of the workspace's keys stream, and of release control, and keeps following", async () => {
    await write('beside-keys', { model: 'm/1' });
    const client = newClient();
    const model = async () => (await clientAnswer(client, { model: '@preset/beside-keys', messages: [] })).ok?.request.model;
    expect(await model()).toBe('m/1');
    // A key made and revoked, and a label protected, in the workspace the client follows.
    const made = await svc.request('/api/v1/keys', {
      method: 'POST',
      key: KEYS.admin,
      json: { user_id: 'u', scopes: ['presets:read'], workspaces: [(await write('beside-keys', { model: 'm/2' })).workspace_id] },
    });
    expect(made.status).toBe(201);
    expect((await svc.request(`/api/v1/keys/${(await made.json()).data.id}`, { method: 'DELETE', key: KEYS.admin })).status).toBe(200);
    const guarded = await svc.request('/api/v1/presets/beside-keys/designation/protection', {
      method: 'PUT',
      key: KEYS.releaseAnn,
      json: { protected: true, approvals: 0 },
    });
    expect(guarded.status).toBe(200);
    await write('beside-keys', { model: 'm/3' }); // not designated: the designation is protected
    expect(
      (await svc.request('/api/v1/presets/beside-keys/designated-version', { method: 'PUT', key: KEYS.releaseAnn, json: { version: 3 } }))
        .status,
    ).toBe(200);
    expect(await eventually(model, (m) => m === 'm/3')).toBe('m/3');
  });

  it('reconnects after the feed drops, resuming with Last-Event-ID at the last event it applied', async () => {
    await write('resume', { model: 'm/1' });
    const recorder = recordingFetch();
    const client = newClient(recorder.fetch);
    await client.ready();
    await write('resume', { model: 'm/2' });
    const latest = async () => (await clientAnswer(client, { model: '@preset/resume', messages: [] })).ok?.request.model;
    await eventually(latest, (m) => m === 'm/2');
    const events = (await (await svc.request('/api/v1/events?limit=1000')).json()).data as Array<{ position: string }>;
    const seen = events[events.length - 1]!.position;

    recorder.cut();
    await write('resume', { model: 'm/3' });
    await eventually(latest, (m) => m === 'm/3');
    const feeds = recorder.feedRequests();
    expect(feeds.length).toBeGreaterThanOrEqual(2);
    expect(feeds[1]!.headers['last-event-id']).toBe(seen);
  });

  it('while the feed is down past the bound, revalidates what it holds with If-None-Match and takes what changed', async () => {
    await write('still', { model: 'm/still' });
    await write('moving', { model: 'm/1' });
    const recorder = recordingFetch();
    const client = newClient(recorder.fetch, { revalidateAfterMs: 150 });
    await client.ready();
    await eventually(
      async () => recorder.feedRequests().length,
      (n) => n === 1,
    );
    recorder.cut(true);
    await write('moving', { model: 'm/2' });
    const model = async () => (await clientAnswer(client, { model: '@preset/moving', messages: [] })).ok?.request.model;
    await eventually(model, (m) => m === 'm/2', 3000);

    // A listed document has no revision yet: the first round reads it whole; the next ones ask with
    // If-None-Match, and what did not change is a 304.
    const conditional = (slug: string) =>
      recorder.requests.filter((r) => r.headers['if-none-match'] !== undefined && new URL(r.url).pathname === `/api/v1/presets/${slug}`);
    await eventually(
      async () => conditional('still')[0]?.status,
      (status) => status !== undefined,
      3000,
    );
    expect(conditional('still')[0]).toMatchObject({ headers: { 'if-none-match': '"0"' }, status: 304 });
    // and the feed, when it comes back, changes nothing it already took
    recorder.restore();
    await eventually(
      async () => recorder.feedRequests().length,
      (n) => n > 1,
      3000,
    );
    expect(await model()).toBe('m/2');
  });
});

describe('the first copy', () => {
  it('takes every page of a workspace of more presets than one page holds', async () => {
    for (let i = 0; i < 105; i++) await write(`many-${i}`, { model: `m/${i}` });
    const recorder = recordingFetch();
    const client = newClient(recorder.fetch);
    expect((await client.resolve('chat_completions', { model: '@preset/many-0', messages: [] })).request.model).toBe('m/0');
    expect((await client.resolve('chat_completions', { model: '@preset/many-104', messages: [] })).request.model).toBe('m/104');
    expect(recorder.requests.filter((r) => new URL(r.url).pathname === '/api/v1/presets').length).toBeGreaterThanOrEqual(2);
  });

  it('rejects when the service cannot be reached, and tries again on the next call', async () => {
    let down = true;
    const client = newClient(async (input, init) => {
      if (down) throw new TypeError('fetch failed');
      return svc.fetch(input, init);
    });
    await expect(client.resolve('chat_completions', { model: '@preset/bot', messages: [] })).rejects.toThrow('fetch failed');
    down = false;
    await expect(client.resolve('chat_completions', { model: '@preset/bot', messages: [] })).resolves.toMatchObject({
      preset: { slug: 'bot' },
    });
  });

  it('says what the service said when the key is refused', async () => {
    const client = createPresetClient({ baseUrl: svc.url, apiKey: 'pk_unknown', fetch: svc.fetch });
    clients.push(client);
    await expect(client.ready()).rejects.toMatchObject({ name: 'PresetServiceError', status: 401 });
  });
});
