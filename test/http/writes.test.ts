import { useApiSpecification } from '../support/apiSpecification';
import { chatBody, KEYS, WORKSPACE_A } from '../support/service';
import { presetStreamName } from '#src/presets/streamName';
import { validate as validateUuid, version as uuidVersion } from 'uuid';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

const svc = useApiSpecification();

describe('creating and versioning presets', () => {
  it('creates a preset from a chat-completions body: version 1, exactly the specified fields', async () => {
    const res = await svc.request('/api/v1/presets/support-bot/chat/completions', {
      method: 'POST',
      json: chatBody({
        max_tokens: 512,
        stream: true,
        user: 'end-user-7',
        tools: [{ type: 'function', function: { name: 'lookup', parameters: { type: 'object' } } }],
      }),
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('location')).toBe('/api/v1/presets/support-bot');
    expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(res.headers.get('x-request-id')).toMatch(/.+/);
    const body = await res.json();
    expect(Object.keys(body)).toEqual(['data']);
    const p = body.data;
    expect(Object.keys(p).sort()).toEqual([
      'created_at',
      'creator_user_id',
      'description',
      'designated_version',
      'designated_version_id',
      'id',
      'labels',
      'name',
      'slug',
      'status',
      'status_updated_at',
      'updated_at',
      'workspace_id',
    ]);
    expect(p).toMatchObject({
      name: 'support-bot',
      slug: 'support-bot',
      description: null,
      status: 'active',
      status_updated_at: null,
      labels: {},
      creator_user_id: 'user-writer',
      workspace_id: WORKSPACE_A,
    });
    expect(p.id).toMatch(UUID);
    expect(p.created_at).toMatch(ISO);
    expect(p.updated_at).toBe(p.created_at);
    const v = p.designated_version;
    expect(Object.keys(v).sort()).toEqual([
      'config',
      'created_at',
      'creator_id',
      'id',
      'messages',
      'note',
      'preset_id',
      'source_format',
      'system_prompt',
      'template_format',
      'updated_at',
      'variables',
      'version',
    ]);
    expect(v).toMatchObject({
      preset_id: p.id,
      version: 1,
      system_prompt: 'You are terse.',
      template_format: 'none',
      variables: null,
      messages: [],
      note: null,
      source_format: 'chat_completions',
      creator_id: 'user-writer',
    });
    expect(v.id).toMatch(UUID);
    expect(p.designated_version_id).toBe(v.id);
    expect(v.config).toEqual({
      model: 'openai/gpt-4o',
      temperature: 0.2,
      max_tokens: 512,
      tools: [{ type: 'function', function: { name: 'lookup', parameters: { type: 'object' } } }],
    });
  });

  it('adds version 2 from a messages body and makes it the designated version', async () => {
    const first = await (await svc.request('/api/v1/presets/two-formats/chat/completions', { method: 'POST', json: chatBody() })).json();
    const res = await svc.request('/api/v1/presets/two-formats/messages', {
      method: 'POST',
      json: {
        model: 'anthropic/claude-sonnet-4',
        max_tokens: 1024,
        system: [
          { type: 'text', text: 'Be kind.' },
          { type: 'text', text: 'Be brief.' },
        ],
        messages: [{ role: 'user', content: 'hi' }],
      },
    });
    expect(res.status).toBe(200);
    const p = (await res.json()).data;
    expect(p.id).toBe(first.data.id);
    expect(p.created_at).toBe(first.data.created_at);
    expect(p.designated_version.version).toBe(2);
    expect(p.designated_version.system_prompt).toBe('Be kind.\n\nBe brief.');
    expect(p.designated_version.config).toEqual({ model: 'anthropic/claude-sonnet-4', max_tokens: 1024 });
    expect(p.designated_version_id).toBe(p.designated_version.id);
    expect(p.designated_version.id).not.toBe(first.data.designated_version.id);
    expect(p.updated_at >= first.data.updated_at).toBe(true);
  });

  it('takes a responses body: instructions become the system prompt, input is not kept', async () => {
    const res = await svc.request('/api/v1/presets/from-responses/responses', {
      method: 'POST',
      json: { model: 'openai/o4-mini', instructions: 'Think first.', input: 'hello', reasoning: { effort: 'high' }, store: false },
    });
    expect(res.status).toBe(200);
    const v = (await res.json()).data.designated_version;
    expect(v.system_prompt).toBe('Think first.');
    expect(v.config).toEqual({ model: 'openai/o4-mini', reasoning: { effort: 'high' } });
  });

  it('stores an empty system prompt when the body has no system instruction', async () => {
    const res = await svc.request('/api/v1/presets/no-system/chat/completions', {
      method: 'POST',
      json: { model: 'x/y', messages: [{ role: 'user', content: 'hi' }] },
    });
    expect((await res.json()).data.designated_version.system_prompt).toBe('');
  });

  it('answers from the read model at once: a GET right after the POST shows the new version', async () => {
    for (let i = 1; i <= 3; i++) {
      const post = await (
        await svc.request('/api/v1/presets/ryw/chat/completions', { method: 'POST', json: chatBody({ temperature: i / 10 }) })
      ).json();
      const get = await (await svc.request('/api/v1/presets/ryw')).json();
      expect(post.data.designated_version.version).toBe(i);
      expect(get.data).toEqual(post.data);
    }
  });

  it('mints time-ordered ids (UUIDv7, RFC 9562): presets and versions made later sort after earlier ones', async () => {
    const ids: string[] = [];
    for (const slug of ['ordered-a', 'ordered-b', 'ordered-a']) {
      const { data } = await (
        await svc.request(`/api/v1/presets/${slug}/chat/completions`, { method: 'POST', json: chatBody({ temperature: ids.length / 10 }) })
      ).json();
      ids.push(data.id, data.designated_version.id);
    }
    const [presetA, versionA1, presetB, versionB1, presetAgain, versionA2] = ids;
    expect(presetAgain).toBe(presetA);
    for (const id of ids) expect({ id, valid: validateUuid(id), version: uuidVersion(id) }).toEqual({ id, valid: true, version: 7 });
    const minted = [presetA, versionA1, presetB, versionB1, versionA2];
    expect(new Set(minted).size).toBe(minted.length);
    expect([...minted].sort()).toEqual(minted);
  });

  it('lets 20 concurrent POSTs to one new slug each succeed or get 409, with unique gapless versions of one preset', async () => {
    const answers = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        svc.request('/api/v1/presets/contended/chat/completions', { method: 'POST', json: chatBody({ seed: i }) }),
      ),
    );
    const statuses = answers.map((r) => r.status);
    expect(statuses.every((s) => s === 200 || s === 409)).toBe(true);
    const ok = await Promise.all(answers.filter((r) => r.status === 200).map((r) => r.json()));
    const conflicts = await Promise.all(answers.filter((r) => r.status === 409).map((r) => r.json()));
    for (const c of conflicts) expect(c.error.code).toBe(409);
    expect(new Set(ok.map((b) => b.data.id)).size).toBe(1);
    const numbers = ok.map((b) => b.data.designated_version.version).sort((a, b) => a - b);
    expect(numbers).toEqual(numbers.map((_, i) => i + 1));
    // what the store holds agrees with what was acknowledged: one event per 200, nothing else
    const stream = await svc.eventStore.read(presetStreamName(WORKSPACE_A, 'contended'));
    expect(stream).toHaveLength(ok.length);
    const versions = await (await svc.request('/api/v1/presets/contended/versions?limit=100')).json();
    expect(versions.data.map((v: { version: number }) => v.version)).toEqual(numbers);
    expect(new Set(ok.map((b) => (b.data.designated_version.config as { seed: number }).seed)).size).toBe(ok.length);
  });

  it('never logs an API key', async () => {
    await svc.request('/api/v1/presets', { key: 'pk_not_a_real_key_but_secret' });
    const all = svc.logs.join('');
    for (const key of [...Object.values(KEYS), 'pk_not_a_real_key_but_secret']) expect(all).not.toContain(key);
    expect(all).toContain('"msg":"request"');
  });
});
