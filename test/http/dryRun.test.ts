import { useApiSpecification } from '../support/apiSpecification';
import { KEYS } from '../support/service';

/**
 * `?dry_run=true` on the three create-or-version routes answers what the POST would store as the
 * version's config and system prompt, and stores nothing.
 */
const svc = useApiSpecification();

const FORMATS = [
  {
    path: 'chat/completions',
    format: 'chat_completions',
    body: {
      model: 'openai/gpt-4o',
      temperature: 0.3,
      max_tokens: 512,
      stream: true,
      user: 'end-user-7',
      seed: null,
      messages: [
        { role: 'system', content: 'Be terse.' },
        { role: 'user', content: 'hi' },
      ],
    },
    config: { model: 'openai/gpt-4o', temperature: 0.3, max_tokens: 512 },
    systemPrompt: 'Be terse.',
  },
  {
    path: 'messages',
    format: 'messages',
    body: {
      model: 'anthropic/claude-sonnet-4',
      max_tokens: 1024,
      top_k: 5,
      system: [
        { type: 'text', text: 'Be kind.' },
        { type: 'text', text: 'Be brief.' },
      ],
      messages: [{ role: 'user', content: 'hi' }],
    },
    config: { model: 'anthropic/claude-sonnet-4', max_tokens: 1024, top_k: 5 },
    systemPrompt: 'Be kind.\n\nBe brief.',
  },
  {
    path: 'responses',
    format: 'responses',
    body: { model: 'openai/o4-mini', instructions: 'Think first.', input: 'hello', reasoning: { effort: 'high' }, store: false },
    config: { model: 'openai/o4-mini', reasoning: { effort: 'high' } },
    systemPrompt: 'Think first.',
  },
] as const;

const workspaceEvents = async () => {
  const res = await svc.request('/api/v1/events?limit=1000');
  expect(res.status).toBe(200);
  return (await res.json()).data as Array<{ stream: string; type: string }>;
};

describe.each(FORMATS)('POST /api/v1/presets/{slug}/$path?dry_run=true', ({ path, format, body, config, systemPrompt }) => {
  const slug = `dry-${format}`;

  it('answers the config and system prompt the POST then stores, and stores nothing itself', async () => {
    const before = await workspaceEvents();
    const head = await svc.eventStore.headPosition();
    const dry = await svc.request(`/api/v1/presets/${slug}/${path}?dry_run=true`, { method: 'POST', json: body });
    expect(dry.status).toBe(200);
    expect(dry.headers.get('etag')).toBeNull();
    expect(dry.headers.get('location')).toBeNull();
    const preview = (await dry.json()).data;
    expect(preview).toEqual({
      config,
      system_prompt: systemPrompt,
      template_format: 'none',
      variables: null,
      messages: [],
      source_format: format,
      note: null,
    });

    // Nothing stored: no preset in the read model, no stream, no event in the workspace feed.
    expect((await svc.request(`/api/v1/presets/${slug}`)).status).toBe(404);
    expect((await svc.request(`/api/v1/presets/${slug}/events`)).status).toBe(404);
    expect(await workspaceEvents()).toEqual(before);
    expect(await svc.eventStore.headPosition()).toBe(head);

    const real = await svc.request(`/api/v1/presets/${slug}/${path}`, { method: 'POST', json: body });
    expect(real.status).toBe(200);
    const stored = (await real.json()).data.designated_version;
    expect(stored.version).toBe(1);
    expect({ config: stored.config, system_prompt: stored.system_prompt }).toEqual({
      config: preview.config,
      system_prompt: preview.system_prompt,
    });
    const version = (await (await svc.request(`/api/v1/presets/${slug}/versions/1`)).json()).data;
    expect({ config: version.config, system_prompt: version.system_prompt }).toEqual({
      config: preview.config,
      system_prompt: preview.system_prompt,
    });
    const [created] = (await (await svc.request(`/api/v1/presets/${slug}/events`)).json()).data;
    expect(created.metadata.sourceFormat).toBe(preview.source_format);
  });

  it('adds no version to an existing preset', async () => {
    const existing = await svc.request(`/api/v1/presets/${slug}`);
    const etag = existing.headers.get('etag');
    const dry = await svc.request(`/api/v1/presets/${slug}/${path}?dry_run=true`, {
      method: 'POST',
      json: { ...body, model: 'other/model' },
    });
    expect(dry.status).toBe(200);
    expect((await dry.json()).data.config.model).toBe('other/model');
    const after = await svc.request(`/api/v1/presets/${slug}`);
    expect(after.headers.get('etag')).toBe(etag);
    expect((await after.json()).data.designated_version.version).toBe(1);
    expect((await (await svc.request(`/api/v1/presets/${slug}/versions`)).json()).total_count).toBe(1);
  });

  it('rejects an invalid body as the POST does: 400 with the problem path, nothing stored', async () => {
    const bad = { ...body, model: 42 };
    const dry = await svc.request(`/api/v1/presets/dry-bad-${format}/${path}?dry_run=true`, { method: 'POST', json: bad });
    const real = await svc.request(`/api/v1/presets/dry-bad-${format}/${path}`, { method: 'POST', json: bad });
    expect(dry.status).toBe(400);
    expect(real.status).toBe(400);
    const dryError = (await dry.json()).error;
    expect(dryError).toEqual((await real.json()).error);
    expect(dryError.metadata.errors.map((e: { path: string }) => e.path)).toContain('$.model');
    expect((await svc.request(`/api/v1/presets/dry-bad-${format}`)).status).toBe(404);
  });
});

