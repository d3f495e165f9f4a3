import type { Page } from 'playwright-core';
import { keepLastPicture, launchBrowser, type TestBrowser } from '../support/browser';
import { apiPreset, faults, openPreset, postVersion, signedIn } from '../support/consolePage';
import { useApiSpecification } from '../support/apiSpecification';
import { KEYS } from '../support/service';

/**
 * Keys and release control in the web console, in a headless Chromium against the real service:
 * a key made (shown once) and revoked, a label protected, a refusal said plainly, and a proposal
 * approved by another user; each checked on the page and against what the API then answers.
 */
jest.setTimeout(90_000);

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

const keyWorks = async (key: string) => (await svc.request('/api/v1/presets', { key })).status;

describe('keys', () => {
  it('makes a key, shows it once, and revokes it: the API then refuses it', async () => {
    await signedIn(page, svc, KEYS.admin);
    await page.getByRole('link', { name: 'Keys', exact: true }).click();
    await page.getByRole('heading', { level: 1, name: 'API keys' }).waitFor();
    await page.getByLabel('User id (who will hold it)').fill('user-console');
    await page.getByLabel('Name (optional)').fill('made in the console');
    await page.getByLabel('presets:write').check();
    await page.getByRole('button', { name: 'Make the key' }).click();
    const shown = page.locator('code[data-new-key]');
    await shown.waitFor();
    const key = (await shown.textContent())!;
    expect(key).toMatch(/^pk_/);
    expect(await page.getByText('it is shown only this once').count()).toBe(1);
    expect(await keyWorks(key)).toBe(200);

    const listed = (await (await svc.request('/api/v1/keys', { key: KEYS.admin })).json()).data.find(
      (k: { name: string }) => k.name === 'made in the console',
    );
    expect(listed).toMatchObject({ user_id: 'user-console', scopes: ['presets:read', 'presets:write'], revoked: false });
    const row = page.locator(`table.keys tr[data-key-id="${listed.id}"]`);
    await row.waitFor();
    expect(await row.locator('[data-label="State"]').textContent()).toContain('active');

    await page.getByRole('button', { name: 'Revoke the key made in the console' }).click();
    await page.getByText('The key made in the console is revoked').waitFor();
    // The message comes with the answer to the DELETE; the list is read again after it.
    await row.locator('[data-label="State"]', { hasText: 'revoked' }).waitFor();
    expect(await row.locator('[data-label="State"]').textContent()).toContain('revoked');
    // Shown once: gone from the page once the list changed.
    expect(await page.locator('code[data-new-key]').count()).toBe(0);
    expect(await keyWorks(key)).toBe(401);
  });

  it('says plainly that a key without keys:manage may not list keys (403)', async () => {
    await signedIn(page, svc, KEYS.writer);
    await page.goto(`${svc.url}/#/keys`);
    const alert = page.getByRole('alert');
    await alert.waitFor();
    expect(await alert.textContent()).toContain('it lacks the keys:manage scope');
  });
});

describe('release control', () => {
  it('protects a label from the preset page; a write key without presets:release is then refused in plain words', async () => {
    for (let n = 1; n <= 2; n++) await postVersion(svc, 'guarded-bot', n);
    expect((await svc.request('/api/v1/presets/guarded-bot/labels/production', { method: 'PUT', json: { version: 1 } })).status).toBe(200);
    await signedIn(page, svc, KEYS.releaseAnn);
    await openPreset(page, svc, 'guarded-bot');
    await page.getByLabel('Approvals a move of production needs').selectOption('2');
    await page.getByRole('button', { name: 'Protect production' }).click();
    await page.getByText('Label production is protected.').waitFor();
    expect((await apiPreset(svc, 'guarded-bot')).data.protected_labels).toEqual({ production: { approvals: 2 } });
    expect(await page.locator('tr[data-label="production"] [data-label="Protection"]').textContent()).toBe('protected, 2 approvals');
    await page.context().close();

    ({ page, problems } = await browser.open(1280));
    await signedIn(page, svc, KEYS.writer);
    await openPreset(page, svc, 'guarded-bot');
    await page.getByRole('button', { name: 'Remove the label production' }).click();
    const alert = page.getByRole('alert');
    await alert.waitFor();
    expect(await alert.textContent()).toContain('is protected: removing it needs a key with the presets:release scope');
    expect((await apiPreset(svc, 'guarded-bot')).data.labels).toEqual({ production: 1 });
  });

  it('lists a proposal waiting for the signed-in user, who approves it: the label moves', async () => {
    for (let n = 1; n <= 2; n++) await postVersion(svc, 'approved-bot', n);
    await svc.request('/api/v1/presets/approved-bot/labels/production', { method: 'PUT', json: { version: 1 } });
    await svc.request('/api/v1/presets/approved-bot/labels/production/protection', {
      method: 'PUT',
      json: { protected: true, approvals: 1 },
      key: KEYS.releaseAnn,
    });
    const proposed = await svc.request('/api/v1/presets/approved-bot/labels/production', {
      method: 'PUT',
      json: { version: 2 },
      key: KEYS.releaseAnn,
    });
    expect(proposed.status).toBe(202);
    const { proposal_id: id } = (await proposed.json()).data;

    // The proposer sees it as theirs: withdraw, no approve.
    await signedIn(page, svc, KEYS.releaseAnn);
    await page.getByRole('link', { name: 'Proposals', exact: true }).click();
    const yours = page.locator('section[aria-labelledby="mine-heading"]').locator(`li[data-proposal="${id}"]`);
    await yours.waitFor();
    expect(await yours.getByRole('button', { name: 'Withdraw' }).count()).toBe(1);
    expect(await yours.getByRole('button', { name: 'Approve' }).count()).toBe(0);
    await page.context().close();

    ({ page, problems } = await browser.open(1280));
    await signedIn(page, svc, KEYS.releaseBob);
    await page.getByRole('link', { name: 'Proposals', exact: true }).click();
    const waiting = page.locator('section[aria-labelledby="waiting-heading"]').locator(`li[data-proposal="${id}"]`);
    await waiting.waitFor();
    expect(await waiting.textContent()).toContain('user-ann proposes to move the label production to version 2 (now version 1)');
    await waiting.getByRole('button', { name: 'Approve' }).click();
    await page.getByText('Approved: approved-bot.').waitFor();
    const preset = (await apiPreset(svc, 'approved-bot')).data;
    expect(preset.labels).toEqual({ production: 2 });
    expect(preset.proposals).toEqual([]);
    const history = (await (await svc.request('/api/v1/presets/approved-bot/events')).json()).data as Array<{
      type: string;
      metadata: { actorUserId: string };
    }>;
    expect(history.slice(-2).map((e) => [e.type, e.metadata.actorUserId])).toEqual([
      ['LabelMoveApproved', 'user-bob'],
      ['PresetLabelMoved', 'user-bob'],
    ]);
    await page.locator(`li[data-proposal="${id}"]`).waitFor({ state: 'detached' });
  });
});
