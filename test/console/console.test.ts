import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { keepLastPicture, launchBrowser, screenshotDir, type TestBrowser } from '../support/browser';
import { apiPreset, faults, localStorageLength, openPreset, postVersion, sessionKey, signedIn, signIn } from '../support/consolePage';
import { startApiSpecification, useApiSpecification } from '../support/apiSpecification';
import { KEYS } from '../support/service';

/**
 * The web console in a headless Chromium against the real service: each flow a person relies on,
 * checked on the page and against what the API then answers.
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
  // No uncaught exception and no Content-Security-Policy violation on any page.
  expect(faults(problems)).toEqual([]);
  await page.context().close();
});

const versionRow = (n: number) => page.locator(`table.versions tr[data-version="${n}"]`);

describe('signing in', () => {
  it('keeps the key in sessionStorage only, sends it as a bearer key, and signs out', async () => {
    const authorizations: string[] = [];
    page.on('request', (r) => {
      if (r.url().includes('/api/')) authorizations.push(r.headers().authorization ?? '');
    });
    await signedIn(page, svc, KEYS.writer);
    expect(await sessionKey(page)).toBe(KEYS.writer);
    expect(await localStorageLength(page)).toBe(0);
    expect(page.url()).not.toContain(KEYS.writer);
    expect(authorizations.length).toBeGreaterThan(0);
    expect(new Set(authorizations)).toEqual(new Set([`Bearer ${KEYS.writer}`]));
    // A reload keeps the session (same tab); signing out ends it.
    await page.reload();
    await page.getByRole('heading', { level: 1, name: 'Presets', exact: true }).waitFor();
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByLabel('API key').waitFor();
    expect(await sessionKey(page)).toBeNull();
  });

  it('says plainly that a wrong key was not accepted (401), and keeps nothing', async () => {
    await signIn(page, svc, 'pk_not_a_key');
    const alert = page.getByRole('alert');
    await alert.waitFor();
    expect(await alert.textContent()).toContain('This API key was not accepted');
    expect(await sessionKey(page)).toBeNull();
    expect(await page.getByLabel('API key').getAttribute('aria-invalid')).toBe('true');
  });

  it('says which scope a key lacks (403)', async () => {
    await signIn(page, svc, KEYS.writerOnly);
    const alert = page.getByRole('alert');
    await alert.waitFor();
    expect(await alert.textContent()).toContain('it lacks the presets:read scope');
  });
});

describe('presets', () => {
  it('lists three versions created over the API: the row shows the designated version; the preset, all three', async () => {
    for (let n = 1; n <= 3; n++) await postVersion(svc, 'listed-bot', n, `release ${n}`);
    await signedIn(page, svc, KEYS.writer);
    const row = page.locator('table.presets tr[data-slug="listed-bot"]');
    await row.waitFor();
    expect(await row.locator('[data-label="Designated"]').textContent()).toBe('v3');
    expect(await row.locator('[data-label="Status"]').textContent()).toContain('active');
    await row.getByRole('link', { name: 'listed-bot' }).click();
    await page.getByRole('heading', { level: 2, name: 'History', exact: true }).waitFor();
    await versionRow(1).waitFor();
    expect(await page.locator('table.versions tbody tr').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-version')))).toEqual([
      '3',
      '2',
      '1',
    ]);
    expect(await versionRow(2).locator('[data-label="Note"]').textContent()).toBe('release 2');
    const history = page.locator('ol.timeline li');
    await history.nth(2).waitFor();
    expect(await history.count()).toBe(3);
    expect(await history.first().textContent()).toContain('user-writer added version 3 from an OpenAI chat-completions body');
    expect(await history.first().textContent()).toContain('release 3');
  });

  it('finds a preset by a part of its name and filters by status', async () => {
    await postVersion(svc, 'findable', 1);
    expect((await svc.request('/api/v1/presets/findable', { method: 'PATCH', json: { name: 'Needle in the haystack' } })).status).toBe(200);
    await signedIn(page, svc, KEYS.writer);
    await page.getByLabel('Search by slug or name').fill('NEEDLE');
    await page.getByText('Presets 1–1 of 1').waitFor();
    expect(await page.locator('table.presets tbody tr').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-slug')))).toEqual([
      'findable',
    ]);
    await page.getByLabel('Status').selectOption('archived');
    await page.getByText('No preset matches.').waitFor();
  });
});

describe('paging and creating', () => {
  it('pages the list 25 at a time, most recently updated first', async () => {
    const { page: paged, problems: pagedProblems } = await browser.open(1280);
    const crowd = await startApiSpecification({}, { served: true });
    try {
      for (let i = 1; i <= 27; i++) await postVersion(crowd, `crowd-${String(i).padStart(2, '0')}`, 1);
      await signedIn(paged, crowd, KEYS.writer);
      const slugs = () => paged.locator('table.presets tbody tr').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-slug')));
      await paged.getByText('Presets 1–25 of 27, most recently updated first.').waitFor();
      expect((await slugs())[0]).toBe('crowd-27');
      await paged.getByRole('button', { name: 'Next page' }).click();
      await paged.getByText('Presets 26–27 of 27, most recently updated first.').waitFor();
      expect(await slugs()).toEqual(['crowd-02', 'crowd-01']);
      expect(await paged.getByRole('button', { name: 'Next page' }).isDisabled()).toBe(true);
      await paged.getByRole('button', { name: 'Previous page' }).click();
      await paged.getByText('Presets 1–25 of 27, most recently updated first.').waitFor();
      expect(faults(pagedProblems)).toEqual([]);
    } finally {
      await paged.context().close();
      await crowd.close();
    }
  });

  it('creates a preset from a pasted body, previewed first, and opens it', async () => {
    await signedIn(page, svc, KEYS.writer);
    await page.getByText('New preset').click();
    await page.getByLabel('Slug', { exact: true }).fill('made-in-console');
    await page.getByLabel('Request format').selectOption('responses');
    await page
      .getByLabel('Request body (JSON)')
      .fill(JSON.stringify({ model: 'openai/o4-mini', instructions: 'Classify the ticket.', input: 'x', reasoning: { effort: 'low' } }));
    await page.getByRole('button', { name: 'Preview', exact: true }).click();
    await page.getByTestId('dry-run').waitFor();
    expect((await apiPreset(svc, 'made-in-console')).status).toBe(404);
    await page.getByRole('button', { name: 'Create made-in-console' }).click();
    await page.getByRole('heading', { level: 1, name: 'made-in-console', exact: true }).waitFor();
    await page.getByRole('heading', { name: 'Designated version: v1', exact: true }).waitFor();
    const created = (await apiPreset(svc, 'made-in-console')).data;
    expect(created.designated_version).toMatchObject({
      config: { model: 'openai/o4-mini', reasoning: { effort: 'low' } },
      system_prompt: 'Classify the ticket.',
    });
  });
});

describe('a preset', () => {
  it('shows the diff of versions 1 and 3: the changed config fields and the changed prompt line', async () => {
    for (let n = 1; n <= 3; n++) await postVersion(svc, 'diffed', n);
    await signedIn(page, svc, KEYS.writer);
    await openPreset(page, svc, 'diffed');
    await page.getByLabel('Compare version', { exact: true }).selectOption('1');
    await page.getByLabel('with version', { exact: true }).selectOption('3');
    await page.getByRole('button', { name: 'Compare' }).click();
    await page.getByRole('heading', { level: 1, name: 'diffed: version 1 → version 3', exact: true }).waitFor();
    const config = page.getByTestId('config-diff');
    await config.waitFor();
    const temperature = config.locator('li[data-key="temperature"]');
    expect(await temperature.getAttribute('class')).toContain('jsondiffpatch-modified');
    expect(await temperature.locator('.jsondiffpatch-left-value').textContent()).toContain('0.1');
    expect(await temperature.locator('.jsondiffpatch-right-value').textContent()).toContain('0.3');
    expect(await config.locator('li[data-key="max_tokens"] .jsondiffpatch-right-value').textContent()).toContain('768');
    // The model is the same: not listed until unchanged fields are asked for.
    expect(await config.locator('li[data-key="model"]').isVisible()).toBe(false);
    await page.getByRole('switch', { name: 'Show unchanged fields' }).check();
    expect(await config.locator('li[data-key="model"]').isVisible()).toBe(true);
    const prompt = page.getByTestId('prompt-diff');
    expect(await prompt.locator('del').textContent()).toBe('removed: − Rule 1: be kind.\n');
    expect(await prompt.locator('ins').textContent()).toBe('added: + Rule 3: be kind.\n');
    expect(await prompt.textContent()).toContain('  Answer in one paragraph.');
  });

  it('shows a config with its keys as sent, and says when two versions differ only in their order', async () => {
    const schema = (first: string, second: string) => ({
      type: 'object',
      properties: { [first]: { type: 'string' }, [second]: { type: 'string' } },
      required: ['answer', 'reasoning'],
    });
    const body = (first: string, second: string) => ({
      temperature: 0.2,
      model: 'openai/gpt-4o',
      response_format: { type: 'json_schema', json_schema: { name: 'verdict', strict: true, schema: schema(first, second) } },
      messages: [],
    });
    for (const [first, second] of [
      ['reasoning', 'answer'],
      ['answer', 'reasoning'],
    ])
      expect((await svc.request('/api/v1/presets/ordered/chat/completions', { method: 'POST', json: body(first!, second!) })).status).toBe(
        200,
      );
    await signedIn(page, svc, KEYS.writer);
    await page.goto(`${svc.url}/#/presets/ordered/diff/1/2`);
    const order = page.getByTestId('config-order');
    await order.waitFor();
    const [one, two] = await order.locator('pre').allTextContents();
    expect(JSON.parse(one!)).toEqual(JSON.parse(JSON.stringify({ ...body('reasoning', 'answer'), messages: undefined })));
    expect(one!.indexOf('"reasoning"')).toBeLessThan(one!.indexOf('"answer"'));
    expect(two!.indexOf('"answer"')).toBeLessThan(two!.indexOf('"reasoning"'));
    expect(one!.indexOf('"temperature"')).toBeLessThan(one!.indexOf('"model"'));
  });

  it('designates version 1: the API then answers version 1, and the history says who did it', async () => {
    for (let n = 1; n <= 3; n++) await postVersion(svc, 'rolled-back', n);
    await signedIn(page, svc, KEYS.writer);
    await openPreset(page, svc, 'rolled-back');
    await page.getByLabel('Note for your next change here (optional)').fill('v3 answers too long');
    await page.getByRole('button', { name: 'Designate version 1' }).click();
    await page.getByText('Version 1 is now the designated version.').waitFor();
    await page.getByRole('heading', { name: 'Designated version: v1', exact: true }).waitFor();
    const { data } = await apiPreset(svc, 'rolled-back');
    expect(data.designated_version.version).toBe(1);
    const latest = page.locator('ol.timeline li').first();
    await latest.filter({ hasText: 'designated version 1' }).waitFor();
    expect(await latest.textContent()).toContain('user-writer designated version 1 (was version 3)');
    expect(await latest.textContent()).toContain('v3 answers too long');
  });

  it('a designation based on a stale page is refused with the 412 message, and nothing is reloaded by itself', async () => {
    for (let n = 1; n <= 3; n++) await postVersion(svc, 'stale', n);
    // The page does not hear of the other change (as if its live feed were cut), so it stays stale.
    await page.route('**/api/v1/events', (route) =>
      route.request().headers().accept === 'text/event-stream' ? route.abort() : route.continue(),
    );
    await signIn(page, svc, KEYS.writer);
    await page.goto(`${svc.url}/#/presets/stale`);
    await versionRow(1).waitFor();
    const { etag } = await apiPreset(svc, 'stale');
    const other = await svc.request('/api/v1/presets/stale/designated-version', {
      method: 'PUT',
      json: { version: 2 },
      headers: { 'If-Match': etag! },
    });
    expect(other.status).toBe(200);
    await page.getByRole('button', { name: 'Designate version 1' }).click();
    const alert = page.getByRole('alert');
    await alert.waitFor();
    expect(await alert.textContent()).toBe('Someone else changed this preset meanwhile: reload and decide again.');
    expect((await apiPreset(svc, 'stale')).data.designated_version.version).toBe(2);
    // What the page shows is still what it was when the person decided.
    expect(await page.getByRole('heading', { name: /^Designated version:/ }).textContent()).toBe('Designated version: v3');
  });

  it('archives and restores: the status, the list and the API agree at each step', async () => {
    await postVersion(svc, 'shelved', 1);
    await signedIn(page, svc, KEYS.writer);
    await openPreset(page, svc, 'shelved');
    await page.getByRole('button', { name: 'Archive' }).click();
    await page.getByText('The status is now archived.').waitFor();
    expect((await apiPreset(svc, 'shelved')).data.status).toBe('archived');
    // Archived: frozen, so neither designating nor labels nor a new body are offered.
    expect(await page.getByRole('button', { name: 'Put label' }).count()).toBe(0);
    expect(await page.getByRole('heading', { name: 'Try a body', exact: true }).count()).toBe(0);
    const listed = await (await svc.request('/api/v1/presets?limit=100')).json();
    expect(listed.data.map((p: { slug: string }) => p.slug)).not.toContain('shelved');
    await page.getByRole('button', { name: 'Restore', exact: true }).click();
    await page.getByText('The status is now active.').waitFor();
    const restored = (await apiPreset(svc, 'shelved')).data;
    expect(restored.status).toBe('active');
    expect(restored.status_updated_at).not.toBeNull();
    await page.locator('ol.timeline li').first().filter({ hasText: 'changed the status from archived to active' }).waitFor();
    const history = await page.locator('ol.timeline li').allTextContents();
    expect(history[0]).toContain('changed the status from archived to active');
    expect(history[1]).toContain('changed the status from active to archived');
  });

  it('moves and removes a label, each with If-Match, as the API then shows', async () => {
    for (let n = 1; n <= 2; n++) await postVersion(svc, 'labelled', n);
    await signedIn(page, svc, KEYS.writer);
    await openPreset(page, svc, 'labelled');
    await page.getByPlaceholder('label, e.g. production').fill('production');
    await page.getByLabel('Version', { exact: true }).selectOption('1');
    await page.getByRole('button', { name: 'Put label' }).click();
    await page.getByText('Label production now names version 1.').waitFor();
    expect((await apiPreset(svc, 'labelled')).data.labels).toEqual({ production: 1 });
    await page.getByRole('button', { name: 'Remove the label production' }).click();
    await page.getByText('Label production removed.').waitFor();
    expect((await apiPreset(svc, 'labelled')).data.labels).toEqual({});
  });
});

