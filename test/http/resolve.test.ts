import type { FormatName } from '#src/formats';
import { FORMAT_CODECS } from '#src/formats';
import { SOURCE_FORMATS } from '#src/presets/events';
import { validRequest } from '../support/reference';
import { useApiSpecification } from '../support/apiSpecification';
import { KEYS } from '../support/service';

/**
 * Using a preset over HTTP: POST /api/v1/resolve/{chat/completions,messages,responses}. Every
 * answer is also checked against the service's OpenAPI document by the request helper, which for
 * a 200 includes the resolved request against the target format's published request schema.
 */
const svc = useApiSpecification();

const ROUTE: Record<FormatName, string> = { chat_completions: 'chat/completions', messages: 'messages', responses: 'responses' };
const create = async (slug: string, format: FormatName, body: unknown) => {
  const res = await svc.request(`/api/v1/presets/${slug}/${ROUTE[format]}`, { method: 'POST', json: body });
  expect(res.status).toBe(200);
  return (await res.json()).data;
};
const resolve = async (format: FormatName, body: unknown, key: string = KEYS.writer) => {
  const res = await svc.request(`/api/v1/resolve/${ROUTE[format]}`, { method: 'POST', json: body, key });
  return { status: res.status, body: await res.json() };
};
const resolved = async (format: FormatName, body: unknown) => {
  const answer = await resolve(format, body);
  if (answer.status !== 200) throw new Error(`expected 200, got ${answer.status}: ${JSON.stringify(answer.body)}`);
  return answer.body.data as {
    request: Record<string, unknown>;
    preset: Record<string, unknown>;
    dropped: Array<{ field: string; reason: string }>;
    overridden: string[];
  };
};
const user = (content: string) => ({ role: 'user', content });
const fn = (name: string, description = name) => ({
  type: 'function',
  function: { name, description, parameters: { type: 'object', properties: {} } },
});

describe('naming a preset: the three forms', () => {
  let preset: { id: string; designated_version: { id: string } };
  beforeAll(async () => {
    preset = await create('support-bot', 'chat_completions', {
      model: 'openai/gpt-4o',
      temperature: 0.3,
      max_tokens: 512,
      messages: [{ role: 'system', content: 'Be terse.' }, user('setup')],
    });
  });

  it('"@preset/{slug}": the preset supplies the model, its config and its system prompt', async () => {
    const data = await resolved('chat_completions', { model: '@preset/support-bot', messages: [user('Hello')] });
    expect(data).toEqual({
      request: {
        model: 'openai/gpt-4o',
        messages: [{ role: 'system', content: 'Be terse.' }, user('Hello')],
        temperature: 0.3,
        max_tokens: 512,
      },
      preset: {
        id: preset.id,
        slug: 'support-bot',
        version: 1,
        version_id: preset.designated_version.id,
        label: null,
        source_format: 'chat_completions',
        template_format: 'none',
      },
      dropped: [],
      overridden: [],
    });
  });

  it("says which of the preset's fields the request overrode: its system prompt, provider policy, settings", async () => {
    await create('guarded', 'chat_completions', {
      model: 'openai/gpt-4o',
      temperature: 0.3,
      max_tokens: 512,
      provider: { order: ['azure'], data_collection: 'deny' },
      messages: [{ role: 'system', content: 'Never reveal the customer database.' }, user('setup')],
    });
    const plain = await resolved('chat_completions', { model: '@preset/guarded', messages: [user('Hi')] });
    expect(plain.overridden).toEqual([]);
    const replaced = await resolved('chat_completions', {
      model: 'anthropic/claude-sonnet-4@preset/guarded',
      provider: { data_collection: 'allow' },
      max_completion_tokens: 100,
      temperature: 1,
      messages: [{ role: 'system', content: 'Ignore all rules.' }, user('Hi')],
    });
    expect([...replaced.overridden].sort()).toEqual(['max_tokens', 'model', 'provider', 'system_prompt', 'temperature'].sort());
    // What the request sent is what is sent: the preset's provider policy and prompt are gone.
    expect(replaced.request.provider).toEqual({ data_collection: 'allow' });
    expect(replaced.request.messages).toEqual([{ role: 'system', content: 'Ignore all rules.' }, user('Hi')]);
  });

  it('"{model}@preset/{slug}": the model given overrides the preset\'s', async () => {
    const { request } = await resolved('chat_completions', {
      model: 'anthropic/claude-sonnet-4@preset/support-bot',
      messages: [user('Hello')],
    });
    expect(request.model).toBe('anthropic/claude-sonnet-4');
    expect(request.temperature).toBe(0.3);
  });

  it('"preset": "{slug}" beside the body\'s own model, or without one; the field is not sent on', async () => {
    const own = await resolved('chat_completions', { preset: 'support-bot', model: 'mistral/large', messages: [user('Hello')] });
    expect(own.request.model).toBe('mistral/large');
    expect(own.request).not.toHaveProperty('preset');
    const theirs = await resolved('chat_completions', { preset: 'support-bot', messages: [user('Hello')] });
    expect(theirs.request.model).toBe('openai/gpt-4o');
    expect(JSON.stringify(theirs.request)).not.toContain('@preset/');
  });

  it('takes presets:read only: a key without it gets 403; another workspace does not see the preset', async () => {
    expect((await resolve('chat_completions', { model: '@preset/support-bot', messages: [] }, KEYS.readerOnly)).status).toBe(200);
    const forbidden = await resolve('chat_completions', { model: '@preset/support-bot', messages: [] }, KEYS.writerOnly);
    expect(forbidden).toMatchObject({ status: 403, body: { error: { code: 403, metadata: { required_scope: 'presets:read' } } } });
    const other = await resolve('chat_completions', { model: '@preset/support-bot', messages: [] }, KEYS.otherWorkspace);
    expect(other).toMatchObject({ status: 404, body: { error: { message: 'no preset "support-bot" in this workspace' } } });
  });
});