describe('the dry_run parameter', () => {
  it("reads the Preset-Note header as the write does: the preview's note is the version's note", async () => {
    const headers = { 'Preset-Note': encodeURIComponent('Shorter answers — per ticket #42') };
    const dry = await svc.request('/api/v1/presets/dry-note/messages?dry_run=true', { method: 'POST', json: FORMATS[1].body, headers });
    expect(dry.status).toBe(200);
    const preview = (await dry.json()).data;
    expect(preview.note).toBe('Shorter answers — per ticket #42');
    const real = await svc.request('/api/v1/presets/dry-note/messages', { method: 'POST', json: FORMATS[1].body, headers });
    expect((await real.json()).data.designated_version.note).toBe(preview.note);
    const badNote = await svc.request('/api/v1/presets/dry-note/messages?dry_run=true', {
      method: 'POST',
      json: FORMATS[1].body,
      headers: { 'Preset-Note': '%E0%A4%A' },
    });
    expect(badNote.status).toBe(400);
  });

  it('dry_run=false writes as without it', async () => {
    const res = await svc.request('/api/v1/presets/dry-false/responses?dry_run=false', { method: 'POST', json: FORMATS[2].body });
    expect(res.status).toBe(200);
    expect((await res.json()).data.designated_version.version).toBe(1);
    expect((await svc.request('/api/v1/presets/dry-false')).status).toBe(200);
  });

  it.each(['1', 'yes', 'TRUE', ''])('dry_run=%j is a 400 naming the parameter, and nothing is stored', async (value) => {
    const res = await svc.request(`/api/v1/presets/dry-odd/chat/completions?dry_run=${value}`, { method: 'POST', json: FORMATS[0].body });
    expect(res.status).toBe(400);
    const { error } = await res.json();
    expect(error.metadata.errors).toEqual([{ path: 'dry_run', message: expect.stringContaining('true or false') }]);
    expect((await svc.request('/api/v1/presets/dry-odd')).status).toBe(404);
  });

  it('dry_run given twice is a 400', async () => {
    const res = await svc.request('/api/v1/presets/dry-odd/chat/completions?dry_run=true&dry_run=true', {
      method: 'POST',
      json: FORMATS[0].body,
    });
    expect(res.status).toBe(400);
  });

  it('needs the presets:write scope like the POST (403 for a read-only key) and a key (401)', async () => {
    const readOnly = await svc.request('/api/v1/presets/dry-odd/chat/completions?dry_run=true', {
      method: 'POST',
      json: FORMATS[0].body,
      key: KEYS.readerOnly,
    });
    expect(readOnly.status).toBe(403);
    const none = await svc.request('/api/v1/presets/dry-odd/chat/completions?dry_run=true', {
      method: 'POST',
      json: FORMATS[0].body,
      key: null,
    });
    expect(none.status).toBe(401);
  });
});