describe('hostile values', () => {
  it('shows markup in a config, a prompt or a name as text, never as HTML', async () => {
    const markup = '<img src="/x" onerror="globalThis.__pwned = 1">';
    await postVersion(svc, 'hostile', 1);
    const res = await svc.request('/api/v1/presets/hostile/chat/completions', {
      method: 'POST',
      json: { model: markup, messages: [{ role: 'system', content: `<script>globalThis.__pwned = 2</script>${markup}` }] },
    });
    expect(res.status).toBe(200);
    expect((await svc.request('/api/v1/presets/hostile', { method: 'PATCH', json: { name: `<b>${markup}</b>` } })).status).toBe(200);
    await signedIn(page, svc, KEYS.writer);
    await page.locator('table.presets tr[data-slug="hostile"]').getByText(`<b>${markup}</b>`).waitFor();
    await page.goto(`${svc.url}/#/presets/hostile/diff/1/2`);
    const config = page.getByTestId('config-diff');
    await config.waitFor();
    expect(await config.locator('li[data-key="model"] .jsondiffpatch-right-value').textContent()).toContain(markup.replace(/"/g, '\\"'));
    expect(await page.getByTestId('prompt-diff').textContent()).toContain('<script>');
    expect(await page.locator('main img, main script').count()).toBe(0);
    await openPreset(page, svc, 'hostile');
    expect(await page.locator('main img, main script, main b').count()).toBe(0);
    expect(await page.evaluate(() => (globalThis as { __pwned?: number }).__pwned)).toBeUndefined();
  });
});

describe('live', () => {
  it('a version added over the API appears on the open preset and on the list without a reload', async () => {
    await postVersion(svc, 'live-bot', 1);
    await signedIn(page, svc, KEYS.writer);
    const list = page;
    const { page: presetPage, problems: presetProblems } = await browser.open(1280);
    await signedIn(presetPage, svc, KEYS.writer);
    await openPreset(presetPage, svc, 'live-bot');
    const loads: string[] = [];
    for (const p of [list, presetPage]) p.on('framenavigated', (frame) => loads.push(frame.url()));

    await postVersion(svc, 'live-bot', 2, 'added elsewhere');
    await presetPage.locator('table.versions tr[data-version="2"]').waitFor();
    await presetPage.getByRole('heading', { name: 'Designated version: v2', exact: true }).waitFor();
    await presetPage.locator('ol.timeline li').first().filter({ hasText: 'added version 2' }).waitFor();
    await presetPage.getByText('Live: user-writer added version 2.').waitFor();
    await list.locator('table.presets tr[data-slug="live-bot"] [data-label="Designated"]', { hasText: 'v2' }).waitFor();
    expect(loads).toEqual([]); // neither page was loaded again
    expect(faults(presetProblems)).toEqual([]);
    await presetPage.context().close();
  });
});

describe('try a body', () => {
  it('previews what the POST stores (dry run, nothing stored), then saves exactly that as a new version', async () => {
    await postVersion(svc, 'tried', 1);
    await signedIn(page, svc, KEYS.writer);
    await openPreset(page, svc, 'tried');
    const body = {
      model: 'anthropic/claude-sonnet-4',
      max_tokens: 900,
      temperature: 0.4,
      stream: true,
      system: [
        { type: 'text', text: 'Be kind.' },
        { type: 'text', text: 'Cite the ticket.' },
      ],
      messages: [{ role: 'user', content: 'hello' }],
      metadata: { user_id: 'u-1' },
    };
    await page.getByLabel('Request format').selectOption('messages');
    await page.getByLabel('Request body (JSON)').fill(JSON.stringify(body, null, 2));
    await page.getByLabel('Note for the new version (optional)').fill('tried in the console');
    await page.getByRole('button', { name: 'Preview', exact: true }).click();
    const preview = page.getByTestId('dry-run');
    await preview.waitFor();
    const shownConfig = JSON.parse((await preview.getByLabel('Config of the previewed version').textContent())!);
    const shownPrompt = await preview.getByLabel('System prompt of the previewed version').textContent();
    expect(shownConfig).toEqual({ model: 'anthropic/claude-sonnet-4', max_tokens: 900, temperature: 0.4 });
    expect(shownPrompt).toBe('Be kind.\n\nCite the ticket.');
    expect((await apiPreset(svc, 'tried')).etag).toBe('"0"'); // the preview stored nothing
    await preview.getByRole('button', { name: 'Save as a new version' }).click();
    await page.getByText('Version 2 saved and designated.').waitFor();
    const stored = (await (await svc.request('/api/v1/presets/tried/versions/2')).json()).data;
    expect({ config: stored.config, system_prompt: stored.system_prompt, note: stored.note }).toEqual({
      config: shownConfig,
      system_prompt: shownPrompt,
      note: 'tried in the console',
    });
    const [, added] = (await (await svc.request('/api/v1/presets/tried/events')).json()).data;
    expect(added.metadata.sourceFormat).toBe('messages');
  });

  it('shows a body the service refuses with the problems it names, and stores nothing', async () => {
    await postVersion(svc, 'tried-bad', 1);
    await signedIn(page, svc, KEYS.writer);
    await openPreset(page, svc, 'tried-bad');
    await page.getByLabel('Request body (JSON)').fill(JSON.stringify({ model: 'm', temperature: 7, messages: [] }));
    await page.getByRole('button', { name: 'Preview', exact: true }).click();
    const alert = page.getByRole('alert');
    await alert.waitFor();
    expect(await alert.textContent()).toContain('$.temperature');
    expect((await apiPreset(svc, 'tried-bad')).etag).toBe('"0"');
  });
});

describe('events', () => {
  it('shows the workspace events newest first, filtered by type and by preset', async () => {
    await postVersion(svc, 'evented', 1);
    await postVersion(svc, 'evented', 2);
    expect((await svc.request('/api/v1/presets/evented/designated-version', { method: 'PUT', json: { version: 1 } })).status).toBe(200);
    await postVersion(svc, 'evented-other', 1);
    await signedIn(page, svc, KEYS.writer);
    await page.getByRole('link', { name: 'Events' }).click();
    await page.getByRole('heading', { level: 1, name: 'Events', exact: true }).waitFor();
    const entries = page.locator('ol.feed li');
    await entries.first().waitFor();
    const positions = (await entries.locator('.when code').allTextContents()).filter((_, i) => i % 2 === 1).map(BigInt);
    expect(positions).toEqual([...positions].sort((a, b) => (a > b ? -1 : a < b ? 1 : 0)));
    expect(await entries.first().textContent()).toContain('evented-other: user-writer created the preset with version 1');

    await page.getByLabel('Type').selectOption('PresetVersionDesignated');
    await page.locator('ol.feed li[data-type="PresetVersionAdded"]').first().waitFor({ state: 'detached' });
    expect(await entries.evaluateAll((li) => [...new Set(li.map((e) => e.getAttribute('data-type')))])).toEqual([
      'PresetVersionDesignated',
    ]);

    await page.getByLabel('Type').selectOption('');
    await page.getByLabel('Preset (slug)').fill('evented');
    await page.getByRole('button', { name: 'Filter' }).click();
    await page.getByText('3 events shown, newest first.').waitFor();
    expect(await entries.evaluateAll((li) => li.map((e) => e.getAttribute('data-type')))).toEqual([
      'PresetVersionDesignated',
      'PresetVersionAdded',
      'PresetCreated',
    ]);
  });
});

describe('screenshots', () => {
  // A workspace of its own, as a team would have it, for the pictures the README shows.
  const team = useApiSpecification({}, { served: true });
  beforeAll(async () => {
    const prompts = [
      'You are the support assistant of Acme.\nAnswer in one short paragraph.\nNever promise refunds.',
      'You are the support assistant of Acme.\nAnswer in one short paragraph.\nOffer a refund link when the order is late.',
      'You are the support assistant of Acme.\nAnswer in two sentences at most.\nOffer a refund link when the order is late.\nCite the ticket number.',
    ];
    const notes = ['first draft', 'refund policy from legal', 'shorter answers, ticket #4812'];
    for (const [i, prompt] of prompts.entries()) {
      const res = await team.request('/api/v1/presets/support-bot/chat/completions', {
        method: 'POST',
        headers: { 'Preset-Note': encodeURIComponent(notes[i]!) },
        json: {
          model: i < 2 ? 'openai/gpt-4o' : 'openai/gpt-4.1',
          temperature: [0.7, 0.5, 0.3][i],
          max_tokens: 512,
          messages: [
            { role: 'system', content: prompt },
            { role: 'user', content: 'hi' },
          ],
          ...(i === 2 ? { tools: [{ type: 'function', function: { name: 'lookup_order', parameters: { type: 'object' } } }] } : {}),
        },
      });
      expect(res.status).toBe(200);
    }
    const write = async (path: string, init: RequestInit & { json?: unknown }) => expect((await team.request(path, init)).status).toBe(200);
    await write('/api/v1/presets/support-bot', {
      method: 'PATCH',
      json: { name: 'Support bot', description: 'Answers customer tickets in the help centre.' },
    });
    await write('/api/v1/presets/support-bot/labels/production', { method: 'PUT', json: { version: 2, note: 'passed the eval' } });
    await write('/api/v1/presets/support-bot/labels/staging', { method: 'PUT', json: { version: 3 } });
    await write('/api/v1/presets/summariser/messages', {
      method: 'POST',
      json: {
        model: 'anthropic/claude-sonnet-4',
        max_tokens: 1024,
        system: 'Summarise the thread in three bullet points.',
        messages: [{ role: 'user', content: 'x' }],
      },
    });
    await write('/api/v1/presets/summariser', {
      method: 'PATCH',
      json: { name: 'Thread summariser', status: 'disabled' },
      headers: { 'Preset-Note': encodeURIComponent('costs under review') },
    });
    await write('/api/v1/presets/triage/responses', {
      method: 'POST',
      json: {
        model: 'openai/o4-mini',
        instructions: 'Classify the ticket: billing, bug or question.',
        input: 'x',
        reasoning: { effort: 'low' },
      },
    });
    await write('/api/v1/presets/triage/labels/production', { method: 'PUT', json: { version: 1 } });
  });

  it('of the list, a preset with its history, and a diff, at 1280 px; a preset at 390 px', async () => {
    const dir = screenshotDir();
    await signedIn(page, team, KEYS.writer);
    await page.screenshot({ path: join(dir, 'list.png'), fullPage: true });
    await openPreset(page, team, 'support-bot');
    await page.screenshot({ path: join(dir, 'preset.png'), fullPage: true });
    await page.goto(`${team.url}/#/presets/support-bot/diff/1/3`);
    await page.getByTestId('prompt-diff').waitFor();
    await page.screenshot({ path: join(dir, 'diff.png'), fullPage: true });
    const { page: phone } = await browser.open(390);
    await signedIn(phone, team, KEYS.writer);
    await openPreset(phone, team, 'support-bot');
    await phone.screenshot({ path: join(dir, 'preset-390.png'), fullPage: true });
    await phone.context().close();
  });
});