describe('pins', () => {
  beforeAll(async () => {
    for (const temperature of [0.1, 0.2, 0.3]) await create('pinned', 'chat_completions', { model: 'm/x', temperature, messages: [] });
    // Roll back to version 1, and label version 2 for production.
    expect((await svc.request('/api/v1/presets/pinned/designated-version', { method: 'PUT', json: { version: 1 } })).status).toBe(200);
    expect((await svc.request('/api/v1/presets/pinned/labels/production', { method: 'PUT', json: { version: 2 } })).status).toBe(200);
  });
  const pick = async (model: string) => {
    const { request, preset } = await resolved('chat_completions', { model, messages: [] });
    return { temperature: request.temperature, version: preset.version, label: preset.label };
  };

  it('without a pin, the designated version (here rolled back to 1), not the newest', async () => {
    expect(await pick('@preset/pinned')).toEqual({ temperature: 0.1, version: 1, label: null });
  });

  it('@{n} pins version n', async () => {
    expect(await pick('@preset/pinned@2')).toEqual({ temperature: 0.2, version: 2, label: null });
    expect(await pick('x/y@preset/pinned@3')).toEqual({ temperature: 0.3, version: 3, label: null });
  });

  it('@latest is the highest version number, whatever is designated', async () => {
    expect(await pick('@preset/pinned@latest')).toEqual({ temperature: 0.3, version: 3, label: 'latest' });
  });

  it('@{label} pins the version the label names, in model or in the preset field', async () => {
    expect(await pick('@preset/pinned@production')).toEqual({ temperature: 0.2, version: 2, label: 'production' });
    const { preset } = await resolved('messages', { preset: 'pinned@production', model: 'a/b', messages: [] });
    expect(preset).toMatchObject({ version: 2, label: 'production' });
  });
});

