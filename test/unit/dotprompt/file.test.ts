import fc from 'fast-check';
import * as E from 'fp-ts/Either';
import { Dotprompt, picoschema } from 'dotprompt';
import { parse } from 'yaml';
import { parseDotprompt, sameJson, toDotprompt, type VersionParts } from '#src/dotprompt/file';
import { renderVersion } from '#src/templates/render';

/**
 * A version as a Dotprompt file and back (src/dotprompt/file.ts), as pure functions: every version
 * reads back as itself; the `dotprompt` package reads the file's schema and renders its template
 * to the version's texts; a file written by hand reads as Dotprompt means it; a bad file names
 * its field or line.
 */
const dotprompt = new Dotprompt();

const version = (parts: Partial<VersionParts> = {}): VersionParts => ({
  version: 3,
  config: { model: 'openai/gpt-4o', temperature: 0.3 },
  system_prompt: 'You support customers of {{company}}.',
  template_format: 'handlebars',
  variables: { type: 'object', properties: { company: { type: 'string' } }, required: ['company'] },
  messages: [],
  source_format: 'chat_completions',
  ...parts,
});

const read = async (text: string) => {
  const parsed = await parseDotprompt(text);
  if (E.isLeft(parsed)) throw new Error(`expected a version, got ${JSON.stringify(parsed.left)}`);
  return parsed.right;
};
const problems = async (text: string) => {
  const parsed = await parseDotprompt(text);
  if (E.isRight(parsed)) throw new Error(`expected problems, got ${JSON.stringify(parsed.right)}`);
  return parsed.left;
};
const frontOf = (text: string) => parse(text.split(/^---$/m)[1]!) as Record<string, unknown>;

const text = fc.string({ unit: fc.constantFrom('a', 'b', ' ', '\n', '\t', '{', '}', '\\', '"', '-', '~', 'é', '\r'), maxLength: 30 });
const json = fc.jsonValue({ maxDepth: 2 });
const configs = fc.record(
  {
    model: fc.constantFrom('openai/gpt-4o', 'anthropic/claude-sonnet-4', '123'),
    temperature: fc.double({ min: 0, max: 2, noNaN: true }),
    stop: fc.array(fc.string(), { maxLength: 2 }),
    tools: fc.array(fc.record({ type: fc.constant('function'), function: fc.record({ name: fc.string({ minLength: 1 }) }) }), {
      maxLength: 2,
    }),
    provider: fc.dictionary(fc.string({ minLength: 1 }), json, { maxKeys: 2 }),
    response_format: fc.oneof(
      fc.record({
        type: fc.constant('json_schema'),
        json_schema: fc.record({ name: fc.string({ minLength: 1 }), schema: fc.constant({ type: 'object' }), strict: fc.boolean() }),
      }),
      fc.constant({ type: 'json_object' }),
    ),
    logit_bias: fc.dictionary(fc.string({ minLength: 1 }), fc.integer({ min: -100, max: 100 }), { maxKeys: 2 }),
  },
  { requiredKeys: [] },
);
const variables = fc.oneof(
  fc.constant(null),
  fc.record({
    type: fc.constant('object'),
    properties: fc.dictionary(
      fc.stringMatching(/^[a-z_]{1,6}$/),
      fc.oneof(
        fc.record({ type: fc.constantFrom('string', 'integer', 'boolean'), description: fc.string() }, { requiredKeys: ['type'] }),
        fc.record({ type: fc.constant('string'), default: fc.string() }),
        fc.record({ enum: fc.uniqueArray(fc.constantFrom('a', 'b', 'c'), { minLength: 1 }) }),
      ),
      { maxKeys: 3 },
    ),
    additionalProperties: fc.constant(false),
  }),
);
const versions = fc
  .record({
    version: fc.integer({ min: 1, max: 1000 }),
    config: configs,
    system_prompt: text,
    template_format: fc.constantFrom('none' as const, 'handlebars' as const),
    variables,
    messages: fc.array(fc.record({ role: fc.constantFrom('user' as const, 'assistant' as const), content: text }), { maxLength: 3 }),
    source_format: fc.constantFrom('chat_completions' as const, 'messages' as const, 'responses' as const),
  })
  // What a version can hold: a body with a __proto__ key is refused (src/http/middleware/jsonBody.ts), and so is a file.
  .filter((v) => !JSON.stringify(v).includes('"__proto__"'));

