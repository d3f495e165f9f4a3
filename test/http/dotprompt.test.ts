import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Dotprompt } from 'dotprompt';
import { parse } from 'yaml';
import { useApiSpecification } from '../support/apiSpecification';
import { supportBot } from '../support/supportBot';
import { KEYS } from '../support/service';

/**
 * Dotprompt in and out over HTTP (docs/prompts-as-code.md): a version as a file, a file as a
 * version through the same checks as `POST …/versions`, push idempotent (an untouched export makes
 * no version), every example of the docs page rendered by Google's `dotprompt` package to the
 * messages the service's resolve sends, and each bad file a 400 naming its field or line. Every
 * answer is checked against the OpenAPI document by the request helper.
 */
const svc = useApiSpecification();
const dotprompt = new Dotprompt();

type Json = Record<string, unknown>;
const FILE = 'text/x-dotprompt';

const exportOf = async (slug: string, query = '', key: string = KEYS.writer) => {
  const res = await svc.request(`/api/v1/presets/${slug}/dotprompt${query}`, { key });
  return { status: res.status, type: res.headers.get('content-type'), etag: res.headers.get('etag'), text: await res.text() };
};
const fileOf = async (slug: string, query = '') => {
  const answer = await exportOf(slug, query);
  if (answer.status !== 200) throw new Error(`GET ${slug}/dotprompt${query}: ${answer.status} ${answer.text}`);
  return answer.text;
};
const push = async (
  slug: string,
  text: string,
  { query = '', headers = {} as Record<string, string>, key = KEYS.writer as string } = {},
) => {
  const res = await svc.request(`/api/v1/presets/${slug}/dotprompt${query}`, {
    method: 'POST',
    key,
    headers: { 'content-type': FILE, ...headers },
    body: text,
  });
  return {
    status: res.status,
    body: (await res.json()) as Json & { data: Json; unchanged?: boolean; error: { message: string; metadata: Json } },
  };
};
const version = async (slug: string, body: Json) => {
  const res = await svc.request(`/api/v1/presets/${slug}/versions`, { method: 'POST', json: body });
  if (res.status !== 200) throw new Error(`POST ${slug}/versions: ${res.status} ${await res.text()}`);
};
const eventCount = async () => ((await (await svc.request('/api/v1/events?limit=1000')).json()).data as unknown[]).length;
const versionsOf = async (slug: string) =>
  (await (await svc.request(`/api/v1/presets/${slug}/versions`)).json()) as { data: Json[]; total_count: number };

const SUPPORT = (() => {
  const bot = supportBot();
  bot.config.tools = [{ type: 'function', function: { name: 'lookup' } }];
  return bot;
})();

describe('GET /api/v1/presets/{slug}/dotprompt', () => {
  beforeAll(async () => {
    await version('support', SUPPORT);
    await version('support', { ...SUPPORT, config: { model: 'openai/gpt-4o', temperature: 0.5 } });
    const res = await svc.request('/api/v1/presets/support/labels/stable', { method: 'PUT', json: { version: 1 } });
    expect(res.status).toBe(200);
  });

  it('answers the designated version as a Dotprompt file the dotprompt package reads', async () => {
    const answer = await exportOf('support');
    expect(answer.status).toBe(200);
    expect(answer.type).toBe('text/x-dotprompt; charset=utf-8');
    const parsed = dotprompt.parse(answer.text);
    expect(parsed.model).toBe('openai/gpt-4o');
    expect(parsed.config).toEqual({ temperature: 0.5 });
    expect(parsed.input?.default).toEqual({ language: 'English' });
    expect((parsed.raw as Json).metadata).toEqual({
      presets: { slug: 'support', version: 2, source_format: 'chat_completions', template_format: 'handlebars' },
    });
    const rendered = await dotprompt.render(answer.text, { input: { company: 'Acme' } }, { input: parsed.input });
    expect(rendered.messages.map((m) => [m.role, m.content.map((p) => p.text).join('')])).toEqual([
      ['system', 'You support customers of Acme. Answer in English.'],
      ['user', 'Example question about Acme'],
      ['model', 'Example answer'],
    ]);
  });

  it('answers another version by ?version= or ?label=, with the version id as its ETag', async () => {
    const byLabel = await exportOf('support', '?label=stable');
    const byNumber = await exportOf('support', '?version=1');
    expect(byLabel.text).toBe(byNumber.text);
    const v1 = (await (await svc.request('/api/v1/presets/support/versions/1')).json()) as { data: { id: string } };
    expect(byNumber.etag).toBe(`"${v1.data.id}"`);
    const metadata = (parse(byLabel.text.split(/^---$/m)[1]!) as { metadata: { presets: Json } }).metadata.presets;
    expect(metadata).toEqual({
      slug: 'support',
      version: 1,
      source_format: 'chat_completions',
      template_format: 'handlebars',
      tools: [{ type: 'function', function: { name: 'lookup' } }],
    });
    const again = await svc.request('/api/v1/presets/support/dotprompt?version=1', { headers: { 'if-none-match': byNumber.etag! } });
    expect(again.status).toBe(304);
  });

  it('is a 404 for no such preset, version or label; a 400 for a bad query; a 409 for a split label', async () => {
    expect((await exportOf('nothing-here')).status).toBe(404);
    expect((await exportOf('support', '?version=9')).status).toBe(404);
    expect((await exportOf('support', '?label=nope')).status).toBe(404);
    const both = await exportOf('support', '?version=1&label=stable');
    expect(both.status).toBe(400);
    expect(JSON.parse(both.text).error.metadata.errors).toEqual([{ path: 'label', message: 'give a version or a label, not both' }]);
    expect((await exportOf('support', '?version=x')).status).toBe(400);
    const split = await svc.request('/api/v1/presets/support/labels/canary', {
      method: 'PUT',
      json: {
        split: [
          { version: 1, weight: 1 },
          { version: 2, weight: 1 },
        ],
      },
    });
    expect(split.status).toBe(200);
    const answer = await exportOf('support', '?label=canary');
    expect(answer.status).toBe(409);
    expect(JSON.parse(answer.text).error.metadata.reason).toBe('label_split');
  });

  it('needs presets:read, and answers in the key’s workspace only', async () => {
    expect((await exportOf('support', '', KEYS.writerOnly)).status).toBe(403);
    expect((await exportOf('support', '', KEYS.otherWorkspace)).status).toBe(404);
  });
});

