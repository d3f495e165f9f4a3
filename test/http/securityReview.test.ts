import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { hashApiKey } from '#src/auth/keysFile';
import { verifyExport } from '#src/audit/exportVerifier';
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
const storedCount = async () => (await svc.eventStore.readAll({ limit: 100_000 })).length;
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

describe('finding 4: key events belong to every workspace the key holds', () => {
  it('a key made for B by a key acting in A is recorded in both; its revoke by B goes to B, not A', async () => {
    const made = await makeKey({ workspaces: [WORKSPACE_B] });
    const keysEvents = async (key: string) =>
      (
        (await call('/api/v1/keys/events?limit=1000', { key })).body.data as {
          type: string;
          data: { keyId: string };
        }[]
      )
        .filter((e) => e.data.keyId === made.id)
        .map((e) => e.type);
    expect(await keysEvents(KEYS.otherWorkspace)).toEqual(['ApiKeyCreated']);
    expect(await keysEvents(KEYS.writer)).toEqual(['ApiKeyCreated']);
    // B's feed, audit export and report show it.
    const feedB = (await call('/api/v1/events?limit=1000', { key: KEYS.otherWorkspace })).text;
    expect(feedB).toContain(made.id);
    const exportB = (await call('/api/v1/audit/export', { key: KEYS.otherWorkspace })).text;
    expect(exportB).toContain(made.id);
    const reportB = (await call('/api/v1/audit/report', { key: KEYS.otherWorkspace })).body.data as { event: string; to: string }[];
    expect(reportB.some((r) => r.event === 'ApiKeyCreated' && r.to.includes(made.id))).toBe(true);

    // Revoked by the admin acting in B: written to B (the key's and the revoker's workspace), not to A.
    expect(
      (
        await call(`/api/v1/keys/${made.id}?workspace_id=${WORKSPACE_B}`, {
          method: 'DELETE',
          key: KEYS.admin,
        })
      ).status,
    ).toBe(200);
    expect(await keysEvents(KEYS.otherWorkspace)).toEqual(['ApiKeyCreated', 'ApiKeyRevoked']);
    expect(await keysEvents(KEYS.writer)).toEqual(['ApiKeyCreated']);
    expect((await call('/api/v1/presets', { key: made.key })).status).toBe(401);
  });

  it('a key holding A and B is recorded in each, and so is its revoke', async () => {
    const made = await makeKey({ workspaces: [WORKSPACE_A, WORKSPACE_B] });
    expect(
      (
        await call(`/api/v1/keys/${made.id}`, {
          method: 'DELETE',
          key: KEYS.admin,
        })
      ).status,
    ).toBe(200);
    for (const key of [KEYS.writer, KEYS.otherWorkspace]) {
      const events = (await call('/api/v1/keys/events?limit=1000', { key })).body.data as { type: string; data: { keyId: string } }[];
      expect(events.filter((e) => e.data.keyId === made.id).map((e) => e.type)).toEqual(['ApiKeyCreated', 'ApiKeyRevoked']);
    }
    // Listed once, in each workspace.
    for (const ws of [WORKSPACE_A, WORKSPACE_B]) {
      const listed = (await call(`/api/v1/keys?workspace_id=${ws}`, { key: KEYS.admin })).body.data as { id: string }[];
      expect(listed.filter((k) => k.id === made.id)).toHaveLength(1);
    }
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

describe('finding 7: key events name the acting key; user ids are printable text', () => {
  it('puts the acting key id on ApiKeyCreated and ApiKeyRevoked, so the report can tell keys apart', async () => {
    const made = await makeKey({ user_id: 'report-user' });
    expect(
      (
        await call(`/api/v1/keys/${made.id}`, {
          method: 'DELETE',
          key: KEYS.admin,
        })
      ).status,
    ).toBe(200);
    const adminKeyId = hashApiKey(KEYS.admin).slice(0, 12);
    const events = (await call('/api/v1/keys/events?limit=1000', { key: KEYS.admin })).body.data as {
      type: string;
      data: { keyId: string };
      metadata: { keyId?: string };
    }[];
    expect(events.filter((e) => e.data.keyId === made.id).map((e) => [e.type, e.metadata.keyId])).toEqual([
      ['ApiKeyCreated', adminKeyId],
      ['ApiKeyRevoked', adminKeyId],
    ]);
    const rows = (await call('/api/v1/audit/report', { key: KEYS.admin })).body.data as {
      event: string;
      key_id: string | null;
      to: string | null;
      from: string | null;
    }[];
    const mine = rows.filter((r) => (r.to ?? '').includes(made.id) || (r.from ?? '').includes(made.id));
    expect(mine.map((r) => [r.event, r.key_id])).toEqual([
      ['ApiKeyCreated', adminKeyId],
      ['ApiKeyRevoked', adminKeyId],
    ]);
  });

  it.each([
    ['a NUL', 'a\u0000b'],
    ['a newline', 'alice\nadmin'],
    ['markup', '<img src=x onerror=alert(1)>'],
    ['a space', 'alice admin'],
    ['201 characters', 'u'.repeat(201)],
  ])('refuses a user_id with %s at $.user_id, storing nothing', async (_what, userId) => {
    const before = await storedCount();
    const res = await call('/api/v1/keys', {
      method: 'POST',
      json: {
        user_id: userId,
        scopes: ['presets:read'],
        workspaces: [WORKSPACE_A],
      },
      key: KEYS.admin,
    });
    expect(res.status).toBe(400);
    expect(paths(res.body)).toEqual(['$.user_id']);
    expect(await storedCount()).toBe(before);
  });

  it('takes ids such as an e-mail address or an identity provider subject', async () => {
    for (const userId of ['ann@example.com', 'auth0|5f7c8ec7c33c6c004bbafe82', 'user_9b2e-01.x']) {
      expect((await makeKey({ user_id: userId })).user_id).toBe(userId);
    }
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

describe('finding 10: the smaller ones', () => {
  it('refuses a key whose workspaces repeat by letter case, storing nothing', async () => {
    const before = await storedCount();
    const res = await call('/api/v1/keys', {
      method: 'POST',
      json: {
        user_id: 'user-admin',
        scopes: ['presets:read'],
        workspaces: [WORKSPACE_A, WORKSPACE_A.toUpperCase()],
      },
      key: KEYS.admin,
    });
    expect(res.status).toBe(400);
    expect(paths(res.body)).toEqual(['$.workspaces[1]']);
    expect(await storedCount()).toBe(before);
    // One spelled in capitals is the same workspace, stored as the maker's key spells it.
    const upper = await makeKey({ workspaces: [WORKSPACE_A.toUpperCase()] });
    expect(upper.workspaces).toEqual([WORKSPACE_A]);
  });

  it('lets no plain writer archive or disable a preset whose label or designation is protected', async () => {
    for (const [slug, protection] of [
      ['guarded-label', '/labels/production/protection'],
      ['guarded-designation', '/designation/protection'],
    ] as const) {
      await preset(slug);
      if (slug === 'guarded-label') {
        expect(
          (
            await call(`/api/v1/presets/${slug}/labels/production`, {
              method: 'PUT',
              json: { version: 1 },
            })
          ).status,
        ).toBe(200);
      }
      const protect = await call(`/api/v1/presets/${slug}${protection}`, {
        method: 'PUT',
        json: { protected: true, approvals: 0 },
        key: KEYS.releaseAnn,
      });
      expect(protect.status).toBe(200);
      const before = await storedCount();
      for (const [method, json] of [
        ['DELETE', undefined],
        ['PATCH', { status: 'disabled' }],
        ['PATCH', { status: 'archived' }],
      ] as const) {
        const res = await call(`/api/v1/presets/${slug}`, {
          method,
          json,
          key: KEYS.writer,
        });
        expect([slug, method, res.status, res.body.error.metadata.reason]).toEqual([slug, method, 403, 'protected']);
      }
      expect(await storedCount()).toBe(before);
      // A releaser may, under the rules of a move (here: at once, as approvals are 0).
      expect(
        (
          await call(`/api/v1/presets/${slug}`, {
            method: 'PATCH',
            json: { status: 'disabled' },
            key: KEYS.releaseAnn,
          })
        ).status,
      ).toBe(200);
      // A name or a description is no release.
      expect(
        (
          await call(`/api/v1/presets/${slug}`, {
            method: 'PATCH',
            json: { description: 'still mine' },
          })
        ).status,
      ).toBe(200);
    }
  });

  it('revoking a key leaves the keys it made working (they are listed with their maker)', async () => {
    const parent = await makeKey({ scopes: ['keys:manage', 'presets:read'] });
    const child = await makeKey({}, parent.key);
    expect(child).toMatchObject({
      created_by: 'user-admin',
      created_by_key_id: parent.id,
    });
    expect(
      (
        await call(`/api/v1/keys/${parent.id}`, {
          method: 'DELETE',
          key: KEYS.admin,
        })
      ).status,
    ).toBe(200);
    expect((await call('/api/v1/presets', { key: parent.key })).status).toBe(401);
    expect((await call('/api/v1/presets', { key: child.key })).status).toBe(200);
    const listed = (await call('/api/v1/keys', { key: KEYS.admin })).body.data as { id: string; created_by_key_id: string | null }[];
    expect(listed.filter((k) => k.created_by_key_id === parent.id).map((k) => k.id)).toEqual([child.id]);
  });
});
