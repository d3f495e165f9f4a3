import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { createServer, get, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Koa from 'koa';
import pino from 'pino';
import { CONSOLE_CSP, serveConsole } from '#src/http/console';
import { errorHandler } from '#src/http/middleware/errorHandler';
import { requestContext } from '#src/http/middleware/requestContext';
import type { AppContext, AppState } from '#src/http/types';
import { removeDir } from '#support/service';

/**
 * How the service serves a built console from disk: only the files of the build, the page with its
 * CSP and revalidated, hashed assets cached for good, and everything else left to the API.
 */
const root = mkdtempSync(join(tmpdir(), 'presets-console-'));
const built = join(root, 'built');
const INDEX = '<!doctype html><title>console</title><script type="module" src="/assets/index-abc123.js"></script>';
mkdirSync(join(built, 'assets'), { recursive: true });
writeFileSync(join(built, 'index.html'), INDEX);
writeFileSync(join(built, 'assets', 'index-abc123.js'), 'console.log("hi")');
writeFileSync(join(built, 'assets', 'style-def456.css'), 'body{}');
writeFileSync(join(built, 'favicon.svg'), '<svg xmlns="http://www.w3.org/2000/svg"/>');
writeFileSync(join(root, 'secret.txt'), 'not in the build');

const revalidate = (url: string, etag: string) =>
  new Promise<{ status: number; body: string }>((resolve, reject) => {
    get(url, { headers: { 'If-None-Match': etag } }, (res) => {
      let body = '';
      res.on('data', (chunk) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode!, body }));
    }).on('error', reject);
  });

let servers: Server[] = [];
const serve = async (dir: string) => {
  const app = new Koa<AppState, AppContext>();
  app.use(requestContext(pino({ level: 'silent' })));
  app.use(errorHandler());
  app.use(serveConsole(dir));
  app.use((ctx) => {
    ctx.body = { api: ctx.path }; // stands for the API, with its auth, behind the console
  });
  const server = createServer(app.callback());
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  servers.push(server);
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
};
afterAll(async () => {
  await Promise.all(servers.map((s) => new Promise((r) => s.close(r))));
  servers = [];
  removeDir(root);
});

describe('a built console', () => {
  let url: string;
  beforeAll(async () => {
    url = await serve(built);
  });

  it('serves its page at / with a strict CSP, revalidated by ETag (304 while unchanged)', async () => {
    const res = await fetch(`${url}/`);
    expect(res.status).toBe(200);
    expect(await res.text()).toBe(INDEX);
    expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(res.headers.get('content-security-policy')).toBe(CONSOLE_CSP);
    expect(CONSOLE_CSP).toContain("default-src 'self'");
    expect(CONSOLE_CSP).toContain("script-src 'self'");
    expect(CONSOLE_CSP).not.toContain('unsafe-inline');
    expect(res.headers.get('cache-control')).toBe('no-cache');
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    const etag = res.headers.get('etag')!;
    expect(etag).toMatch(/^"[\w-]+"$/);
    // As a browser revalidates from its cache.
    const again = await revalidate(`${url}/`, etag);
    expect(again).toEqual({ status: 304, body: '' });
    // And as Node's fetch does, adding Cache-Control: no-cache: the condition is still evaluated (RFC 9110), as on the API's reads.
    const fetched = await fetch(`${url}/`, { headers: { 'If-None-Match': etag } });
    expect(fetched.status).toBe(304);
    expect(fetched.headers.get('etag')).toBe(etag);
    expect((await fetch(`${url}/index.html`)).status).toBe(200);
  });

  it('serves hashed assets with their type, cached for a year as immutable', async () => {
    const js = await fetch(`${url}/assets/index-abc123.js`);
    expect(js.status).toBe(200);
    expect(js.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(js.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    expect(await js.text()).toBe('console.log("hi")');
    expect((await fetch(`${url}/assets/style-def456.css`)).headers.get('content-type')).toBe('text/css; charset=utf-8');
    const icon = await fetch(`${url}/favicon.svg`);
    expect(icon.headers.get('content-type')).toBe('image/svg+xml');
    expect(icon.headers.get('cache-control')).toBe('no-cache');
    const head = await fetch(`${url}/assets/index-abc123.js`, { method: 'HEAD' });
    expect(head.status).toBe(200);
  });

  it('answers an asset of another build with a 404 in the error envelope, and nothing outside the build', async () => {
    const old = await fetch(`${url}/assets/index-000000.js`);
    expect(old.status).toBe(404);
    expect((await old.json()).error).toMatchObject({ code: 404, message: expect.stringContaining('reload the page') });
    for (const path of ['/assets/../../secret.txt', '/assets/%2e%2e/%2e%2e/secret.txt', '/..%2fsecret.txt', '/secret.txt']) {
      const res = await fetch(`${url}${path}`);
      expect(await res.text()).not.toContain('not in the build');
    }
  });

  it('leaves the API alone: other paths and other methods go on', async () => {
    expect(await (await fetch(`${url}/api/v1/presets`)).json()).toEqual({ api: '/api/v1/presets' });
    expect(await (await fetch(`${url}/health/live`)).json()).toEqual({ api: '/health/live' });
    expect(await (await fetch(`${url}/`, { method: 'POST' })).json()).toEqual({ api: '/' });
    expect(await (await fetch(`${url}/robots.txt`)).json()).toEqual({ api: '/robots.txt' });
  });
});

describe('no built console', () => {
  it('answers / with a clear 503 in the error envelope; the API is unaffected', async () => {
    const url = await serve(join(root, 'nothing-here'));
    const res = await fetch(`${url}/`);
    expect(res.status).toBe(503);
    expect((await res.json()).error).toEqual({ code: 503, message: expect.stringContaining('npm run build'), metadata: {} });
    expect((await fetch(`${url}/assets/index-abc123.js`)).status).toBe(404);
    expect(await (await fetch(`${url}/api/v1/presets`)).json()).toEqual({ api: '/api/v1/presets' });
  });

  it('serves a build made after the service started', async () => {
    const later = join(root, 'later');
    const url = await serve(later);
    expect((await fetch(`${url}/`)).status).toBe(503);
    mkdirSync(later);
    writeFileSync(join(later, 'index.html'), INDEX);
    expect((await fetch(`${url}/`)).status).toBe(200);
  });
});
