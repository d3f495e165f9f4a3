import type { FormatName } from '#src/formats';
import { useApiSpecification } from '../support/apiSpecification';
import { supportBot } from '../support/supportBot';
import { KEYS } from '../support/service';

/**
 * Templated versions over HTTP (issue 56, docs/templates.md): making one (`POST …/versions`, and
 * `?template_format=handlebars` on the inference-body endpoints), every rule of the write, and
 * filling it in at resolve in the three formats: `prompt_variables`, OpenAI's `prompt` object,
 * every error with its path, the hostile templates and values. Every answer is also checked
 * against the service's OpenAPI document by the request helper.
 */
const svc = useApiSpecification();

type Json = Record<string, unknown>;
const FORMATS: readonly FormatName[] = ['chat_completions', 'messages', 'responses'];
const ROUTE: Record<FormatName, string> = { chat_completions: 'chat/completions', messages: 'messages', responses: 'responses' };

const post = async (path: string, json: unknown, init: { key?: string; headers?: Record<string, string> } = {}) => {
  const res = await svc.request(path, { method: 'POST', json, ...init });
  return {
    status: res.status,
    body: (await res.json()) as Json & { data: Json; error: { code: number; message: string; metadata: Json } },
  };
};
const version = (slug: string, body: Json, query = '') => post(`/api/v1/presets/${slug}/versions${query}`, body);
const resolve = (format: FormatName, body: Json) => post(`/api/v1/resolve/${ROUTE[format]}`, body);
const resolved = async (format: FormatName, body: Json) => {
  const answer = await resolve(format, body);
  if (answer.status !== 200) throw new Error(`expected 200, got ${answer.status}: ${JSON.stringify(answer.body)}`);
  return answer.body.data as {
    request: Json;
    preset: Json;
    dropped: unknown[];
    overridden: string[];
    served?: Json;
    unused_variables?: string[];
  };
};
const errorsOf = (answer: { body: { error: { metadata: Json } } }) => answer.body.error.metadata.errors;
const eventCount = async () => ((await (await svc.request('/api/v1/events?limit=1000')).json()).data as unknown[]).length;

/** The support bot (test/support/supportBot.ts). */
const SUPPORT = supportBot();
const user = (content: string) => ({ role: 'user', content });
/** A request of `format` naming `model`, with one user turn of its own. */
const asking = (format: FormatName, extra: Json = {}, question = 'I was charged twice.'): Json =>
  format === 'messages'
    ? { model: 'anthropic/claude-sonnet-4@preset/support', max_tokens: 256, messages: [user(question)], ...extra }
    : format === 'responses'
      ? { model: '@preset/support', input: question, ...extra }
      : { model: '@preset/support', messages: [user(question)], ...extra };

beforeAll(async () => {
  expect((await version('support', SUPPORT)).status).toBe(200);
});

