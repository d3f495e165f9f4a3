import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { hashApiKey } from '../../src/auth/keysFile';
import { verifyExport } from '../../src/audit/exportVerifier';
import { scrape } from '../support/prometheus';
import { KEYS, WORKSPACE_A, WORKSPACE_B, chatBody, useTestService } from '../support/service';

/**
 * The security review's findings 2 and 4 to 10 (issue 54), each as the reviewer played it against
 * the running service: every test here failed on the service before its guard. Finding 1 is
 * test/http/liveRevocation.test.ts, finding 3 test/http/insider.test.ts.
 */
const svc = useTestService();

type Init = Parameters<typeof svc.request>[1];
const call = async (path: string, init: Init = {}) => {
  const res = await svc.request(path, init);
  const text = await res.text();
  const isJson = (res.headers.get('content-type') ?? '').startsWith('application/json');
  return {
    status: res.status,
    text,
    body: isJson ? JSON.parse(text) : undefined,
  };
};
const paths = (body: { error: { metadata: { errors: { path: string }[] } } }): string[] =>
  body.error.metadata.errors.map((e: { path: string }) => e.path);
const errorLines = () => svc.logs.filter((l) => JSON.parse(l).level >= 50);
const preset = async (slug: string, key = KEYS.writer, temperature = 0.2) =>
  expect(
    (
      await call(`/api/v1/presets/${slug}/chat/completions`, {
        method: 'POST',
        json: chatBody({ temperature }),
        key,
      })
    ).status,
  ).toBeLessThan(300);
const makeKey = async (json: Record<string, unknown>, key = KEYS.admin) => {
  const res = await call('/api/v1/keys', {
    method: 'POST',
    json: {
      user_id: 'user-admin',
      scopes: ['presets:read'],
      workspaces: [WORKSPACE_A],
      ...json,
    },
    key,
  });
  expect(res.status).toBe(201);
  return res.body.data as { id: string; key: string; [k: string]: unknown };
};

describe('finding 2: a consumer group start past the largest position', () => {
  const PAST = '99999999999999999999';

  it('is a 400 at $.start that stores nothing, as ?after= on the feed', async () => {
    const before = errorLines().length;
    const res = await call('/api/v1/consumer-groups/too-far', {
      method: 'PUT',
      json: { start: PAST },
    });
    expect(res.status).toBe(400);
    expect(res.body.error.metadata.errors).toEqual([
      {
        path: '$.start',
        message: expect.stringMatching(/at most 9223372036854775807/),
      },
    ]);
    expect((await call('/api/v1/consumer-groups/too-far')).status).toBe(404);
    expect((await call('/api/v1/consumer-groups')).status).toBe(200);
    expect(errorLines().slice(before)).toEqual([]);
  });

  it('a group stored so by an earlier version takes down neither the list nor the metrics, and can be repaired', async () => {
    expect(
      (
        await call('/api/v1/consumer-groups/healthy', {
          method: 'PUT',
          json: {},
        })
      ).status,
    ).toBe(201);
    expect(
      (
        await call('/api/v1/consumer-groups/broken', {
          method: 'PUT',
          json: {},
        })
      ).status,
    ).toBe(201);
    // What the earlier version stored for {"start": PAST}: the group with that checkpoint.
    const db = new Database(join(svc.dataDir, 'webhooks.db'));
    try {
      const row = db.prepare('SELECT document FROM consumer_groups WHERE workspace_id = ? AND name = ?').get(WORKSPACE_A, 'broken') as {
        document: string;
      };
      const document = { ...JSON.parse(row.document), checkpoint: PAST };
      db.prepare('UPDATE consumer_groups SET document = ? WHERE workspace_id = ? AND name = ?').run(
        JSON.stringify(document),
        WORKSPACE_A,
        'broken',
      );
      // And one that is not even a group any more.
      db.prepare('INSERT INTO consumer_groups (workspace_id, name, revision, document) VALUES (?, ?, 0, ?)').run(
        WORKSPACE_A,
        'garbled',
        '{"name": 3}',
      );
    } finally {
      db.close();
    }

    const list = await call('/api/v1/consumer-groups');
    expect(list.status).toBe(200);
    expect(list.body.data.map((g: { name: string }) => g.name)).toContain('healthy');
    expect(list.body.unreadable).toEqual([
      { name: 'broken', message: expect.stringContaining(PAST) },
      { name: 'garbled', message: expect.any(String) },
    ]);
    // Another workspace's list and the operators' metrics are untouched.
    expect((await call('/api/v1/consumer-groups', { key: KEYS.otherWorkspace })).status).toBe(200);
    const metrics = await scrape(svc.metricsUrl);
    expect(metrics.value('presets_consumer_groups')).toBeGreaterThanOrEqual(2);
    expect(Number.isFinite(metrics.value('presets_consumer_group_lag_events'))).toBe(true);

    for (const [method, path] of [
      ['GET', '/api/v1/consumer-groups/broken'],
      ['POST', '/api/v1/consumer-groups/broken/fetch'],
      ['POST', '/api/v1/consumer-groups/broken/ack'],
    ] as const) {
      const res = await call(path, {
        method,
        ...(method === 'POST' ? { json: path.endsWith('ack') ? { position: '1' } : {} } : {}),
      });
      expect([path, res.status, res.body.error.metadata.reason]).toEqual([path, 409, 'group_unreadable']);
    }
    // A PUT with a start repairs it; a DELETE removes the garbled one.
    expect(
      (
        await call('/api/v1/consumer-groups/broken', {
          method: 'PUT',
          json: { start: 'beginning' },
        })
      ).status,
    ).toBe(200);
    expect((await call('/api/v1/consumer-groups/broken')).status).toBe(200);
    expect((await call('/api/v1/consumer-groups/garbled', { method: 'DELETE' })).status).toBe(204);
    expect((await call('/api/v1/consumer-groups')).body.unreadable).toEqual([]);
  });
});

