import type { Page } from 'playwright-core';
import { keepLastPicture, launchBrowser, type TestBrowser } from '../support/browser';
import { apiPreset, faults, openPreset, postVersion, signedIn, signIn } from '../support/consolePage';
import { useApiSpecification } from '../support/apiSpecification';
import { KEYS } from '../support/service';

/**
 * Rollouts in the web console, in a headless Chromium against the real service: start a split from
 * a label, change its weights with the slider, see each version's share and what it served, promote
 * and abort, each with If-Match, as the API then shows.
 */
jest.setTimeout(60_000);

// Usage counts flush every 50 ms here, so the page shows them at its next load.
const svc = useApiSpecification({ USAGE_FLUSH_MS: '50' }, { served: true });
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

const putLabel = (slug: string, label: string, json: unknown) =>
  svc.request(`/api/v1/presets/${slug}/labels/${label}`, { method: 'PUT', json });
const rollout = (label: string) => page.locator(`article[data-rollout="${label}"]`);

/** Every PUT of a label the page sends, with its If-Match and body. */
const recordLabelWrites = (p: Page) => {
  const writes: Array<{ ifMatch: string | undefined; body: unknown }> = [];
  p.on('request', (r) => {
    if (r.method() === 'PUT' && r.url().includes('/labels/')) writes.push({ ifMatch: r.headers()['if-match'], body: r.postDataJSON() });
  });
  return writes;
};

describe('rollouts', () => {
  it('starts a split from a label, moves its weights with the slider, shows shares and usage, then promotes', async () => {
    for (let n = 1; n <= 2; n++) await postVersion(svc, 'rolled', n);
    expect((await putLabel('rolled', 'production', { version: 1 })).status).toBe(200);
    const writes = recordLabelWrites(page);
    await signedIn(page, svc, KEYS.writer);
    await openPreset(page, svc, 'rolled');

    // Start: label production (v1), version 2, 10 %.
    await page.getByLabel('Roll out on label').selectOption('production');
    await page.getByLabel('the version').selectOption('2');
    await page.getByLabel('with a share (%) of').fill('10');
    await page.getByRole('button', { name: 'Start rollout' }).click();
    await page.getByText('Label production is split: v1 90, v2 10.').waitFor();
    expect((await apiPreset(svc, 'rolled')).data.labels).toEqual({
      production: {
        split: [
          { version: 1, weight: 90 },
          { version: 2, weight: 10 },
        ],
      },
    });
    expect(await rollout('production').locator('tr[data-version="2"] td.share').textContent()).toBe('10 %');

    // The slider sets the share of the version rolled out; the shares follow before saving.
    await rollout('production')
      .getByLabel(/^Share of version 2/)
      .fill('25');
    expect(await rollout('production').locator('tr[data-version="1"] td.share').textContent()).toBe('75 %');
    await rollout('production').getByRole('button', { name: 'Save weights' }).click();
    await page.getByText('Label production is split: v1 75, v2 25.').waitFor();
    expect((await apiPreset(svc, 'rolled')).data.labels.production.split).toEqual([
      { version: 1, weight: 75 },
      { version: 2, weight: 25 },
    ]);

    // Usage: what the service answered for each version in the last 24 h.
    const answered = new Map<number, number>();
    for (let i = 0; i < 40; i++) {
      const res = await svc.request('/api/v1/resolve/chat/completions', {
        method: 'POST',
        json: { model: '@preset/rolled@production', messages: [], user: `user-${i}` },
      });
      const v = (await res.json()).data.preset.version as number;
      answered.set(v, (answered.get(v) ?? 0) + 1);
    }
    await new Promise((r) => setTimeout(r, 200)); // a flush
    await page.reload();
    const served = (v: number) => rollout('production').locator(`tr[data-version="${v}"] td.served`);
    await served(1)
      .filter({ hasText: String(answered.get(1) ?? 0) })
      .waitFor();
    expect(Number(await served(2).textContent())).toBe(answered.get(2) ?? 0);

    // Promote version 2: the label names it alone, the split is over.
    await rollout('production').getByRole('button', { name: 'Promote v2' }).click();
    await page.getByText('Promoted version 2: label production now names it.').waitFor();
    expect((await apiPreset(svc, 'rolled')).data.labels).toEqual({ production: 2 });
    expect(await rollout('production').count()).toBe(0);
    await page.locator('ol.timeline li').first().filter({ hasText: 'ended the split of the label “production”' }).waitFor();

    // Every write named the revision the page showed.
    expect(writes).toHaveLength(3);
    for (const w of writes) expect(w.ifMatch).toMatch(/^"\d+"$/);
  });

  it('aborts a rollout back to the version the label named before, even after the weights changed', async () => {
    for (let n = 1; n <= 3; n++) await postVersion(svc, 'aborted', n);
    expect((await putLabel('aborted', 'production', { version: 2 })).status).toBe(200);
    expect(
      (
        await putLabel('aborted', 'production', {
          split: [
            { version: 2, weight: 95 },
            { version: 3, weight: 5 },
          ],
        })
      ).status,
    ).toBe(200);
    expect(
      (
        await putLabel('aborted', 'production', {
          split: [
            { version: 2, weight: 50 },
            { version: 3, weight: 50 },
          ],
        })
      ).status,
    ).toBe(200);
    await signedIn(page, svc, KEYS.writer);
    await openPreset(page, svc, 'aborted');
    await rollout('production').getByRole('button', { name: 'Abort: back to v2' }).click();
    await page.getByText('Rollout aborted: label production names version 2 again.').waitFor();
    expect((await apiPreset(svc, 'aborted')).data.labels).toEqual({ production: 2 });
  });

  it('refuses a promotion decided on a stale page with the 412 message, changing nothing', async () => {
    for (let n = 1; n <= 2; n++) await postVersion(svc, 'stale-rollout', n);
    expect(
      (
        await putLabel('stale-rollout', 'production', {
          split: [
            { version: 1, weight: 1 },
            { version: 2, weight: 1 },
          ],
        })
      ).status,
    ).toBe(200);
    await page.route('**/api/v1/events', (route) =>
      route.request().headers().accept === 'text/event-stream' ? route.abort() : route.continue(),
    );
    await signIn(page, svc, KEYS.writer);
    await page.goto(`${svc.url}/#/presets/stale-rollout`);
    await rollout('production').waitFor();
    await postVersion(svc, 'stale-rollout', 3); // someone else's change
    await rollout('production').getByRole('button', { name: 'Promote v2' }).click();
    const alert = page.getByRole('alert');
    await alert.waitFor();
    expect(await alert.textContent()).toBe('Someone else changed this preset meanwhile: reload and decide again.');
    expect((await apiPreset(svc, 'stale-rollout')).data.labels.production).toEqual({
      split: [
        { version: 1, weight: 1 },
        { version: 2, weight: 1 },
      ],
    });
  });
});