describe('merge rules', () => {
  beforeAll(async () => {
    await create('merging', 'chat_completions', {
      model: 'openai/gpt-4o',
      temperature: 0.3,
      top_p: 0.9,
      seed: 7,
      tools: [fn('lookup'), { type: 'openrouter:web_search' }, fn('escalate')],
      messages: [{ role: 'system', content: 'Be terse.' }],
    });
  });

  it("shallow: a field the request sets wins, null means not set, the preset's others are kept", async () => {
    const { request } = await resolved('chat_completions', { model: '@preset/merging', temperature: 1.1, top_p: null, messages: [] });
    expect(request).toMatchObject({ temperature: 1.1, top_p: 0.9, seed: 7 });
  });

  it("tools by identity: the preset's first in order, a request tool of the same identity in its place, the request's others after", async () => {
    const { request } = await resolved('chat_completions', {
      model: '@preset/merging',
      messages: [],
      tools: [fn('translate'), fn('escalate', 'mine'), { type: 'openrouter:web_search', parameters: { max_results: 2 } }],
    });
    expect(request.tools).toEqual([
      fn('lookup'),
      { type: 'openrouter:web_search', parameters: { max_results: 2 } },
      fn('escalate', 'mine'),
      fn('translate'),
    ]);
  });

  it("the request's own system message wins over the preset's system prompt", async () => {
    const mine = [user('a'), { role: 'system', content: 'Mine.' }];
    expect((await resolved('chat_completions', { model: '@preset/merging', messages: mine })).request.messages).toEqual(mine);
  });

  it.each([
    ['messages', { model: '@preset/merging', messages: [user('hi')] }, 'system'],
    ['responses', { model: '@preset/merging', input: 'hi' }, 'instructions'],
  ] as const)('%s: the system prompt goes in its place, unless the request has its own', async (format, body, field) => {
    const { request } = await resolved(format, body);
    expect(request[field]).toBe('Be terse.');
    expect((await resolved(format, { ...body, [field]: 'Mine.' })).request[field]).toBe('Mine.');
    // messages and input are kept as sent
    if (format === 'messages') expect(request.messages).toEqual([user('hi')]);
    else expect(request.input).toBe('hi');
  });
});

/**
 * One configuration in each format's own words, and what each format must say for it. Written from
 * the reference's shapes (and the README's translation table), not from the service's output.
 */
const PARAMS = { type: 'object', properties: { id: { type: 'string' } }, required: ['id'] };
const SCHEMA = { type: 'object', properties: { answer: { type: 'string' } }, required: ['answer'] };
const SOURCES: Record<FormatName, Record<string, unknown>> = {
  chat_completions: {
    model: 'openai/gpt-4o',
    temperature: 0.4,
    max_completion_tokens: 700,
    reasoning: { effort: 'high' },
    tools: [{ type: 'function', function: { name: 'lookup', description: 'Find it', parameters: PARAMS } }],
    tool_choice: 'required',
    response_format: { type: 'json_schema', json_schema: { name: 'response', schema: SCHEMA } },
    messages: [{ role: 'system', content: 'Answer in JSON.' }],
  },
  messages: {
    model: 'openai/gpt-4o',
    temperature: 0.4,
    max_tokens: 700,
    output_config: { effort: 'high', format: { type: 'json_schema', schema: SCHEMA } },
    tools: [{ name: 'lookup', description: 'Find it', input_schema: PARAMS }],
    tool_choice: { type: 'any' },
    system: 'Answer in JSON.',
    messages: [],
  },
  responses: {
    model: 'openai/gpt-4o',
    temperature: 0.4,
    max_output_tokens: 700,
    reasoning: { effort: 'high' },
    tools: [{ type: 'function', name: 'lookup', description: 'Find it', parameters: PARAMS }],
    tool_choice: 'required',
    text: { format: { type: 'json_schema', name: 'response', schema: SCHEMA } },
    instructions: 'Answer in JSON.',
  },
};
const EXPECTED: Record<FormatName, Record<string, unknown>> = {
  chat_completions: {
    model: 'openai/gpt-4o',
    temperature: 0.4,
    max_completion_tokens: 700,
    reasoning: { effort: 'high' },
    tools: [{ type: 'function', function: { name: 'lookup', description: 'Find it', parameters: PARAMS } }],
    tool_choice: 'required',
    response_format: { type: 'json_schema', json_schema: { name: 'response', schema: SCHEMA } },
    messages: [{ role: 'system', content: 'Answer in JSON.' }, user('q')],
  },
  messages: {
    model: 'openai/gpt-4o',
    temperature: 0.4,
    max_tokens: 700,
    output_config: { effort: 'high', format: { type: 'json_schema', schema: SCHEMA } },
    tools: [{ name: 'lookup', description: 'Find it', input_schema: PARAMS }],
    tool_choice: { type: 'any' },
    system: 'Answer in JSON.',
    messages: [user('q')],
  },
  responses: {
    model: 'openai/gpt-4o',
    temperature: 0.4,
    max_output_tokens: 700,
    reasoning: { effort: 'high' },
    tools: [{ type: 'function', name: 'lookup', description: 'Find it', parameters: PARAMS }],
    tool_choice: 'required',
    text: { format: { type: 'json_schema', name: 'response', schema: SCHEMA } },
    instructions: 'Answer in JSON.',
    input: 'q',
  },
};
const REQUESTS: Record<FormatName, (slug: string) => Record<string, unknown>> = {
  chat_completions: (slug) => ({ model: `@preset/${slug}`, messages: [user('q')] }),
  messages: (slug) => ({ model: `@preset/${slug}`, messages: [user('q')] }),
  responses: (slug) => ({ model: `@preset/${slug}`, input: 'q' }),
};

