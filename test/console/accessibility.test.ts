import AxeBuilder from '@axe-core/playwright';
import type { Page } from 'playwright-core';
import { keepLastPicture, launchBrowser, type TestBrowser } from '../support/browser';
import { apiPreset, faults, focused, openPreset, pageWidth, postVersion, signedIn } from '../support/consolePage';
import { useApiSpecification } from '../support/apiSpecification';
import { KEYS } from '../support/service';

/**
 * The console for people who use a keyboard or a screen reader: axe finds no serious or critical
 * problem on the list, a preset and a diff, at 1280 and at 390 px wide, nor any page wider than
 * the screen; the main flows work with the keyboard alone.
 */
jest.setTimeout(90_000);

const svc = useApiSpecification({}, { served: true });
let browser: TestBrowser;
beforeAll(async () => {
  browser = await launchBrowser();
  for (let n = 1; n <= 3; n++) await postVersion(svc, 'support-bot', n, `note ${n}`);
  expect((await svc.request('/api/v1/presets/support-bot/labels/production', { method: 'PUT', json: { version: 2 } })).status).toBe(200);
  await postVersion(svc, 'summariser', 1);
  expect(
    (await svc.request('/api/v1/presets/summariser', { method: 'PATCH', json: { status: 'disabled', name: 'Summariser' } })).status,
  ).toBe(200);
});
afterAll(async () => {
  await browser?.close();
});

const seriousViolations = async (page: Page) => {
  const results = await new AxeBuilder({ page }).withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice']).analyze();
  expect(results.passes.length).toBeGreaterThan(10); // axe ran its rules on a page with content
  return results.violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.id} (${v.impact}): ${v.help} at ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
};

describe.each([1280, 390])('at %i px wide', (width) => {
  let page: Page;
  let problems: string[];
  beforeAll(async () => {
    ({ page, problems } = await browser.open(width));
    await signedIn(page, svc, KEYS.writer);
  });
  afterAll(async () => {
    expect(faults(problems)).toEqual([]);
    await page.context().close();
  });

  const check = async () => {
    expect(await seriousViolations(page)).toEqual([]);
    // Nothing makes the page scroll sideways: wide tables and code scroll inside their own boxes.
    expect(await pageWidth(page)).toBeLessThanOrEqual(width);
  };

  it('the sign-in page', async () => {
    const { page: signIn } = await browser.open(width);
    await signIn.goto(`${svc.url}/`);
    await signIn.getByLabel('API key').waitFor();
    expect(await seriousViolations(signIn)).toEqual([]);
    await signIn.context().close();
  });

  it('the list', async () => {
    await page.goto(`${svc.url}/#/`);
    await page.locator('table.presets tr[data-slug="support-bot"]').waitFor();
    await check();
  });

  it('a preset with its history', async () => {
    await openPreset(page, svc, 'support-bot');
    await page.locator('table.versions tr[data-version="1"]').waitFor();
    await check();
  });

  it('a diff', async () => {
    await page.goto(`${svc.url}/#/presets/support-bot/diff/1/3`);
    await page.getByTestId('prompt-diff').waitFor();
    await check();
  });

  it('the events', async () => {
    await page.goto(`${svc.url}/#/events`);
    await page.locator('ol.feed li').first().waitFor();
    await check();
  });
});