describe('a version as a Dotprompt file', () => {
  it('reads back as the same version, whatever its texts, config and variables', async () => {
    await fc.assert(
      fc.asyncProperty(versions, async (v) => {
        const back = await read(await toDotprompt('support-bot', v));
        expect(back.slug).toBe('support-bot');
        expect(back.body.format).toBe(v.source_format);
        expect(back.body.template_format).toBe(v.template_format);
        expect({ system: back.body.system_prompt, messages: back.body.messages }).toEqual({
          system: v.system_prompt,
          messages: v.messages,
        });
        expect(sameJson(back.body.config, v.config)).toBe(true);
        expect(sameJson(back.body.variables ?? null, v.variables)).toBe(true);
      }),
      { numRuns: 300 },
    );
  });

  it('renders with the dotprompt package to the texts of the version, a literal version as it is', async () => {
    const plain = fc.stringMatching(/^[a-z{}.,!]([a-z {}.,!\n]{0,20}[a-z{}.,!])?$/);
    await fc.assert(
      fc.asyncProperty(
        plain,
        fc.array(fc.record({ role: fc.constantFrom('user' as const, 'assistant' as const), content: plain }), { maxLength: 3 }),
        async (system, messages) => {
          const file = await toDotprompt('p', version({ system_prompt: system, messages, template_format: 'none', variables: null }));
          const rendered = await dotprompt.render(file, { input: {} });
          expect(rendered.messages.map((m) => ({ role: m.role, text: m.content.map((part) => part.text).join('') }))).toEqual([
            { role: 'system', text: system },
            ...messages.map((m) => ({ role: m.role === 'assistant' ? 'model' : 'user', text: m.content })),
          ]);
        },
      ),
      { numRuns: 200 },
    );
  });

  it('renders a templated version with the dotprompt package to the texts the service renders', async () => {
    // Templates of text, values, conditions and loops, starting and ending with a letter (Dotprompt trims a file's end).
    const word = fc.stringMatching(/^[a-z][a-z ,.\n]{0,8}[a-z]$/);
    const piece = fc.oneof(
      word,
      fc.constant('{{name}}'),
      fc.constant('{{#if vip}} (VIP){{/if}}'),
      fc.constant('{{#each tags}}[{{this}}]{{/each}}'),
    );
    const template = fc.tuple(word, fc.array(piece, { maxLength: 4 }), word).map(([a, middle, b]) => [a, ...middle, b].join(''));
    const input = fc.record({
      name: fc.string({ maxLength: 6 }),
      vip: fc.boolean(),
      tags: fc.array(fc.stringMatching(/^[a-z]{0,3}$/), { maxLength: 3 }),
    });
    let n = 0;
    await fc.assert(
      fc.asyncProperty(
        template,
        fc.array(fc.record({ role: fc.constantFrom('user' as const, 'assistant' as const), content: template }), { maxLength: 2 }),
        input,
        async (system, messages, values) => {
          const variables = { type: 'object', properties: { name: { type: 'string' }, vip: { type: 'boolean' }, tags: { type: 'array' } } };
          const v = version({ system_prompt: system, messages, variables });
          const ours = renderVersion({ id: `render-${++n}`, ...v }, values, '$.prompt_variables');
          if (E.isLeft(ours)) throw new Error(JSON.stringify(ours.left));
          const file = await toDotprompt('p', v);
          const theirs = await dotprompt.render(file, { input: values });
          expect(theirs.messages.map((m) => [m.role, m.content.map((part) => part.text).join('')])).toEqual([
            ['system', ours.right.system],
            ...ours.right.messages.map((m) => [m.role === 'assistant' ? 'model' : 'user', m.content]),
          ]);
        },
      ),
      { numRuns: 200 },
    );
  });

  it('fills the template with the defaults the file gives, as the service does', async () => {
    const file = await toDotprompt(
      'p',
      version({
        system_prompt: 'Answer in {{language}}.',
        messages: [{ role: 'user', content: 'I am {{name}}.' }],
        variables: {
          type: 'object',
          properties: { language: { type: 'string', default: 'English' }, name: { type: 'string' } },
          required: ['name'],
        },
      }),
    );
    expect(frontOf(file).input).toEqual({
      schema: {
        type: 'object',
        properties: { language: { type: 'string', default: 'English' }, name: { type: 'string' } },
        required: ['name'],
      },
      default: { language: 'English' },
    });
    // The package's render takes the defaults as an option, not from the file it renders.
    const rendered = await dotprompt.render(file, { input: { name: 'Ada' } }, { input: dotprompt.parse(file).input });
    expect(rendered.messages).toEqual([
      { role: 'system', content: [{ text: 'Answer in English.' }] },
      { role: 'user', content: [{ text: 'I am Ada.' }] },
    ]);
  });

  it('writes variables in Picoschema when Picoschema says exactly them, and the dotprompt package reads them back', async () => {
    const pico = {
      name: 'string, the customer’s name',
      'tier?(enum, their plan)': ['free', 'pro'],
      'tags(array)': 'string',
      'address(object)': { city: 'string' },
    };
    const variables = (await picoschema(pico)) as Record<string, unknown>;
    const file = await toDotprompt('p', version({ system_prompt: 'Hi {{name}}', variables: JSON.parse(JSON.stringify(variables)) }));
    const input = frontOf(file).input as { schema: unknown };
    expect(input.schema).toEqual(pico);
    expect(sameJson((await dotprompt.renderMetadata(file)).input?.schema, variables)).toBe(true);
  });

  it('writes a JSON Schema that Picoschema cannot say as it is', async () => {
    const variables = { type: 'object', properties: { id: { type: 'string', pattern: '^AC-\\d{6}$' } }, required: ['id'] };
    const file = await toDotprompt('p', version({ system_prompt: '{{id}}', variables }));
    expect((frontOf(file).input as { schema: unknown }).schema).toEqual(variables);
  });

  it('puts model at the top, tools and provider under metadata.presets, a JSON-schema response format in output', async () => {
    const file = await toDotprompt(
      'support-bot',
      version({
        config: {
          model: 'openai/gpt-4o',
          temperature: 0.2,
          tools: [{ type: 'function', function: { name: 'lookup' } }],
          provider: { order: ['openai'] },
          response_format: {
            type: 'json_schema',
            json_schema: { name: 'answer', strict: true, schema: { type: 'object', properties: { ok: { type: 'boolean' } } } },
          },
        },
      }),
    );
    expect(frontOf(file)).toEqual({
      model: 'openai/gpt-4o',
      config: { temperature: 0.2 },
      input: { schema: { type: 'object', properties: { company: { type: 'string' } }, required: ['company'] } },
      output: { format: 'json', schema: { type: 'object', properties: { ok: { type: 'boolean' } } } },
      metadata: {
        presets: {
          slug: 'support-bot',
          version: 3,
          source_format: 'chat_completions',
          template_format: 'handlebars',
          tools: [{ type: 'function', function: { name: 'lookup' } }],
          provider: { order: ['openai'] },
          json_schema: { name: 'answer', strict: true },
        },
      },
    });
    expect(file.endsWith('---\n{{role "system"~}}\nYou support customers of {{company}}.\n')).toBe(true);
  });
});