describe('POST /api/v1/presets/{slug}/versions', () => {
  it('makes a templated version, shown with its fields in every answer, its schema as sent', async () => {
    const answer = await version('made', { ...SUPPORT, note: 'first template' });
    expect(answer.status).toBe(200);
    const designated = answer.body.data.designated_version as Json;
    expect(designated).toMatchObject({
      version: 1,
      config: SUPPORT.config,
      system_prompt: SUPPORT.system_prompt,
      template_format: 'handlebars',
      variables: SUPPORT.variables,
      messages: SUPPORT.messages,
      note: 'first template',
      source_format: 'chat_completions',
    });
    expect(JSON.stringify(designated.variables)).toBe(JSON.stringify(SUPPORT.variables));
    const one = (await (await svc.request('/api/v1/presets/made/versions/1')).json()).data;
    const list = (await (await svc.request('/api/v1/presets/made/versions')).json()).data[0];
    for (const shown of [one, list]) expect(shown).toEqual(designated);
  });

  it('takes the config of each format, checked by its codec, and a plain ("none") version with messages', async () => {
    const configs: Record<FormatName, Json> = {
      chat_completions: { model: 'openai/gpt-4o', max_tokens: 100, response_format: { type: 'json_object' } },
      messages: { model: 'anthropic/claude-sonnet-4', max_tokens: 100, top_k: 4 },
      responses: { model: 'openai/o4-mini', reasoning: { effort: 'low' }, max_output_tokens: 100 },
    };
    for (const format of FORMATS) {
      const slug = `parts-${format.replace('_', '-')}`;
      const answer = await version(slug, {
        format,
        config: configs[format],
        system_prompt: 'Be terse {{literally}}.',
        template_format: 'none',
        messages: [user('Hi'), { role: 'assistant', content: 'Hello' }],
      });
      expect(answer.status).toBe(200);
      expect(answer.body.data.designated_version).toMatchObject({
        config: configs[format],
        template_format: 'none',
        variables: null,
        messages: [user('Hi'), { role: 'assistant', content: 'Hello' }],
        source_format: format,
      });
    }
  });

  it('previews with ?dry_run=true, honours If-Match, takes the note in the body or the header (not both)', async () => {
    const before = await eventCount();
    const dry = await version('previewed', SUPPORT, '?dry_run=true');
    expect(dry.body.data).toEqual({
      config: SUPPORT.config,
      system_prompt: SUPPORT.system_prompt,
      template_format: 'handlebars',
      variables: SUPPORT.variables,
      messages: SUPPORT.messages,
      source_format: 'chat_completions',
      note: null,
    });
    expect(await eventCount()).toBe(before);
    expect((await svc.request('/api/v1/presets/previewed')).status).toBe(404);
    const stale = await post('/api/v1/presets/support/versions', SUPPORT, { headers: { 'If-Match': '"99"' } });
    expect(stale.status).toBe(412);
    const both = await post('/api/v1/presets/support/versions', { ...SUPPORT, note: 'x' }, { headers: { 'Preset-Note': 'y' } });
    expect(both.status).toBe(400);
    const noted = await post('/api/v1/presets/noted/versions', SUPPORT, {
      headers: { 'Preset-Note': encodeURIComponent('from the header') },
    });
    expect((noted.body.data.designated_version as Json).note).toBe('from the header');
  });

  it('needs presets:write', async () => {
    expect((await post('/api/v1/presets/denied/versions', SUPPORT, { key: KEYS.readerOnly })).status).toBe(403);
  });

  it('infers the variables from the template when none are given, and null for a template that reads none', async () => {
    const { variables: _, ...inferred } = SUPPORT;
    const answer = await version('inferred', { ...inferred, messages: [user('{{#each topics}}{{title}}{{/each}} {{customer.name}}')] });
    expect((answer.body.data.designated_version as Json).variables).toEqual({
      type: 'object',
      properties: {
        company: { type: 'string' },
        language: { type: 'string' },
        premium: {},
        topics: { type: 'array' },
        customer: { type: 'object' },
      },
      required: ['company', 'language', 'topics', 'customer'],
    });
    const plain = await version('inferred-none', { ...inferred, system_prompt: 'No names.', messages: [] });
    expect((plain.body.data.designated_version as Json).variables).toBeNull();
  });

  it('refuses, naming the place, and stores nothing: unknown fields, configs its format refuses, bad templates, schemas and names', async () => {
    const before = await eventCount();
    const cases: Array<[Json, Array<{ path: string; message?: unknown }>]> = [
      [{ ...SUPPORT, variable: {} }, [{ path: '$["variable"]' }]],
      [{ ...SUPPORT, format: 'completions' }, [{ path: '$.format' }]],
      [{ ...SUPPORT, template_format: 'jinja' }, [{ path: '$.template_format' }]],
      [
        { ...SUPPORT, config: { model: 'm', stream: true } },
        [{ path: '$.config.stream', message: expect.stringMatching(/transport of one request/) }],
      ],
      [{ ...SUPPORT, config: { model: 'm', messages: [] } }, [{ path: '$.config.messages' }]],
      [{ ...SUPPORT, config: { model: 'm', temperature: 'hot' } }, [{ path: '$.config.temperature' }]],
      [
        { ...SUPPORT, config: { model: 'm', not_a_field: 1 } },
        [{ path: '$.config.not_a_field', message: 'is not a field of chat_completions requests' }],
      ],
      [{ ...SUPPORT, messages: [{ role: 'system', content: 'x' }] }, [{ path: '$.messages[0].role' }]],
      [{ ...SUPPORT, messages: [{ role: 'user', content: [{ type: 'text', text: 'x' }] }] }, [{ path: '$.messages[0].content' }]],
      [
        { ...SUPPORT, system_prompt: 'Hi {{#if company}}' },
        [{ path: '$.system_prompt', message: expect.stringMatching(/does not parse as Handlebars/) }],
      ],
      [{ ...SUPPORT, messages: [user('{{nope}}')] }, [{ path: '$.messages[0].content', message: expect.stringMatching(/reads "nope"/) }]],
      [
        { ...SUPPORT, variables: { type: 'object', properties: { company: { type: 'strin' } } } },
        [{ path: '$.variables.properties.company.type' }],
      ],
      [
        { ...SUPPORT, variables: { type: 'array' } },
        expect.arrayContaining([{ path: '$.variables.type', message: expect.any(String) }]) as never,
      ],
      [{ ...SUPPORT, template_format: 'none' }, [{ path: '$.variables', message: expect.stringMatching(/template_format is "none"/) }]],
    ];
    for (const [body, problems] of cases) {
      const answer = await version('refused', body);
      expect({ body, status: answer.status, errors: errorsOf(answer) }).toEqual({
        body,
        status: 400,
        errors: Array.isArray(problems) ? problems.map((p) => ({ message: expect.any(String), ...p })) : problems,
      });
    }
    expect(await eventCount()).toBe(before);
    expect((await svc.request('/api/v1/presets/refused')).status).toBe(404);
  });
});