describe('POST /api/v1/presets/{slug}/dotprompt', () => {
  beforeAll(async () => version('bot', SUPPORT));

  it('makes no version from an untouched export, and says so', async () => {
    const file = await fileOf('bot');
    const before = await eventCount();
    const answer = await push('bot', file);
    expect(answer.status).toBe(200);
    expect(answer.body.unchanged).toBe(true);
    expect(answer.body.data.designated_version).toMatchObject({ version: 1 });
    const preview = await push('bot', file, { query: '?dry_run=true' });
    expect(preview.body.unchanged).toBe(true);
    expect(preview.body.data).toMatchObject({
      system_prompt: SUPPORT.system_prompt,
      variables: SUPPORT.variables,
      source_format: 'chat_completions',
    });
    // A stale If-Match is a 412 even when there is nothing to write.
    expect((await push('bot', file, { headers: { 'if-match': '"99"' } })).status).toBe(412);
    expect(await eventCount()).toBe(before);
  });

  it('makes a version from an edited file, with the Preset-Note, If-Match honoured; the export of it pushes back unchanged', async () => {
    const file = (await fileOf('bot')).replace('temperature: 0.3', 'temperature: 0.7').replace('Example answer', 'A better answer');
    const preview = await push('bot', file, { query: '?dry_run=true' });
    expect(preview.status).toBe(200);
    expect(preview.body.unchanged).toBe(false);
    expect(preview.body.data.config).toEqual({ model: 'openai/gpt-4o', temperature: 0.7, tools: SUPPORT.config.tools });
    expect((await versionsOf('bot')).total_count).toBe(1);

    const stale = await push('bot', file, { headers: { 'if-match': '"99"' } });
    expect(stale.status).toBe(412);
    const etag = (await svc.request('/api/v1/presets/bot')).headers.get('etag')!;
    const written = await push('bot', file, { headers: { 'if-match': etag, 'preset-note': encodeURIComponent('Warmer — by review') } });
    expect(written.status).toBe(200);
    expect(written.body.unchanged).toBe(false);
    expect(written.body.data.designated_version).toMatchObject({
      version: 2,
      config: { model: 'openai/gpt-4o', temperature: 0.7, tools: SUPPORT.config.tools },
      messages: [SUPPORT.messages[0], { role: 'assistant', content: 'A better answer' }],
      variables: SUPPORT.variables,
      note: 'Warmer — by review',
    });
    expect((await push('bot', await fileOf('bot'))).body.unchanged).toBe(true);
    expect((await versionsOf('bot')).total_count).toBe(2);
  });

  it('creates a preset from a file written by hand, its variables inferred when it declares none', async () => {
    const answer = await push(
      'hand-written',
      '---\nmodel: openai/gpt-4o-mini\n---\n{{role "system"}}Translate into {{language}}.{{role "user"}}{{text}}\n',
    );
    expect(answer.status).toBe(200);
    expect(answer.body.data.designated_version).toMatchObject({
      version: 1,
      system_prompt: 'Translate into {{language}}.',
      messages: [{ role: 'user', content: '{{text}}' }],
      template_format: 'handlebars',
      variables: { type: 'object', properties: { language: { type: 'string' }, text: { type: 'string' } }, required: ['language', 'text'] },
    });
  });

  it('answers a bad file with a 400 that names the field or the line, and stores nothing', async () => {
    const before = await eventCount();
    const refused = async (text: string) => {
      const answer = await push('refused', text);
      expect(answer.status).toBe(400);
      return answer.body.error.metadata.errors;
    };
    expect(await refused('---\nmodel: openai/gpt-4o\nconfig: {temperature: [\n---\nHi\n')).toEqual([
      { path: 'front matter', message: expect.stringMatching(/^line \d: /) },
    ]);
    expect(await refused('---\nmodel: openai/gpt-4o\nconfig:\n  max_output_tokens: 5\n---\nHi\n')).toEqual([
      { path: 'config.max_output_tokens', message: expect.stringContaining('chat_completions') },
    ]);
    expect(await refused('---\nmodel: openai/gpt-4o\nconfig:\n  temperature: hot\n---\nHi\n')).toEqual([
      expect.objectContaining({ path: expect.stringMatching(/^config\.temperature/) }),
    ]);
    expect(await refused('---\nmodel: openai/gpt-4o\n---\n{{role "system"~}}\nHello\n{{~role "user"~}}\nFine {{#if x}}\n')).toEqual([
      { path: 'template (message 1)', message: expect.stringContaining('line 7:') },
    ]);
    expect(await refused('---\nmetadata:\n  presets:\n    slug: someone-else\n---\nHi\n')).toEqual([
      { path: 'metadata.presets.slug', message: expect.stringContaining('someone-else') },
    ]);
    expect(
      await refused('---\ninput:\n  schema:\n    type: object\n    properties: {a: {type: string, frobnicate: 1}}\n---\n{{a}}\n'),
    ).toEqual([expect.objectContaining({ path: expect.stringMatching(/^input\.schema/) })]);
    expect(await eventCount()).toBe(before);
  });

  it('takes a file, not JSON (415), and needs presets:write (403)', async () => {
    const json = await svc.request('/api/v1/presets/bot/dotprompt', { method: 'POST', json: { model: 'x' } });
    expect(json.status).toBe(415);
    expect((await push('bot', 'Hi\n', { key: KEYS.readerOnly })).status).toBe(403);
  });
});