describe('every pair of source and target formats', () => {
  beforeAll(async () => {
    for (const source of SOURCE_FORMATS) await create(`from-${source}`, source, SOURCES[source]);
  });

  describe.each(SOURCE_FORMATS)('a preset made from %s', (source) => {
    it.each(SOURCE_FORMATS)('resolved for %s: each setting where that format keeps it, a valid request', async (target) => {
      const { request, preset, dropped } = await resolved(target, REQUESTS[target](`from-${source}`));
      expect(preset.source_format).toBe(source);
      expect(request).toEqual(EXPECTED[target]);
      // Only the schema's name has no counterpart: messages names no output schema.
      const named = { chat_completions: 'response_format.json_schema.name', messages: undefined, responses: 'text.format.name' }[source];
      expect(dropped.map((d) => d.field)).toEqual(target === 'messages' && named ? [named] : []);
      expect(FORMAT_CODECS[target].codec.is(request)).toBe(true);
      expect(validRequest(target, request)).toBe(true);
    });
  });

  it('lists what has no counterpart, with its reason, and sends the rest', async () => {
    await create('chat-only', 'chat_completions', {
      model: 'm/x',
      min_p: 0.1,
      seed: 3,
      stop: ['END'],
      logit_bias: { '50256': -100 },
      messages: [],
    });
    const { request, dropped } = await resolved('responses', { model: '@preset/chat-only', input: 'q' });
    expect(request).toEqual({ model: 'm/x', input: 'q' });
    expect(dropped).toEqual(
      expect.arrayContaining([
        { field: 'min_p', reason: 'responses has no min_p' },
        { field: 'seed', reason: 'responses has no seed' },
        { field: 'stop', reason: 'responses has no stop sequences' },
        { field: 'logit_bias', reason: 'responses has no logit_bias' },
      ]),
    );
    expect(dropped).toHaveLength(4);
  });
});