describe('finding 5: usage reports name what exists, in a window, in bounded numbers', () => {
  const hour = (hoursAgo: number) => new Date(Math.floor(Date.now() / 3_600_000) * 3_600_000 - hoursAgo * 3_600_000).toISOString();
  const report = (counts: unknown[], key = KEYS.readerOnly) => call('/api/v1/usage', { method: 'POST', json: { counts }, key });
  const usageOf = async (slug: string) => (await call(`/api/v1/presets/${slug}/usage?from=${hour(200)}`)).body.data.totals;

  beforeAll(async () => {
    await preset('used');
    await preset('used', KEYS.writer, 0.3);
    expect(
      (
        await call('/api/v1/presets/used/labels/production', {
          method: 'PUT',
          json: { version: 2 },
        })
      ).status,
    ).toBe(200);
  });

  it('refuses versions and labels that do not exist, and hours outside the window, naming each, counting nothing', async () => {
    const res = await report([
      { slug: 'used', label: null, version: 1e300, hour: hour(0), count: 5 },
      { slug: 'used', label: null, version: 3, hour: hour(0), count: 5 },
      { slug: 'used', label: 'nope', version: 1, hour: hour(0), count: 5 },
      {
        slug: 'used',
        label: null,
        version: 1,
        hour: '0000-01-01T00:00:00.000Z',
        count: 5,
      },
      { slug: 'used', label: null, version: 1, hour: hour(49), count: 5 },
      {
        slug: 'used',
        label: 'production',
        version: 2,
        hour: hour(1),
        count: 5,
      },
    ]);
    expect(res.status).toBe(400);
    expect(paths(res.body)).toEqual([
      '$.counts[0].version',
      '$.counts[1].version',
      '$.counts[2].label',
      '$.counts[3].hour',
      '$.counts[4].hour',
    ]);
    expect(await usageOf('used')).toEqual([]);
  });

  it('takes what exists: a label, latest, a version number, in the last 48 hours', async () => {
    const res = await report([
      {
        slug: 'used',
        label: 'production',
        version: 2,
        hour: hour(1),
        count: 5,
      },
      { slug: 'used', label: 'latest', version: 2, hour: hour(47), count: 1 },
      { slug: 'used', label: null, version: 1, hour: hour(0), count: 2 },
    ]);
    expect(res.status).toBe(204);
    expect(await usageOf('used')).toEqual(
      expect.arrayContaining([
        { label: 'production', version: 2, count: 5 },
        { label: 'latest', version: 2, count: 1 },
        { label: null, version: 1, count: 2 },
      ]),
    );
  });

  it('caps the distinct rows of a preset in an hour (100), over several reports', async () => {
    const slug = 'many-versions';
    for (let i = 0; i < 34; i++) await preset(slug, KEYS.writer, i / 100);
    expect(
      (
        await call(`/api/v1/presets/${slug}/labels/canary`, {
          method: 'PUT',
          json: { version: 1 },
        })
      ).status,
    ).toBe(200);
    const rows = (label: string | null) =>
      Array.from({ length: 34 }, (_, i) => ({
        slug,
        label,
        version: i + 1,
        hour: hour(2),
        count: 1,
      }));
    expect((await report(rows(null))).status).toBe(204);
    expect((await report(rows('latest'))).status).toBe(204);
    // 68 rows held; 34 more would make 102.
    const over = await report(rows('canary'));
    expect(over.status).toBe(400);
    expect(over.body.error.message).toMatch(/100/);
    // The same rows again add up, they are not new rows.
    expect((await report(rows(null))).status).toBe(204);
    // Another hour is another 100.
    expect((await report(rows('canary').map((r) => ({ ...r, hour: hour(3) })))).status).toBe(204);
  });
});