describe('?template_format on the inference-body endpoints', () => {
  const bodies: Record<FormatName, (system: string) => Json> = {
    chat_completions: (system) => ({ model: 'openai/gpt-4o', messages: [user('x'), { role: 'system', content: system }] }),
    messages: (system) => ({ model: 'anthropic/claude-sonnet-4', max_tokens: 10, system, messages: [user('x')] }),
    responses: (system) => ({ model: 'openai/o4-mini', instructions: system, input: 'x' }),
  };
  const systemPath: Record<FormatName, string> = {
    chat_completions: '$.messages[1].content',
    messages: '$.system',
    responses: '$.instructions',
  };

  it.each(FORMATS)(
    '%s: handlebars makes the system instruction a template with inferred variables; a bad one is a 400 at its place',
    async (format) => {
      const slug = `inferred-${format.replace('_', '-')}`;
      const made = await post(`/api/v1/presets/${slug}/${ROUTE[format]}?template_format=handlebars`, bodies[format]('Hello {{name}}'));
      expect(made.body.data.designated_version).toMatchObject({
        system_prompt: 'Hello {{name}}',
        template_format: 'handlebars',
        variables: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] },
        messages: [],
      });
      const bad = await post(`/api/v1/presets/${slug}/${ROUTE[format]}?template_format=handlebars`, bodies[format]('{{#each}}{{/each}}'));
      expect({ status: bad.status, errors: errorsOf(bad) }).toEqual({
        status: 400,
        errors: [{ path: systemPath[format], message: expect.stringMatching(/takes 1 argument/) }],
      });
      const wrong = await post(`/api/v1/presets/${slug}/${ROUTE[format]}?template_format=mustache`, bodies[format]('x'));
      expect({ status: wrong.status, errors: errorsOf(wrong) }).toEqual({
        status: 400,
        errors: [{ path: 'template_format', message: 'must be none or handlebars, got "mustache"' }],
      });
    },
  );

  it.each(FORMATS)(
    '%s: by default ("none", as OpenRouter stores a body) a {{x}} stays literal: stored, and resolved untouched',
    async (format) => {
      const slug = `literal-${format.replace('_', '-')}`;
      const text = 'Keep {{x}}, {{#if y}}this{{/if}} and {{> z}} as written.';
      const made = await post(`/api/v1/presets/${slug}/${ROUTE[format]}`, bodies[format](text));
      expect(made.body.data.designated_version).toMatchObject({
        system_prompt: text,
        template_format: 'none',
        variables: null,
        messages: [],
      });
      for (const target of FORMATS) {
        const request: Json =
          target === 'messages'
            ? { model: `m@preset/${slug}`, max_tokens: 5, messages: [user('q')] }
            : target === 'responses'
              ? { model: `@preset/${slug}`, input: 'q' }
              : { model: `@preset/${slug}`, messages: [user('q')] };
        const data = await resolved(target, { ...request, prompt_variables: { x: 'filled', y: true } });
        const system =
          target === 'chat_completions'
            ? (data.request.messages as Json[])[0]!.content
            : target === 'messages'
              ? data.request.system
              : data.request.instructions;
        expect(system).toBe(text);
        expect(data.preset.template_format).toBe('none');
        expect(data.unused_variables).toEqual(['x', 'y']);
        expect(data.request).not.toHaveProperty('prompt_variables');
      }
    },
  );
});

