import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import Router from '@koa/router';
import { notFound } from '../errors';
import { answeredNotModified, contentEtag } from '../etag';
import { openApiDocument } from '../openapi';
import type { AppContext, AppState } from '../types';

/**
 * The service's contract and its reference page, without a key: GET /api/v1/openapi.json, and
 * GET /docs, Swagger UI from the swagger-ui-dist package, served from node_modules by the service
 * itself. The page and everything it loads come from this origin (its Content-Security-Policy
 * says so to the browser): no CDN.
 */
export const OPENAPI_PATH = '/api/v1/openapi.json';

const DOCS_HTML = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>presets API reference</title>
<link rel="icon" type="image/png" href="/docs/favicon-32x32.png">
<link rel="stylesheet" href="/docs/swagger-ui.css">
</head>
<body>
<div id="swagger-ui"></div>
<script src="/docs/swagger-ui-bundle.js"></script>
<script src="/docs/init.js"></script>
</body>
</html>
`;

// No validator badge: Swagger UI would fetch it from a third-party site.
const INIT_JS = `window.ui = SwaggerUIBundle({
  url: ${JSON.stringify(OPENAPI_PATH)},
  dom_id: '#swagger-ui',
  deepLinking: true,
  validatorUrl: null,
  presets: [SwaggerUIBundle.presets.apis],
  layout: 'BaseLayout',
});
`;

const CSP =
  "default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'; script-src 'self'; connect-src 'self'; " +
  "object-src 'none'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'";

const PACKAGE_FILES: Record<string, string> = {
  'swagger-ui.css': 'text/css; charset=utf-8',
  'swagger-ui-bundle.js': 'application/javascript; charset=utf-8',
  'favicon-32x32.png': 'image/png',
};

export const docsRoutes = (): Router<AppState, AppContext> => {
  const router = new Router<AppState, AppContext>();
  // Read on first use, then kept: a few MB, the same for the process's life.
  const files = new Map<string, Buffer>();
  const packageDir = () => dirname(require.resolve('swagger-ui-dist/package.json'));
  let documentJson: { text: string; etag: string } | undefined;

  router.get(OPENAPI_PATH, (ctx) => {
    if (!documentJson) {
      const text = JSON.stringify(openApiDocument());
      documentJson = { text, etag: contentEtag(text) };
    }
    ctx.set('Cache-Control', 'public, max-age=300');
    if (answeredNotModified(ctx, documentJson.etag)) return;
    ctx.type = 'application/json; charset=utf-8';
    ctx.body = documentJson.text;
  });

  router.get('/docs', (ctx) => {
    ctx.set('Content-Security-Policy', CSP);
    ctx.type = 'text/html; charset=utf-8';
    ctx.body = DOCS_HTML;
  });

  router.get('/docs/:asset', (ctx) => {
    const asset = ctx.params.asset!;
    if (asset === 'init.js') {
      ctx.type = 'application/javascript; charset=utf-8';
      ctx.body = INIT_JS;
      return;
    }
    // Own names only: `constructor` or `__proto__` would find Object's and read a file that is not there.
    const type = Object.hasOwn(PACKAGE_FILES, asset) ? PACKAGE_FILES[asset] : undefined;
    if (!type) throw notFound(`no file ${JSON.stringify(asset)} in the API reference`);
    let body = files.get(asset);
    if (!body) files.set(asset, (body = readFileSync(join(packageDir(), asset))));
    ctx.set('Cache-Control', 'public, max-age=86400');
    ctx.type = type;
    ctx.body = body;
  });
  return router;
};
