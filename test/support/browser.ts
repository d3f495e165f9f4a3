import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { chromium, type Browser, type BrowserContext, type ConsoleMessage, type LaunchOptions, type Page } from 'playwright-core';
import { findBrowser } from './chromium';

/**
 * A headless Chromium driven by playwright-core (no browser download): CHROMIUM_PATH, else a system
 * Chromium or Chrome, else the one the @sparticuz/chromium dev dependency ships (see ./chromium.ts).
 */
const ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--no-first-run',
  '--disable-dev-shm-usage',
];

/** How to launch the browser ./chromium.ts finds, headless, with the switches every test browser gets. */
export const launchOptions = async (): Promise<LaunchOptions> => {
  const found = await findBrowser();
  return {
    executablePath: found.executablePath,
    headless: true,
    args: [...new Set([...ARGS, ...found.args])],
    ...(found.env ? { env: { ...process.env, ...found.env } } : {}),
  };
};

export interface TestBrowser {
  /** A fresh context (its own storage) with one page at `width` × 900, and what its console logged. */
  open(width?: number): Promise<{ context: BrowserContext; page: Page; problems: string[] }>;
  close(): Promise<void>;
}

/**
 * Launches Chromium; playwright gives it a fresh temporary user-data directory and removes it on
 * close, and each `open` is a new context besides (its own storage: a new tab's sessionStorage).
 */
export const launchBrowser = async (): Promise<TestBrowser> => {
  const browser: Browser = await chromium.launch(await launchOptions());
  const contexts: BrowserContext[] = [];
  return {
    async open(width = 1280) {
      const context = await browser.newContext({ viewport: { width, height: 900 }, locale: 'en-GB', timezoneId: 'UTC' });
      contexts.push(context);
      const page = await context.newPage();
      // Errors the page logs (a CSP violation, an uncaught exception) fail the test that reads them.
      const problems: string[] = [];
      page.on('console', (message: ConsoleMessage) => {
        if (message.type() === 'error') problems.push(message.text());
      });
      page.on('pageerror', (error) => problems.push(String(error)));
      return { context, page, problems };
    },
    async close() {
      await Promise.all(contexts.map((c) => c.close().catch(() => undefined)));
      await browser.close();
    },
  };
};

/**
 * Where the tests put screenshots: test-results/ (ignored by git), or docs/images/ when
 * SCREENSHOTS=docs (`npm run screenshots`), the pictures the README shows.
 */
export const screenshotDir = (): string => {
  const root = join(__dirname, '..', '..');
  const dir = process.env.SCREENSHOTS === 'docs' ? join(root, 'docs', 'images') : join(root, 'test-results', 'screenshots');
  mkdirSync(dir, { recursive: true });
  return dir;
};

/**
 * The page as the test left it, in test-results/pages/ (ignored by git): what a failed test saw,
 * whatever failed.
 */
export const keepLastPicture = async (page: Page): Promise<void> => {
  const name = (expect.getState().currentTestName ?? 'test').replace(/[^\w.-]+/g, '_').slice(0, 120);
  const dir = join(__dirname, '..', '..', 'test-results', 'pages');
  mkdirSync(dir, { recursive: true });
  await page.screenshot({ path: join(dir, `${name}.png`), fullPage: true }).catch(() => undefined);
};
