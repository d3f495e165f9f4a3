import { readdirSync, readFileSync } from 'node:fs';
import { extname, join, relative, sep } from 'node:path';
import type { Middleware } from 'koa';
import { ApiError } from './errors';
import { answeredNotModified, contentEtag } from './etag';
import type { AppContext, AppState } from './types';

/**
 * The web console (src/console/, built by Vite into dist/console/), served at `/` on the API's
 * origin. The page needs no key (every API call it makes does), so this runs before the auth
 * middleware, and answers only GET and HEAD of the built files; every other request goes on to
 * the API. Only the files the build wrote are served (no path from the URL reaches the disk).
 */

/**
 * The page and everything it loads come from this origin; no inline script or style attribute.
 * `data:` images: Pico draws its form controls' icons with them.
 */
export const CONSOLE_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

/** Vite names what it writes under assets/ by content hash: a changed file has a new name. */
const IMMUTABLE = 'public, max-age=31536000, immutable';
/** index.html names the current assets: always revalidated (a 304 while unchanged). */
const REVALIDATE = 'no-cache';

interface ConsoleFile {
  body: Buffer;
  type: string;
  etag: string;
  cacheControl: string;
}

/** Every file of a built console by URL path, or null when there is no build there. */
export const loadConsole = (dir: string): Map<string, ConsoleFile> | null => {
  let names: string[];
  try {
    names = readdirSync(dir, { recursive: true, encoding: 'utf8' });
  } catch {
    return null;
  }
  const files = new Map<string, ConsoleFile>();
  for (const name of names) {
    const path = join(dir, name);
    let body: Buffer;
    try {
      body = readFileSync(path);
    } catch {
      continue; // a directory
    }
    const url = `/${relative(dir, path).split(sep).join('/')}`;
    files.set(url, {
      body,
      type: extname(name),
      etag: contentEtag(body),
      cacheControl: url.startsWith('/assets/') ? IMMUTABLE : REVALIDATE,
    });
  }
  return files.has('/index.html') ? files : null;
};

/** What the console answers (its page, its icon, the hashed assets), as the OpenAPI document lists it. */
export const CONSOLE_PATHS = ['/', '/favicon.svg', '/assets/{file}'] as const;

/** The built file a URL path names, or null when the console does not answer that path. */
const fileFor = (path: string): string | null => {
  if (path === '/') return '/index.html';
  if (path === '/favicon.svg') return path;
  return path.startsWith('/assets/') && path.length > '/assets/'.length && !path.includes('/', '/assets/'.length) ? path : null;
};

export const serveConsole = (dir: string): Middleware<AppState, AppContext> => {
  // Read once, when first asked for: the build does not change under a running service. An
  // absent build is looked for again on the next request, so building while it runs is enough.
  let files: Map<string, ConsoleFile> | null = null;
  return async (ctx, next) => {
    if (ctx.method !== 'GET' && ctx.method !== 'HEAD') return next();
    const path = fileFor(ctx.path);
    if (!path) return next();
    files ??= loadConsole(dir);
    ctx.state.servedBy = 'console';
    if (!files && path === '/index.html') {
      throw new ApiError(503, 'the web console is not built: run "npm run build" (the API works without it)');
    }
    const file = files?.get(path);
    if (!file) {
      // An asset of another build (a page loaded before a deploy): not a question for the API.
      if (path.startsWith('/assets/')) throw new ApiError(404, `no console file ${JSON.stringify(path)}: reload the page`);
      ctx.state.servedBy = undefined;
      return next();
    }
    ctx.status = 200;
    ctx.type = file.type;
    ctx.set('Cache-Control', file.cacheControl);
    ctx.set('X-Content-Type-Options', 'nosniff');
    if (file.type === '.html') {
      ctx.set('Content-Security-Policy', CONSOLE_CSP);
      ctx.set('Referrer-Policy', 'no-referrer');
    }
    if (answeredNotModified(ctx, file.etag)) return;
    ctx.body = file.body;
  };
};