describe.each([1280, 390])('keys and proposals at %i px wide', (width) => {
  let page: Page;
  let problems: string[];
  beforeAll(async () => {
    // A key made through the API, a protected label and a proposal waiting for the admin.
    const made = await svc.request('/api/v1/keys', {
      method: 'POST',
      key: KEYS.admin,
      json: {
        user_id: `user-${width}`,
        name: `key at ${width}`,
        scopes: ['presets:read'],
        workspaces: [(await apiPreset(svc, 'support-bot')).data.workspace_id],
      },
    });
    expect(made.status).toBe(201);
    const protect = await svc.request('/api/v1/presets/support-bot/labels/production/protection', {
      method: 'PUT',
      key: KEYS.releaseAnn,
      json: { protected: true, approvals: 1 },
    });
    expect(protect.status).toBe(200);
    const proposed = await svc.request('/api/v1/presets/support-bot/labels/production', {
      method: 'PUT',
      key: KEYS.releaseAnn,
      json: { version: 3 },
    });
    expect(proposed.status).toBe(202);
    ({ page, problems } = await browser.open(width));
    await signedIn(page, svc, KEYS.admin);
  });
  afterAll(async () => {
    expect(faults(problems)).toEqual([]);
    await page.context().close();
  });
  const check = async () => {
    expect(await seriousViolations(page)).toEqual([]);
    expect(await pageWidth(page)).toBeLessThanOrEqual(width);
  };

  it('the keys', async () => {
    await page.goto(`${svc.url}/#/keys`);
    await page.locator('table.keys tbody tr').first().waitFor();
    await check();
  });

  it('the proposals', async () => {
    await page.goto(`${svc.url}/#/proposals`);
    await page.locator('li[data-proposal]').first().waitFor();
    await check();
  });

  it('a preset with a protected label and a proposal', async () => {
    await openPreset(page, svc, 'support-bot');
    await page.locator('li[data-proposal]').first().waitFor();
    await check();
  });
});

describe('with the keyboard alone', () => {
  let page: Page;
  beforeEach(async () => {
    ({ page } = await browser.open(1280));
  });
  afterEach(async () => {
    await keepLastPicture(page);
    await page.context().close();
  });

  /** Presses Tab (or Shift+Tab) until the focused element is the one asked for (by its accessible text), as a person would. */
  const tabTo = async (name: string | RegExp, { back = false, max = 80 } = {}) => {
    for (let i = 0; i < max; i++) {
      await page.keyboard.press(back ? 'Shift+Tab' : 'Tab');
      const { name: now } = await focused(page);
      if (typeof name === 'string' ? now === name : name.test(now)) return;
    }
    throw new Error(`Tab never reached ${String(name)}`);
  };

  it('signs in, opens a preset from the list, designates a version and opens a diff', async () => {
    await page.goto(`${svc.url}/`);
    // The key field has the focus when the page opens; Enter submits.
    await page.waitForFunction(
      () => (globalThis as unknown as { document: { activeElement: { id: string } | null } }).document.activeElement?.id === 'api-key',
    );
    await page.keyboard.type(KEYS.writer);
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { level: 1, name: 'Presets', exact: true }).waitFor();
    await page.locator('table.presets tr[data-slug="support-bot"]').waitFor();

    await tabTo('support-bot');
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { level: 2, name: 'History', exact: true }).waitFor();
    await page.locator('table.versions tr[data-version="1"]').waitFor();
    // The view's heading takes the focus, so a screen reader says where the link led.
    expect((await focused(page)).tag).toBe('H1');

    await tabTo('Designate version 1');
    await page.keyboard.press('Enter');
    await page.getByText('Version 1 is now the designated version.').waitFor();
    expect((await apiPreset(svc, 'support-bot')).data.designated_version.version).toBe(1);

    await tabTo('Compare version 2 with version 3');
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { level: 1, name: 'support-bot: version 2 → version 3', exact: true }).waitFor();
    expect(await page.getByTestId('prompt-diff').textContent()).toContain('Rule 3: be kind.');
  });

  it('skips to the content, then archives and restores a preset', async () => {
    await signedIn(page, svc, KEYS.writer);
    await openPreset(page, svc, 'summariser');
    await tabTo('Skip to content', { back: true });
    await page.keyboard.press('Enter');
    expect((await focused(page)).id).toBe('main');
    await tabTo('Archive');
    await page.keyboard.press('Space');
    await page.getByText('The status is now archived.').waitFor();
    expect((await apiPreset(svc, 'summariser')).data.status).toBe('archived');
    await tabTo('Restore as disabled');
    await page.keyboard.press('Enter');
    await page.getByText('The status is now disabled.').waitFor();
    expect((await apiPreset(svc, 'summariser')).data.status).toBe('disabled');
  });
});
