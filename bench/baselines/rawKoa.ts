/**
 * Baseline (a): the ceiling for any Koa service on this machine. Koa + @koa/router + a JSON body
 * parser (raw-body + JSON.parse, as the service reads bodies), answering a small JSON document.
 * No auth, no storage, no validation.  PORT and HOST from the environment.
 */
import Router from '@koa/router';
import Koa from 'koa';
import getRawBody from 'raw-body';

const app = new Koa();
const router = new Router();

router.get('/health/ready', (ctx) => {
  ctx.body = { status: 'ready' };
});
router.post('/api/v1/presets/:slug/chat/completions', async (ctx) => {
  const raw = await getRawBody(ctx.req, { length: ctx.request.length, limit: 1024 * 1024 });
  const body = JSON.parse(raw.toString('utf8')) as { model?: unknown };
  ctx.body = { data: { slug: ctx.params.slug, model: body.model ?? null, version: 1 } };
});
// The resolve bench's POST: the same body read the same way, a small JSON answer.
router.post('/api/v1/resolve/chat/completions', async (ctx) => {
  const raw = await getRawBody(ctx.req, { length: ctx.request.length, limit: 1024 * 1024 });
  const body = JSON.parse(raw.toString('utf8')) as { model?: unknown };
  ctx.body = { data: { request: { model: body.model ?? null }, preset: { version: 1 }, dropped: [] } };
});
router.get('/api/v1/presets/:slug', (ctx) => {
  ctx.body = { data: { slug: ctx.params.slug, name: ctx.params.slug, status: 'active', designated_version: { version: 1 } } };
});

app.use(router.routes()).use(router.allowedMethods());
const server = app.listen(Number(process.env.PORT ?? 8081), process.env.HOST ?? '127.0.0.1');
process.on('SIGTERM', () => {
  server.close(() => process.exit(0));
  server.closeAllConnections();
});