describe('a Dotprompt file written by hand', () => {
  it('reads its config, Picoschema input and roles', async () => {
    const v = await read(
      [
        '---',
        'model: googleai/gemini-2.5-flash',
        'config:',
        '  temperature: 0.5',
        'input:',
        '  schema:',
        '    topic: string',
        '    level?: string, how deep',
        '  default:',
        '    level: beginner',
        '---',
        '{{role "system"}}',
        'You teach {{topic}}.',
        '{{role "user"}}',
        'Explain it at {{level}} level.',
        '',
      ].join('\n'),
    );
    expect(v.slug).toBeUndefined();
    expect(v.body).toEqual({
      format: 'chat_completions',
      config: { model: 'googleai/gemini-2.5-flash', temperature: 0.5 },
      system_prompt: '\nYou teach {{topic}}.\n',
      template_format: 'handlebars',
      messages: [{ role: 'user', content: '\nExplain it at {{level}} level.' }],
      variables: {
        type: 'object',
        properties: { topic: { type: 'string' }, level: { type: ['string', 'null'], description: 'how deep', default: 'beginner' } },
        required: ['topic'],
        additionalProperties: false,
      },
    });
  });

  it('reads a file with no front matter and no marker as one user message, as Dotprompt does', async () => {
    const v = await read('Summarize {{text}}.\n');
    expect(v.body).toMatchObject({ system_prompt: '', messages: [{ role: 'user', content: 'Summarize {{text}}.' }] });
    expect(v.body.variables).toBeUndefined();
  });

  it('names the line of a YAML error, of a bad field, of a bad role', async () => {
    expect(await problems('---\nmodel: [a\nconfig: {}\n---\nHi\n')).toEqual([
      expect.objectContaining({ path: 'front matter', message: expect.stringMatching(/^line \d: /) }),
    ]);
    expect(await problems('---\nmodel: x\nconfig: 3\n---\nHi\n')).toEqual([{ path: 'config', message: 'line 3: must be a mapping' }]);
    expect(await problems('---\nmodel: x\nmetadata:\n  presets:\n    source_format: chat\n---\nHi\n')).toEqual([
      { path: 'metadata.presets.source_format', message: 'line 5: must be one of chat_completions, messages, responses' },
    ]);
    expect(await problems('---\nmodel: x\n---\n{{role "system"}}\nHi\n{{role "tool"}}\nx\n')).toEqual([
      { path: 'template', message: 'line 6: {{role "tool"}}: the roles are system, user and model' },
    ]);
    expect(await problems('---\nmodel: x\ntools: [a]\n---\nHi\n')).toEqual([
      { path: 'tools', message: expect.stringMatching(/^line 3: is not a field this service reads/) },
    ]);
    expect(await problems('---\nmodel: x\n---\n{{role "user"}}\nHi\n{{role "system"}}\nx\n')).toEqual([
      { path: 'template', message: expect.stringMatching(/^line 5: a \{\{role "system"\}\} comes first/) },
    ]);
    expect(await problems('---\nmodel: x\nfoo\n')).toEqual([
      { path: 'front matter', message: 'line 1: the front matter that starts here is not closed by a line "---"' },
    ]);
    expect(await problems('---\nconfig:\n  temperature: .inf\n---\nHi\n')).toEqual([
      { path: 'front matter', message: 'holds a number JSON cannot (.inf or .nan)' },
    ]);
    expect(await problems(`---\nconfig:\n  deep: ${'['.repeat(200)}${']'.repeat(200)}\n---\nHi\n`)).toEqual([
      { path: 'front matter', message: 'is nested deeper than 128 levels' },
    ]);
    expect(await problems('---\nconfig:\n  __proto__: {polluted: true}\n---\nHi\n')).toEqual([
      { path: 'front matter', message: 'holds a forbidden key (__proto__)' },
    ]);
    expect(await problems('---\ninput:\n  schema:\n    a: string\n  default:\n    b: 1\n---\n{{a}}\n')).toEqual([
      { path: 'input.default.b', message: 'line 6: is not a variable input.schema declares' },
    ]);
  });
});
