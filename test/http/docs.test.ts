import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext } from 'playwright-core';
import { OPERATIONS } from '#src/http/openapi';
import { launchOptions } from '../support/browser';
import { useApiSpecification } from '../support/apiSpecification';
import { removeDir } from '../support/service';

/**
 * GET /docs in a real browser (Chromium driven by playwright-core, found as test/support/chromium.ts says):
 * the page renders every operation of /api/v1/openapi.json, and everything it loads comes from the
 * service's own origin (no CDN).
 */
jest.setTimeout(60_000);

const svc = useApiSpecification({}, { served: true });
let context: BrowserContext;
let userDataDir: string;

beforeAll(async () => {
  userDataDir = mkdtempSync(join(tmpdir(), 'presets-chromium-'));
  context = await chromium.launchPersistentContext(userDataDir, await launchOptions());
});
afterAll(async () => {
  await context?.close();
  if (userDataDir) removeDir(userDataDir);
});

it('serves a page whose HTML names only same-origin URLs', async () => {
  const res = await svc.request('/docs', { key: null });
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
  expect(res.headers.get('content-security-policy')).toContain("default-src 'self'");
  const html = await res.text();
  const urls = [...html.matchAll(/\s(?:src|href)="([^"]*)"/g)].map((m) => m[1]!);
  expect(urls.length).toBeGreaterThanOrEqual(3);
  for (const url of urls) expect(url).toMatch(/^\/docs\//);
});

it('renders every operation of the document, loading nothing from another origin', async () => {
  const page = await context.newPage();
  const requested: string[] = [];
  const problems: string[] = [];
  page.on('request', (r) => requested.push(r.url()));
  page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
  page.on('console', (m) => {
    if (m.type() === 'error') problems.push(`console: ${m.text()}`);
  });

  await page.goto(`${svc.url}/docs`);
  await page.waitForSelector('.opblock', { timeout: 30_000 });
  const count = await page.locator('.opblock').count();
  const text = await page.locator('#swagger-ui').innerText();
  // An operation opens on its request body and answers, from the generated schemas.
  await page.locator('#operations-Presets-createPresetsChatCompletions .opblock-summary-control').click();
  const operation = page.locator('#operations-Presets-createPresetsChatCompletions');
  await operation.locator('.opblock-body').waitFor({ timeout: 10_000 });
  // Swagger UI fills the body in over more than one render: read it once both sections are there.
  await operation.locator('.opblock-section-request-body').waitFor({ timeout: 10_000 });
  await operation.locator('.responses-table').first().waitFor({ timeout: 10_000 });
  const opened = await operation.innerText();
  if (process.env.DOCS_SCREENSHOT) await page.screenshot({ path: process.env.DOCS_SCREENSHOT, fullPage: false });
  await page.close();

  expect(opened).toContain('Request body');
  for (const status of ['200', '202', '400', '409', '412']) expect(opened).toContain(status);

  expect(count).toBe(OPERATIONS.length);
  for (const op of OPERATIONS) expect(text).toContain(op.summary);
  expect(text).toContain('/api/v1/presets/{slug}/chat/completions');
  const origin = new URL(svc.url).origin;
  expect(requested.length).toBeGreaterThanOrEqual(4); // the page, its style, its two scripts, the document
  expect(requested.filter((url) => new URL(url).origin !== origin)).toEqual([]);
  expect(requested).toContain(`${origin}/api/v1/openapi.json`);
  expect(problems).toEqual([]);
});
