import type { Page } from 'playwright-core';
import type { TestService } from './service';

/** What the console's helpers need of a running service: its URL and the tests' requests. */
type Served = Pick<TestService, 'url' | 'request'>;

/** What the console's browser tests do again and again, as a person would do it. */

/** Errors a page logged that are faults (an uncaught exception, a CSP violation), not an API's 4xx answer. */
export const faults = (problems: string[]) => problems.filter((p) => !p.startsWith('Failed to load resource'));

export const signIn = async (page: Page, svc: Served, key: string) => {
  await page.goto(`${svc.url}/`);
  await page.getByLabel('API key').fill(key);
  await page.getByRole('button', { name: 'Sign in' }).click();
};

/** Signs in and waits for the list and for the live feed to be connected. */
export const signedIn = async (page: Page, svc: Served, key: string) => {
  await signIn(page, svc, key);
  await page.getByRole('heading', { level: 1, name: 'Presets', exact: true }).waitFor();
  await page.getByText('Updates: live').waitFor();
};

export const openPreset = async (page: Page, svc: Served, slug: string) => {
  await page.goto(`${svc.url}/#/presets/${encodeURIComponent(slug)}`);
  await page.getByRole('heading', { level: 2, name: 'History', exact: true }).waitFor();
  await page.getByText('Updates: live').waitFor();
};

/** A chat-completions body whose system prompt's last line and temperature say which version it is. */
export const versionBody = (n: number) => ({
  model: 'openai/gpt-4o',
  temperature: n / 10,
  max_tokens: 256 * n,
  messages: [
    { role: 'system', content: `You are the support bot.\nAnswer in one paragraph.\nRule ${n}: be kind.` },
    { role: 'user', content: 'hi' },
  ],
});

export const postVersion = async (svc: Served, slug: string, n: number, note?: string) => {
  const headers: Record<string, string> = note ? { 'Preset-Note': encodeURIComponent(note) } : {};
  const res = await svc.request(`/api/v1/presets/${slug}/chat/completions`, { method: 'POST', json: versionBody(n), headers });
  if (res.status !== 200) throw new Error(`POST ${slug} answered ${res.status}: ${await res.text()}`);
  return res;
};

export const apiPreset = async (svc: Served, slug: string) => {
  const res = await svc.request(`/api/v1/presets/${slug}?include_archived=true`);
  return { status: res.status, etag: res.headers.get('etag'), data: res.status === 200 ? (await res.json()).data : undefined };
};

/**
 * The page's globals as far as the tests read them: the tests are type-checked without the DOM
 * library (the service's tsconfig), and a page.evaluate callback runs in the page, not here.
 */
interface FocusedElement {
  tagName: string;
  id: string;
  textContent: string | null;
  innerText?: string;
  getAttribute(name: string): string | null;
}
interface PageGlobals {
  sessionStorage: { getItem(key: string): string | null };
  localStorage: { length: number };
  document: { activeElement: FocusedElement | null; documentElement: { scrollWidth: number } };
}

/** The key the console keeps for this tab, if any. */
export const sessionKey = (page: Page) =>
  page.evaluate(() => (globalThis as unknown as PageGlobals).sessionStorage.getItem('presets.apiKey'));
export const localStorageLength = (page: Page) => page.evaluate(() => (globalThis as unknown as PageGlobals).localStorage.length);
export const pageWidth = (page: Page) => page.evaluate(() => (globalThis as unknown as PageGlobals).document.documentElement.scrollWidth);

/** The focused element: its tag, id, and the name a screen reader would give it (aria-label, else its text). */
export const focused = (page: Page) =>
  page.evaluate(() => {
    const e = (globalThis as unknown as PageGlobals).document.activeElement;
    return {
      tag: e?.tagName ?? '',
      id: e?.id ?? '',
      name: e ? (e.getAttribute('aria-label') ?? e.innerText ?? e.textContent ?? '').trim() : '',
    };
  });