describe('every example of docs/prompts-as-code.md', () => {
  const page = readFileSync(join(__dirname, '..', '..', 'docs', 'prompts-as-code.md'), 'utf8');
  // Each `dotprompt` block, and the resolve body in the `sh` block after it.
  const examples = [...page.matchAll(/```dotprompt\n([\s\S]*?)```[\s\S]*?```sh\n[\s\S]*?-d '(\{[\s\S]*?\})'\n```/g)].map(
    ([, file, body]) => ({
      file: file!,
      body: JSON.parse(body!) as { model: string; messages: Json[]; prompt_variables: Json },
    }),
  );

  it('has examples', () => expect(examples.length).toBeGreaterThanOrEqual(3));

  it('posts each one, and its export renders with the dotprompt package to the messages the resolve sends', async () => {
    for (const { file, body } of examples) {
      const slug = body.model.replace('@preset/', '');
      const created = await push(slug, file);
      expect({ slug, status: created.status, body: created.body }).toMatchObject({ slug, status: 200 });
      const exported = await fileOf(slug);
      expect((await push(slug, exported)).body.unchanged).toBe(true);

      const resolved = await svc.request('/api/v1/resolve/chat/completions', { method: 'POST', json: body });
      expect(resolved.status).toBe(200);
      const sent = ((await resolved.json()) as { data: { request: { messages: { role: string; content: string }[] } } }).data.request
        .messages;
      // The version's messages: all but the request's own conversation, which comes last.
      const ours = sent.slice(0, sent.length - body.messages.length).map((m) => [m.role, m.content]);
      const rendered = await dotprompt.render(exported, { input: body.prompt_variables }, { input: dotprompt.parse(exported).input });
      const theirs = rendered.messages.map((m) => [m.role === 'model' ? 'assistant' : m.role, m.content.map((p) => p.text).join('')]);
      expect({ slug, messages: theirs }).toEqual({ slug, messages: ours });
    }
  });
});