describe('filling it in at resolve', () => {
  it.each(FORMATS)(
    '%s: prompt_variables fill the system prompt and messages, defaults apply, the rest is listed unused',
    async (format) => {
      const data = await resolved(format, asking(format, { prompt_variables: { company: 'Acme', premium: true, campaign: 'spring' } }));
      const system = 'You support customers of Acme. Answer in English. Escalate at once.';
      const fewShot = [user('Example question about Acme'), { role: 'assistant', content: 'Example answer' }];
      if (format === 'chat_completions')
        expect(data.request.messages).toEqual([{ role: 'system', content: system }, ...fewShot, user('I was charged twice.')]);
      if (format === 'messages') {
        expect(data.request.system).toBe(system);
        expect(data.request.messages).toEqual([...fewShot, user('I was charged twice.')]);
      }
      if (format === 'responses') {
        expect(data.request.instructions).toBe(system);
        expect(data.request.input).toEqual([...fewShot, user('I was charged twice.')]);
      }
      expect(data.preset).toMatchObject({ slug: 'support', template_format: 'handlebars' });
      expect(data.unused_variables).toEqual(['campaign']);
      expect(data.request).not.toHaveProperty('prompt_variables');
    },
  );

  it.each(FORMATS)('%s: a missing required variable, a wrong type, a value outside its enum: 400 with each path', async (format) => {
    const answer = await resolve(format, asking(format, { prompt_variables: { premium: 'yes', language: 'German' } }));
    expect(answer.status).toBe(400);
    expect(answer.body.error).toEqual({
      code: 400,
      message: 'the variables do not fit version 1 of preset "support"',
      metadata: {
        errors: expect.arrayContaining([
          { path: '$.prompt_variables.company', message: 'is required' },
          { path: '$.prompt_variables.premium', message: 'must be boolean (got string "yes")' },
          { path: '$.prompt_variables.language', message: 'must be one of "English", "French" (got string "German")' },
        ]),
        truncated: false,
        reason: 'variables_invalid',
      },
    });
    expect(errorsOf(answer)).toHaveLength(3);
    // No values at all: the required one is missing.
    expect(errorsOf(await resolve(format, asking(format)))).toEqual([{ path: '$.prompt_variables.company', message: 'is required' }]);
  });

  it('refuses a name a closed schema forbids', async () => {
    await version('closed', { ...SUPPORT, variables: { ...SUPPORT.variables, additionalProperties: false } });
    const answer = await resolve('chat_completions', {
      model: '@preset/closed',
      messages: [],
      prompt_variables: { company: 'A', extra: 1 },
    });
    expect(errorsOf(answer)).toEqual([{ path: '$.prompt_variables.extra', message: 'is not a variable of this version' }]);
  });

  it('a responses body names the preset and gives the values in OpenAI’s prompt object', async () => {
    await version('support', { ...SUPPORT, system_prompt: 'v2 for {{company}}', messages: [] });
    await svc.request('/api/v1/presets/support/labels/stable', { method: 'PUT', json: { version: 1 } });
    const base = { input: 'Hi', model: 'openai/gpt-4o-mini' };
    const latest = await resolved('responses', { ...base, prompt: { id: 'support', variables: { company: 'Acme' } } });
    expect(latest).toMatchObject({
      request: { instructions: 'v2 for Acme', model: 'openai/gpt-4o-mini', input: 'Hi' },
      preset: { version: 2, label: null },
    });
    expect(latest.request).not.toHaveProperty('prompt');
    const byLabel = await resolved('responses', {
      ...base,
      prompt: { id: '@preset/support', version: 'stable', variables: { company: { type: 'input_text', text: 'Zed' } } },
    });
    expect(byLabel).toMatchObject({
      preset: { version: 1, label: 'stable' },
      request: { instructions: 'You support customers of Zed. Answer in English.' },
    });
    expect(
      (await resolved('responses', { ...base, prompt: { id: 'support', version: '1', variables: { company: 'A' } } })).preset.version,
    ).toBe(1);
    expect((await resolved('responses', { ...base, prompt: { id: 'support@1', variables: { company: 'A' } } })).preset.version).toBe(1);
    expect(
      (await resolved('responses', { ...base, prompt: { id: 'support', version: 'latest', variables: { company: 'A' } } })).preset.label,
    ).toBe('latest');

    const refusals: Array<[Json, string, RegExp]> = [
      [{ ...base, prompt: { id: 'support', variables: { language: 'French' } } }, '$.prompt.variables.company', /is required/],
      [
        { ...base, prompt: { id: 'support', variables: { company: { type: 'input_image', image_url: 'https://x/y.png' } } } },
        '$.prompt.variables.company',
        /image and file inputs are not supported/,
      ],
      [
        { ...base, prompt: { id: 'support', variables: { company: { type: 'input_file', file_id: 'f' } } } },
        '$.prompt.variables.company',
        /not supported/,
      ],
      [{ input: 'Hi', model: '@preset/support', prompt: { id: 'support' } }, '$.prompt', /named twice, in model and in prompt/],
      [{ input: 'Hi', preset: 'support', prompt: { id: 'support' } }, '$.prompt', /named twice, in preset and in prompt/],
      [{ ...base, prompt: { id: 'support@1', version: '2' } }, '$.prompt.version', /version is named twice/],
      [{ ...base, prompt: { id: 'support', version: 'Not A Label!' } }, '$.prompt.version', /neither a version number/],
      [{ ...base, prompt: { id: 'not a slug' } }, '$.prompt.id', /not a preset slug/],
      [
        { ...base, prompt: { id: 'support', variables: { company: 'A' } }, prompt_variables: { company: 'B' } },
        '$.prompt.variables',
        /prompt_variables too/,
      ],
    ];
    for (const [body, path, message] of refusals) {
      const answer = await resolve('responses', body);
      expect({ body, status: answer.status, errors: errorsOf(answer) }).toEqual({
        body,
        status: 400,
        errors: [{ path, message: expect.stringMatching(message) }],
      });
    }
    expect((await resolve('responses', { ...base, prompt: { id: 'missing' } })).status).toBe(404);
  });

  it('resolves templated versions by label, pin, split label and as_of like any other', async () => {
    await version('history', { ...SUPPORT, system_prompt: 'one {{company}}', messages: [] });
    const between = new Date().toISOString();
    await new Promise((r) => setTimeout(r, 5));
    await version('history', { ...SUPPORT, system_prompt: 'two {{company}}', messages: [] });
    await svc.request('/api/v1/presets/history/labels/canary', {
      method: 'PUT',
      json: {
        split: [
          { version: 1, weight: 1 },
          { version: 2, weight: 1 },
        ],
      },
    });
    const ask = (model: string, extra: Json = {}) =>
      resolved('chat_completions', { model, messages: [], prompt_variables: { company: 'Acme' }, ...extra });
    expect((await ask('@preset/history@1')).request.messages).toEqual([{ role: 'system', content: 'one Acme' }]);
    expect((await ask('@preset/history')).request.messages).toEqual([{ role: 'system', content: 'two Acme' }]);
    expect((await ask('@preset/history', { as_of: between })).request.messages).toEqual([{ role: 'system', content: 'one Acme' }]);
    const split = await ask('@preset/history@canary', { user: 'customer-1' });
    expect(split.served).toEqual({ version: split.preset.version, label: 'canary', split_key_source: 'user' });
    expect((split.request.messages as Json[])[0]!.content).toBe(split.preset.version === 1 ? 'one Acme' : 'two Acme');
  });
});

