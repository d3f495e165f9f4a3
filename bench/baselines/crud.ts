/**
 * Baseline (b): the CRUD service a team would write instead. Koa + @koa/router + better-sqlite3
 * with the embedded event store's durability (WAL, synchronous=FULL: a 200 means on disk), one
 * transaction per request, a bearer-key check (SHA-256 + timingSafeEqual, like the service's),
 * the body read with raw-body + JSON.parse, and an answer shaped like the service's.
 * Env: PORT, HOST, DATA_DIR, BENCH_API_KEY, BENCH_WORKSPACE_ID.
 */
import Router from '@koa/router';
import Database from 'better-sqlite3';
import Koa from 'koa';
import { createHash, randomUUID, timingSafeEqual } from 'node:crypto';
import { join } from 'node:path';
import getRawBody from 'raw-body';

const db = new Database(join(process.env.DATA_DIR ?? '.', 'crud.db'));
db.pragma('journal_mode = WAL');
db.pragma('synchronous = FULL');
db.exec(`
CREATE TABLE IF NOT EXISTS presets (
  id TEXT PRIMARY KEY, workspace_id TEXT NOT NULL, slug TEXT NOT NULL, creator_user_id TEXT NOT NULL,
  designated_version INTEGER NOT NULL, created_at TEXT NOT NULL, updated_at TEXT NOT NULL, UNIQUE (workspace_id, slug));
CREATE TABLE IF NOT EXISTS preset_versions (
  id TEXT PRIMARY KEY, preset_id TEXT NOT NULL, version INTEGER NOT NULL, config TEXT NOT NULL,
  system_prompt TEXT NOT NULL, creator_id TEXT NOT NULL, created_at TEXT NOT NULL, UNIQUE (preset_id, version));`);
const q = {
  preset: db.prepare('SELECT id FROM presets WHERE workspace_id = ? AND slug = ?'),
  insertPreset: db.prepare('INSERT INTO presets VALUES (?, ?, ?, ?, 1, ?, ?)'),
  current: db.prepare('SELECT MAX(version) AS v FROM preset_versions WHERE preset_id = ?'),
  insertVersion: db.prepare('INSERT INTO preset_versions VALUES (?, ?, ?, ?, ?, ?, ?)'),
  designate: db.prepare('UPDATE presets SET designated_version = ?, updated_at = ? WHERE id = ?'),
  joined: db.prepare(`SELECT p.id, p.workspace_id, p.slug, p.creator_user_id, p.created_at, p.updated_at,
      v.id AS version_id, v.version, v.config, v.system_prompt, v.creator_id, v.created_at AS version_created_at
    FROM presets p JOIN preset_versions v ON v.preset_id = p.id AND v.version = p.designated_version
    WHERE p.workspace_id = ? AND p.slug = ?`),
};
interface Joined {
  id: string;
  workspace_id: string;
  slug: string;
  creator_user_id: string;
  created_at: string;
  updated_at: string;
  version_id: string;
  version: number;
  config: string;
  system_prompt: string;
  creator_id: string;
  version_created_at: string;
}

const view = (r: Joined) => ({
  id: r.id,
  name: r.slug,
  slug: r.slug,
  description: null,
  status: 'active',
  status_updated_at: null,
  created_at: r.created_at,
  updated_at: r.updated_at,
  creator_user_id: r.creator_user_id,
  workspace_id: r.workspace_id,
  designated_version_id: r.version_id,
  designated_version: {
    id: r.version_id,
    preset_id: r.id,
    version: r.version,
    config: JSON.parse(r.config) as unknown,
    system_prompt: r.system_prompt,
    creator_id: r.creator_id,
    created_at: r.version_created_at,
    updated_at: r.version_created_at,
  },
});

/** Create (insert preset + version 1) or version (select current, insert next, update preset): one transaction. */
const write = db.transaction((workspace: string, slug: string, user: string, config: string, prompt: string): Joined => {
  const now = new Date().toISOString();
  const existing = q.preset.get(workspace, slug) as { id: string } | undefined;
  if (!existing) {
    const id = randomUUID();
    q.insertPreset.run(id, workspace, slug, user, now, now);
    q.insertVersion.run(randomUUID(), id, 1, config, prompt, user, now);
  } else {
    const next = (q.current.get(existing.id) as { v: number }).v + 1;
    q.insertVersion.run(randomUUID(), existing.id, next, config, prompt, user, now);
    q.designate.run(next, now, existing.id);
  }
  return q.joined.get(workspace, slug) as Joined;
});

const keyDigest = createHash('sha256')
  .update(process.env.BENCH_API_KEY ?? '')
  .digest();
const workspace = process.env.BENCH_WORKSPACE_ID ?? 'workspace';
const app = new Koa();
const router = new Router();
router.get('/health/ready', (ctx) => {
  ctx.body = { status: 'ready' };
});
const auth: Koa.Middleware = async (ctx, next) => {
  const token = /^Bearer (\S+)$/i.exec(ctx.get('authorization'))?.[1] ?? '';
  if (!timingSafeEqual(createHash('sha256').update(token).digest(), keyDigest)) ctx.throw(401);
  await next();
};
router.post('/api/v1/presets/:slug/chat/completions', auth, async (ctx) => {
  const raw = await getRawBody(ctx.req, { length: ctx.request.length, limit: 1024 * 1024 });
  const { messages, stream: _s, user: _u, metadata: _m, ...config } = JSON.parse(raw.toString('utf8')) as Record<string, unknown>;
  if (typeof config.model !== 'string' || !Array.isArray(messages)) ctx.throw(400, 'model and messages are required');
  const system = (messages as Array<{ role?: unknown; content?: unknown }>).find((m) => m.role === 'system');
  const prompt = typeof system?.content === 'string' ? system.content : '';
  ctx.body = { data: view(write(workspace, ctx.params.slug!, 'bench', JSON.stringify(config), prompt)) };
});
router.get('/api/v1/presets/:slug', auth, (ctx) => {
  const row = q.joined.get(workspace, ctx.params.slug!) as Joined | undefined;
  if (!row) ctx.throw(404);
  else ctx.body = { data: view(row) };
});

app.use(router.routes()).use(router.allowedMethods());
const server = app.listen(Number(process.env.PORT ?? 8082), process.env.HOST ?? '127.0.0.1');
process.on(
  'SIGTERM',
  () =>
    server.close(() => {
      db.close();
      process.exit(0);
    }) && server.closeAllConnections(),
);