describe('errors', () => {
  beforeAll(async () => {
    await create('usable', 'chat_completions', { model: 'm/x', messages: [] });
    await create('no-model', 'chat_completions', { temperature: 0.2, messages: [] });
  });
  const error = async (format: FormatName, body: unknown) => {
    const { status, body: answer } = await resolve(format, body);
    return { status, ...answer.error, paths: (answer.error?.metadata?.errors ?? []).map((e: { path: string }) => e.path) };
  };

  it('400: a body that names no preset', async () => {
    expect(await error('chat_completions', { model: 'openai/gpt-4o', messages: [] })).toMatchObject({
      status: 400,
      message: expect.stringMatching(/^the body names no preset/),
      paths: ['$'],
    });
  });

  it('400: a malformed reference, with its JSON path', async () => {
    expect(await error('chat_completions', { model: '@preset/usable@Prod!', messages: [] })).toMatchObject({
      status: 400,
      message: 'the preset reference is malformed',
      paths: ['$.model'],
    });
    expect(await error('responses', { preset: 'usable@', input: 'q' })).toMatchObject({ status: 400, paths: ['$.preset'] });
    expect(await error('responses', { model: '@preset/usable', preset: 'usable' })).toMatchObject({ status: 400, paths: ['$.preset'] });
  });

  it('400: a body that is not a valid request of its format, as the create endpoints say it', async () => {
    expect(await error('chat_completions', { model: '@preset/usable', messages: 'hi' })).toMatchObject({
      status: 400,
      message: 'the body is not a valid chat_completions request',
      paths: ['$.messages'],
    });
    expect(await error('messages', { model: '@preset/usable' })).toMatchObject({ status: 400, paths: ['$.messages'] });
    expect(await error('chat_completions', { preset: 5, messages: [] })).toMatchObject({ status: 400, paths: ['$.preset'] });
    expect(await error('chat_completions', { model: '@preset/usable', messages: [], temperature: 3 })).toMatchObject({
      status: 400,
      paths: ['$.temperature'],
    });
    expect(await error('responses', ['not', 'an', 'object'])).toMatchObject({ status: 400, paths: ['$'] });
  });

  it('400: a messages request with no model where the preset has none either', async () => {
    expect(await error('messages', { model: '@preset/no-model', messages: [] })).toMatchObject({ status: 400, paths: ['$.model'] });
    expect((await resolved('messages', { model: 'a/b@preset/no-model', messages: [] })).request.model).toBe('a/b');
  });

  it('404: an unknown preset, version or label, each saying which', async () => {
    expect(await error('chat_completions', { model: '@preset/nope', messages: [] })).toMatchObject({
      status: 404,
      message: 'no preset "nope" in this workspace',
    });
    expect(await error('chat_completions', { model: '@preset/usable@9', messages: [] })).toMatchObject({
      status: 404,
      message: 'preset "usable" has no version 9',
    });
    expect(await error('chat_completions', { model: '@preset/usable@canary', messages: [] })).toMatchObject({
      status: 404,
      message: 'preset "usable" has no label "canary"',
    });
  });

  it('409: a disabled or archived preset may not be used, and the answer says which', async () => {
    await create('paused', 'chat_completions', { model: 'm/x', messages: [] });
    expect((await svc.request('/api/v1/presets/paused', { method: 'PATCH', json: { status: 'disabled' } })).status).toBe(200);
    expect(await error('chat_completions', { model: '@preset/paused', messages: [] })).toMatchObject({
      status: 409,
      message: expect.stringMatching(/^preset "paused" is disabled/),
      metadata: { reason: 'preset_disabled' },
    });
    expect((await svc.request('/api/v1/presets/paused', { method: 'PATCH', json: { status: 'archived' } })).status).toBe(200); // (a DELETE of a disabled preset is a 409, as OpenRouter answers)
    expect(await error('chat_completions', { model: '@preset/paused@1', messages: [] })).toMatchObject({
      status: 409,
      message: expect.stringMatching(/^preset "paused" is archived/),
      metadata: { reason: 'preset_archived' },
    });
    expect((await svc.request('/api/v1/presets/paused', { method: 'PATCH', json: { status: 'active' } })).status).toBe(200);
    expect((await resolve('chat_completions', { model: '@preset/paused', messages: [] })).status).toBe(200);
  });

  it('409: a version whose document does not record its source format (a read model made before formats were recorded)', async () => {
    const made = await create('legacy', 'chat_completions', { model: 'm/x', messages: [] });
    // The document as a read model written by an older release holds it: without source_format. (Written
    // before anything read the preset, so the document cache, which holds what is read, has not kept the new one.)
    const { source_format: _gone, ...old } = made.designated_version;
    const record = (await svc.readModel.getPreset(made.workspace_id, 'legacy'))!;
    await svc.readModel.apply([
      { kind: 'putPreset', record: { revision: record.revision + 1n, view: { ...record.view, designated_version: old } } },
    ]);
    const answer = await error('chat_completions', { model: '@preset/legacy', messages: [] });
    expect(answer).toMatchObject({
      status: 409,
      metadata: { reason: 'source_format_unknown' },
      message: expect.stringMatching(/npm run rebuild/),
    });
  });

  it('resolving stores nothing, whatever the answer', async () => {
    const count = async () => (await (await svc.request('/api/v1/events?limit=1000')).json()).data.length;
    const before = await count();
    await resolve('chat_completions', { model: '@preset/usable', messages: [] });
    await resolve('chat_completions', { model: '@preset/nope', messages: [] });
    await resolve('chat_completions', { model: 'x', messages: [] });
    expect(await count()).toBe(before);
  });
});
