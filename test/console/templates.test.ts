import type { Page } from 'playwright-core';
import { keepLastPicture, launchBrowser, type TestBrowser } from '../support/browser';
import { apiPreset, faults, openPreset, postVersion, signedIn } from '../support/consolePage';
import { useApiSpecification } from '../support/apiSpecification';
import { KEYS } from '../support/service';
import { supportBot } from '../support/supportBot';

/**
 * Templated versions in the web console, in a headless Chromium against the real service: a
 * version shows its variables with their types; "try" renders it from a form made from its schema
 * and shows the request that would be sent (or the problems the service names); a templated
 * version is made from the console, previewed, then saved as the API then shows it.
 */
jest.setTimeout(60_000);

const svc = useApiSpecification({}, { served: true });
let browser: TestBrowser;
beforeAll(async () => {
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
});

let page: Page;
let problems: string[];
beforeEach(async () => {
  ({ page, problems } = await browser.open(1280));
});
afterEach(async () => {
  await keepLastPicture(page);
  expect(faults(problems)).toEqual([]);
  await page.context().close();
});

/** The support bot of docs/templates.md with its few-shot pair replaced by one message naming a required account. */
const TEMPLATED = (() => {
  const bot = supportBot();
  bot.messages = [{ role: 'user', content: 'My account is {{account}}.' }];
  bot.variables.properties.account = { type: 'string', pattern: '^AC-\\d+$' };
  bot.variables.required = ['company', 'account'];
  return bot;
})();

const makeTemplated = async (slug: string) => {
  const res = await svc.request(`/api/v1/presets/${slug}/versions`, { method: 'POST', json: TEMPLATED });
  expect(res.status).toBe(200);
};

describe('a templated version in the console', () => {
  it('shows its variables with their types, whether required, their defaults and descriptions, and its messages', async () => {
    await makeTemplated('shown');
    await signedIn(page, svc, KEYS.writer);
    await openPreset(page, svc, 'shown');
    await page.getByRole('heading', { name: /Designated version: v1\s*template/ }).waitFor();
    const row = (name: string) => page.locator(`table.variables tr[data-variable="${name}"]`);
    const cells = async (name: string) => (await row(name).locator('th, td').allTextContents()).map((t) => t.trim());
    expect(await cells('company')).toEqual(['company', 'string', 'required', '—', 'Whose customers']);
    expect(await cells('language')).toEqual(['language', 'one of "English", "French"', 'optional', '"English"', '']);
    expect(await cells('premium')).toEqual(['premium', 'boolean', 'optional', '—', '']);
    expect(await cells('account')).toEqual(['account', 'string matching ^AC-\\d+$', 'required', '—', '']);
    expect(await page.getByLabel('Message 1 (user) of version 1').textContent()).toBe('My account is {{account}}.');
  });

  it('tries it from a form made from its schema: the request that would be sent, or the problems the service names', async () => {
    await makeTemplated('tried-template');
    await signedIn(page, svc, KEYS.writer);
    await openPreset(page, svc, 'tried-template');
    const form = page.locator('section[aria-labelledby="try-template-heading"]');
    await form.getByLabel('company (required)').fill('Acme');
    await form.getByLabel('account (required)').fill('AC-42');
    await form.getByLabel('premium (optional)').selectOption('true');
    await form.getByLabel('A user message after the version’s own (optional)').fill('I was charged twice.');
    await form.getByRole('button', { name: 'Show the request' }).click();
    const resolved = form.getByTestId('resolved');
    await resolved.waitFor();
    const request = JSON.parse((await resolved.getByLabel('The request version 1 resolves to').textContent())!);
    expect(request).toEqual({
      model: 'openai/gpt-4o',
      messages: [
        { role: 'system', content: 'You support customers of Acme. Answer in English. Escalate at once.' },
        { role: 'user', content: 'My account is AC-42.' },
        { role: 'user', content: 'I was charged twice.' },
      ],
      temperature: 0.3,
    });
    // The same values over the API give the same request.
    const api = await svc.request('/api/v1/resolve/chat/completions', {
      method: 'POST',
      json: {
        model: '@preset/tried-template@1',
        messages: [{ role: 'user', content: 'I was charged twice.' }],
        prompt_variables: { company: 'Acme', account: 'AC-42', premium: true },
      },
    });
    expect((await api.json()).data.request).toEqual(request);

    await form.getByLabel('account (required)').fill('not an account');
    await form.getByRole('button', { name: 'Show the request' }).click();
    const alert = form.getByRole('alert');
    await alert.waitFor();
    expect(await alert.textContent()).toContain('$.prompt_variables.account: must match pattern');
  });

  it('makes a templated version from the console: previewed (its variables inferred), then saved as the API shows it', async () => {
    await postVersion(svc, 'made-template', 1);
    await signedIn(page, svc, KEYS.writer);
    await openPreset(page, svc, 'made-template');
    const section = page.locator('section[aria-labelledby="new-template-heading"]');
    await section.getByLabel('System prompt (a template)').fill('Answer in {{language}}.{{#each rules}} {{this}}{{/each}}');
    await section.getByLabel('Note for the templated version (optional)').fill('templated in the console');
    await section.getByRole('button', { name: 'Preview the templated version' }).click();
    const preview = section.getByTestId('template-preview');
    await preview.waitFor();
    const types = await preview
      .locator('table.variables tbody tr')
      .evaluateAll((rows) => rows.map((r) => [...r.querySelectorAll('th, td')].slice(0, 3).map((c) => (c.textContent ?? '').trim())));
    expect(types).toEqual([
      ['language', 'string', 'required'],
      ['rules', 'list', 'required'],
    ]);
    expect((await apiPreset(svc, 'made-template')).etag).toBe('"0"'); // the preview stored nothing
    await preview.getByRole('button', { name: 'Save as a new version' }).click();
    await page.getByText('Version 2 saved and designated.').waitFor();
    const stored = (await (await svc.request('/api/v1/presets/made-template/versions/2')).json()).data;
    expect(stored).toMatchObject({
      system_prompt: 'Answer in {{language}}.{{#each rules}} {{this}}{{/each}}',
      template_format: 'handlebars',
      variables: {
        type: 'object',
        properties: { language: { type: 'string' }, rules: { type: 'array' } },
        required: ['language', 'rules'],
      },
      note: 'templated in the console',
      config: { model: 'openai/gpt-4o', temperature: 0.1, max_tokens: 256 },
    });
    // The page now shows it as the designated, templated version, with a form to try it.
    await page.locator('section[aria-labelledby="try-template-heading"]').getByLabel('language (required)').waitFor();
  });

  it('shows the problems of a template the service refuses, and stores nothing', async () => {
    await postVersion(svc, 'refused-template', 1);
    await signedIn(page, svc, KEYS.writer);
    await openPreset(page, svc, 'refused-template');
    const section = page.locator('section[aria-labelledby="new-template-heading"]');
    await section.getByLabel('System prompt (a template)').fill('Hi {{#if x}}');
    await section.getByRole('button', { name: 'Preview the templated version' }).click();
    const alert = section.getByRole('alert');
    await alert.waitFor();
    expect(await alert.textContent()).toContain('$.system_prompt: does not parse as Handlebars');
    expect((await apiPreset(svc, 'refused-template')).etag).toBe('"0"');
  });
});