describe('finding 6: the audit export carries no key hash', () => {
  it('leaves keySha256 out of ApiKeyCreated, says so on the line, and still verifies offline', async () => {
    const made = await makeKey({});
    const res = await call('/api/v1/audit/export', { key: KEYS.admin });
    expect(res.status).toBe(200);
    expect(res.text).not.toContain(hashApiKey(made.key));
    const lines = res.text
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    const created = lines.find((l) => l.type === 'ApiKeyCreated' && l.data.keyId === made.id);
    expect(created.data).not.toHaveProperty('keySha256');
    expect(created.redacted).toEqual({
      'data.keySha256': hashApiKey(made.key).slice(0, 12),
    });
    const publicKey = (await call('/api/v1/audit/public-key', { key: KEYS.admin })).body.data.public_key_pem;
    const verdict = await verifyExport(
      (async function* () {
        yield* res.text.split('\n');
      })(),
      publicKey,
    );
    expect(verdict).toMatchObject({ ok: true });
    // A redacted line changed elsewhere is still caught (its link is checked against the next one's).
    const tampered = res.text.replace(`"userId":"${created.data.userId}"`, '"userId":"someone-else"');
    const refused = await verifyExport(
      (async function* () {
        yield* tampered.split('\n');
      })(),
      publicKey,
    );
    expect(refused).toMatchObject({ ok: false });
  });
});

describe('finding 8: as_of never serves a preset that is not usable now', () => {
  const resolve = (slug: string, extra: Record<string, unknown> = {}) =>
    call('/api/v1/resolve/chat/completions', {
      method: 'POST',
      json: { model: `@preset/${slug}`, messages: [], ...extra },
    });

  it('a resolve as of before a disable or an archive answers as without as_of', async () => {
    await preset('incident');
    await preset('retired');
    await new Promise((r) => setTimeout(r, 20));
    const before = new Date().toISOString();
    await new Promise((r) => setTimeout(r, 20));
    expect(
      (
        await call('/api/v1/presets/incident', {
          method: 'PATCH',
          json: { status: 'disabled' },
        })
      ).status,
    ).toBe(200);
    expect((await call('/api/v1/presets/retired', { method: 'DELETE' })).status).toBe(200);
    for (const slug of ['incident', 'retired']) {
      const now = await resolve(slug);
      const then = await resolve(slug, { as_of: before });
      expect(now.status).toBe(409);
      expect([slug, then.status, then.body.error.metadata]).toEqual([slug, now.status, now.body.error.metadata]);
    }
  });

  it('GET as_of of an archived preset needs include_archived=true, like a plain GET', async () => {
    await preset('archived-then');
    const before = new Date().toISOString();
    await new Promise((r) => setTimeout(r, 20));
    expect((await call('/api/v1/presets/archived-then', { method: 'DELETE' })).status).toBe(200);
    const hidden = await call(`/api/v1/presets/archived-then?as_of=${encodeURIComponent(before)}`);
    expect(hidden.status).toBe(404);
    expect(hidden.body.error.metadata).toMatchObject({
      reason: 'preset_archived',
    });
    const shown = await call(`/api/v1/presets/archived-then?as_of=${encodeURIComponent(before)}&include_archived=true`);
    expect(shown.status).toBe(200);
    expect(shown.body.data.status).toBe('active');
  });
});

describe('finding 9: every audit route takes workspace_id', () => {
  it('exports, reports, verifies and checkpoints the workspace a key of several names', async () => {
    await preset('only-in-b', KEYS.otherWorkspace);
    const q = `workspace_id=${WORKSPACE_B}`;
    const exported = await call(`/api/v1/audit/export?${q}`, {
      key: KEYS.admin,
    });
    expect(exported.status).toBe(200);
    const end = JSON.parse(exported.text.trim().split('\n').at(-1)!);
    expect(end.workspace_id).toBe(WORKSPACE_B);
    expect(exported.text).toContain(`preset-${WORKSPACE_B}-only-in-b`);
    expect(exported.text).not.toContain(`preset-${WORKSPACE_A}-`);
    const report = await call(`/api/v1/audit/report?${q}&format=json`, {
      key: KEYS.admin,
    });
    expect(report.status).toBe(200);
    expect(report.body.data.some((r: { preset: string }) => r.preset === 'only-in-b')).toBe(true);
    expect((await call(`/api/v1/audit/report?${q}&format=csv`, { key: KEYS.admin })).status).toBe(200);
    expect((await call(`/api/v1/audit/verify?${q}`, { key: KEYS.admin })).status).toBe(200);
    expect((await call(`/api/v1/audit/public-key?${q}`, { key: KEYS.admin })).status).toBe(200);
    expect(
      (
        await call(`/api/v1/audit/checkpoints?${q}`, {
          method: 'POST',
          key: KEYS.admin,
        })
      ).status,
    ).toBeLessThan(300);
    // Still only a workspace the key holds.
    expect(
      (
        await call(`/api/v1/audit/export?workspace_id=${randomUUID()}`, {
          key: KEYS.admin,
        })
      ).status,
    ).toBe(403);
  });
});