describe('hostile templates and values', () => {
  it('refuses at the write what could reach outside the values or run away, quickly and without storing it', async () => {
    const before = await eventCount();
    const deep = `${'{{#if a}}'.repeat(5000)}x${'{{/if}}'.repeat(5000)}`;
    const cases: Array<[string, RegExp]> = [
      [deep, /nests blocks more than 32 deep/],
      ['{{constructor.constructor "return process.env"}}', /not a helper here/],
      [
        '{{#with "s" as |string|}}{{#with split as |conslist|}}{{this.push (lookup string.sub "constructor")}}{{/with}}{{/with}}',
        /not a helper here/,
      ],
      ['{{> layout}}', /partials/],
      ['{{#*inline "x"}}{{> x}}{{/inline}}{{> x}}', /decorators/],
      ['{{log "hi"}}', /not a helper here/],
    ];
    for (const [template, message] of cases) {
      const answer = await version('hostile', {
        ...SUPPORT,
        system_prompt: template,
        variables: { type: 'object', properties: { a: {}, split: {} } },
      });
      expect({ template: template.slice(0, 60), status: answer.status, errors: errorsOf(answer) }).toEqual({
        template: template.slice(0, 60),
        status: 400,
        errors: expect.arrayContaining([{ path: '$.system_prompt', message: expect.stringMatching(message) }]),
      });
    }
    expect(await eventCount()).toBe(before);
  });

  it('renders nothing of JavaScript’s own for prototype names, and keeps Object.prototype clean', async () => {
    await version('prototypes', {
      ...SUPPORT,
      system_prompt:
        '[{{constructor}}][{{#with this.constructor}}{{name}}{{/with}}][{{toString}}][{{lookup this "hasOwnProperty"}}][{{constructor.name}}]',
      messages: [],
      variables: { type: 'object', properties: { constructor: {}, toString: {} } },
    });
    const empty = await resolved('chat_completions', { model: '@preset/prototypes', messages: [] });
    expect((empty.request.messages as Json[])[0]).toEqual({ role: 'system', content: '[][][][][]' });
    // A value named constructor is the caller's own value.
    const own = await resolved('chat_completions', {
      model: '@preset/prototypes',
      messages: [],
      prompt_variables: { constructor: { name: 'N' } },
    });
    expect((own.request.messages as Json[])[0]).toEqual({ role: 'system', content: '[[object Object]][N][][][N]' });
    // No schema sent as JSON can declare "__proto__" (such keys are refused), so a template reading it is refused at the write.
    const proto = await version('prototypes', {
      ...SUPPORT,
      system_prompt: '{{__proto__}}',
      messages: [],
      variables: { type: 'object', properties: {} },
    });
    expect(errorsOf(proto)).toEqual([{ path: '$.system_prompt', message: expect.stringMatching(/reads "__proto__"/) }]);
    // A __proto__ key in a body is refused before anything reads it.
    const res = await svc.request('/api/v1/resolve/chat/completions', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"model":"@preset/prototypes","messages":[],"prompt_variables":{"__proto__":{"polluted":1}}}',
    });
    expect(res.status).toBe(400);
    expect(({} as Json).polluted).toBeUndefined();
  });

  it('answers a loop that runs away over large values, and an output over 1 MiB, with a 400, and keeps serving', async () => {
    await version('loops', {
      ...SUPPORT,
      system_prompt: '{{#each a}}{{#each ../a}}{{#each ../../a}}{{#each ../../../a}}.{{/each}}{{/each}}{{/each}}{{/each}}',
      messages: [user('{{#each a}}{{../text}}{{/each}}')],
      variables: { type: 'object', properties: { a: { type: 'array' }, text: { type: 'string' } } },
    });
    const a = Array.from({ length: 100 }, (_, i) => i);
    const runaway = await resolve('chat_completions', { model: '@preset/loops', messages: [], prompt_variables: { a } });
    expect(runaway.body.error).toEqual({
      code: 400,
      message: expect.stringMatching(
        /^version 1 of preset "loops" could not be rendered: rendering ran more than 1,000,000 template steps/,
      ),
      metadata: { errors: [{ path: '$.prompt_variables', message: expect.any(String) }], truncated: false, reason: 'template_runaway' },
    });
    const large = await resolve('chat_completions', {
      model: '@preset/loops',
      messages: [],
      prompt_variables: { a: a.slice(0, 3), text: 'x'.repeat(400_000) },
    });
    expect(large.body.error.metadata).toMatchObject({ reason: 'template_output_too_large' });
    const fine = await resolved('chat_completions', { model: '@preset/loops', messages: [], prompt_variables: { a: [1, 2], text: 'ok' } });
    expect((fine.request.messages as Json[])[1]).toEqual(user('okok'));
  });

  it('runs patterns in linear time: a pattern that backtracks exponentially answers at once', async () => {
    await version('patterned', {
      ...SUPPORT,
      system_prompt: '{{code}}',
      messages: [],
      variables: { type: 'object', properties: { code: { type: 'string', pattern: '^(a|a)*$' } } },
    });
    const answer = await resolve('chat_completions', {
      model: '@preset/patterned',
      messages: [],
      prompt_variables: { code: `${'a'.repeat(60)}!` },
    });
    expect(errorsOf(answer)).toEqual([{ path: '$.prompt_variables.code', message: 'must match pattern "^(a|a)*$"' }]);
    const refused = await version('patterned', {
      ...SUPPORT,
      system_prompt: '{{code}}',
      messages: [],
      variables: { type: 'object', properties: { code: { type: 'string', pattern: '^(?=a)a+$' } } },
    });
    expect(errorsOf(refused)).toEqual([
      { path: '$.variables.properties.code.pattern', message: expect.stringMatching(/cannot run in linear time/) },
    ]);
  });
});
