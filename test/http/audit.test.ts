import { execFile } from 'node:child_process';
import { createHash, createPublicKey, verify as verifySignature } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { canonicalize } from 'json-canonicalize';
import { useApiSpecification, startApiSpecification, type ApiSpecification } from '../support/apiSpecification';
import { KEYS, chatBody } from '../support/service';

/**
 * The audit API over HTTP, and the offline verifier on what it exports: `presets-audit` as built
 * (dist/scripts/presets-audit.js, what `npx presets-audit` runs), as a child process with nothing
 * but the export and the public key.
 */
const run = promisify(execFile);
const VERIFIER = join(__dirname, '..', '..', 'dist', 'scripts', 'presets-audit.js');
const svc = useApiSpecification();
/** Where the offline verifier's inputs are written: files of the test's, not the service's. */
let scratch: string;
beforeAll(() => {
  scratch = mkdtempSync(join(tmpdir(), 'presets-audit-offline-'));
});
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

beforeAll(async () => {
  const ok = async (res: Promise<Response>) => expect((await res).status).toBeLessThan(300);
  // Every preset event type, by the writer's key.
  await ok(svc.request('/api/v1/presets/bot/chat/completions', { method: 'POST', json: chatBody({ temperature: 0.1 }) }));
  await ok(svc.request('/api/v1/presets/bot/chat/completions', { method: 'POST', json: chatBody({ temperature: 0.2 }) }));
  await ok(svc.request('/api/v1/presets/bot/designated-version', { method: 'PUT', json: { version: 1, note: 'rollback' } }));
  await ok(svc.request('/api/v1/presets/bot', { method: 'PATCH', json: { name: 'Bot', description: 'Answers.' } }));
  await ok(svc.request('/api/v1/presets/bot/labels/production', { method: 'PUT', json: { version: 2 } }));
  await ok(svc.request('/api/v1/presets/bot/labels/production', { method: 'DELETE' }));
  await ok(svc.request('/api/v1/presets/other/chat/completions', { method: 'POST', json: chatBody() }));
  await ok(svc.request('/api/v1/presets/other', { method: 'PATCH', json: { status: 'disabled' } }));
  // Another workspace's preset, which no answer here may show.
  await ok(svc.request('/api/v1/presets/secret/chat/completions', { method: 'POST', json: chatBody(), key: KEYS.otherWorkspace }));
});

const json = async (path: string, init: Parameters<ApiSpecification['request']>[1] = {}) => {
  const res = await svc.request(path, init);
  return { status: res.status, body: await res.json() };
};
const text = async (path: string) => {
  const res = await svc.request(path);
  expect(res.status).toBe(200);
  return { type: res.headers.get('content-type'), body: await res.text() };
};
const publicKeyFile = async () => {
  const { body } = await json('/api/v1/audit/public-key');
  const file = join(scratch, 'public.pem');
  writeFileSync(file, body.data.public_key_pem);
  return file;
};
const verifyOffline = async (lines: string) => {
  const file = join(scratch, `export-${Math.random().toString(36).slice(2)}.ndjson`);
  writeFileSync(file, lines);
  try {
    const { stdout } = await run(process.execPath, [VERIFIER, 'verify', file, '--public-key', await publicKeyFile()]);
    return { code: 0, stdout };
  } catch (error) {
    const e = error as { code: number; stdout: string };
    return { code: e.code, stdout: e.stdout };
  }
};

describe('GET /api/v1/audit/verify', () => {
  it("verifies the workspace's chains and checkpoints after a mixed run of every event type", async () => {
    expect((await json('/api/v1/audit/checkpoints', { method: 'POST' })).status).toBe(201);
    // The other workspace's checkpoint is its own: neither counted nor read here.
    expect((await json('/api/v1/audit/checkpoints', { method: 'POST', key: KEYS.otherWorkspace })).status).toBe(201);
    const { status, body } = await json('/api/v1/audit/verify');
    expect(status).toBe(200);
    // 8 preset events and one checkpoint; the other workspace's event is not this workspace's to verify.
    expect(body.data).toMatchObject({ ok: true, events: 9, streams: 3, checkpoints: 1 });
  });

  it('needs the audit:read scope', async () => {
    const { status, body } = await json('/api/v1/audit/verify', { key: KEYS.readerOnly });
    expect(status).toBe(403);
    expect(body.error.metadata.required_scope).toBe('audit:read');
  });
});

describe('POST /api/v1/audit/checkpoints', () => {
  it('records the head of each stream changed since the last checkpoint, or answers the last one when nothing changed', async () => {
    await json('/api/v1/audit/checkpoints', { method: 'POST' });
    const again = await json('/api/v1/audit/checkpoints', { method: 'POST' });
    expect(again.status).toBe(200);
    await svc.request('/api/v1/presets/bot/chat/completions', { method: 'POST', json: chatBody({ temperature: 0.9 }) });
    const made = await json('/api/v1/audit/checkpoints', { method: 'POST' });
    expect(made.status).toBe(201);
    const { heads, digest, after, through } = made.body.data;
    expect(heads).toEqual([{ stream: expect.stringMatching(/-bot$/), revision: 6, hash: expect.stringMatching(/^[0-9a-f]{64}$/) }]);
    expect(BigInt(through) > BigInt(after)).toBe(true);
    // The digest is SHA-256 of the heads' RFC 8785 JSON, as docs/events.md says.
    expect(digest).toBe(createHash('sha256').update(canonicalize(heads)).digest('hex'));
    // The head's hash is the one the event carries in the feed.
    const events = await json('/api/v1/presets/bot/events');
    expect(events.body.data.at(-1).metadata.hash).toBe(heads[0].hash);
  });
});

describe('GET /api/v1/audit/export and npx presets-audit verify', () => {
  it('streams NDJSON that the offline verifier accepts, with its summary', async () => {
    const { type, body } = await text('/api/v1/audit/export');
    expect(type).toMatch(/^application\/x-ndjson/);
    const lines = body
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l));
    const end = lines.at(-1);
    expect(end).toMatchObject({ kind: 'end', count: lines.length - 1, algorithm: 'Ed25519' });
    expect(lines.slice(0, -1).every((l) => l.kind === 'event' && !l.stream.includes('secret'))).toBe(true);
    // The signature checks with node:crypto and the published key, over the closing line's RFC 8785 JSON.
    const { signature, ...unsigned } = end;
    const { body: key } = await json('/api/v1/audit/public-key');
    expect(
      verifySignature(
        null,
        Buffer.from(canonicalize(unsigned)),
        createPublicKey(key.data.public_key_pem),
        Buffer.from(signature, 'base64'),
      ),
    ).toBe(true);
    const verdict = await verifyOffline(body);
    expect(verdict.code).toBe(0);
    expect(verdict.stdout).toContain(`VALID: signed by key ${key.data.key_id} (Ed25519); ${lines.length - 1} events`);
    expect(verdict.stdout).toMatch(/PresetCreated 2, .*PresetLabelMoved 1, PresetLabelRemoved 1/);
    expect(verdict.stdout).toContain('actors (1): user-writer');
  });

  it('is refused by the offline verifier when one line is changed, removed or the closing line is cut', async () => {
    const { body } = await text('/api/v1/audit/export');
    const lines = body.trimEnd().split('\n');
    const changed = [...lines];
    changed[1] = changed[1]!.replace('"temperature":0.2', '"temperature":0.3');
    expect(changed[1]).not.toBe(lines[1]);
    const edited = await verifyOffline(`${changed.join('\n')}\n`);
    expect(edited.code).toBe(1);
    expect(edited.stdout).toMatch(/^INVALID: line 2: .*does not match its chain hash/);

    const removed = await verifyOffline(`${[...lines.slice(0, 1), ...lines.slice(2)].join('\n')}\n`);
    expect(removed.code).toBe(1);
    expect(removed.stdout).toMatch(/^INVALID: line 2: .*does not follow/);

    const cut = await verifyOffline(`${lines.slice(0, -1).join('\n')}\n`);
    expect(cut.code).toBe(1);
    expect(cut.stdout).toContain('no closing line');
  });

  it('exports one preset, or a time range, each signed', async () => {
    const one = await text('/api/v1/audit/export?stream=other');
    const lines = one.body
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lines.slice(0, -1).map((l) => l.type)).toEqual(['PresetCreated', 'PresetStatusChanged']);
    expect((await verifyOffline(one.body)).code).toBe(0);

    const future = new Date(Date.now() + 3600_000).toISOString();
    const empty = await text(`/api/v1/audit/export?from=${encodeURIComponent(future)}`);
    expect(empty.body.trimEnd().split('\n')).toHaveLength(1);
    expect((await verifyOffline(empty.body)).stdout).toContain('0 events');
  });

  it('refuses bad parameters in the error envelope, naming each', async () => {
    const { status, body } = await json('/api/v1/audit/export?from=yesterday&to=2020-01-01T00:00:00Z&stream=%20&page=2');
    expect(status).toBe(400);
    expect(body.error.metadata.errors.map((e: { path: string }) => e.path).sort()).toEqual(['from', 'page', 'stream']);
    const reversed = await json('/api/v1/audit/export?from=2021-01-01T00:00:00Z&to=2020-01-01T00:00:00Z');
    expect(reversed.body.error.metadata.errors).toEqual([{ path: 'to', message: 'must not be before from' }]);
  });
});

describe('GET /api/v1/audit/report', () => {
  it('has one row per event: time, actor, key id, preset, event, from → to', async () => {
    const { status, body } = await json('/api/v1/audit/report');
    expect(status).toBe(200);
    const rows = body.data as Record<string, unknown>[];
    expect(
      rows.every((r) => r.actor === 'user-writer' && r.key_id === createHash('sha256').update(KEYS.writer).digest('hex').slice(0, 12)),
    ).toBe(true);
    const pick = (event: string) => rows.find((r) => r.event === event)!;
    expect(pick('PresetVersionDesignated')).toMatchObject({ preset: 'bot', from: 'version 2', to: 'version 1' });
    expect(pick('PresetLabelMoved')).toMatchObject({ from: null, to: 'production → version 2' });
    expect(pick('PresetLabelRemoved')).toMatchObject({ from: 'production → version 2', to: null });
    expect(pick('PresetStatusChanged')).toMatchObject({ preset: 'other', from: 'active', to: 'disabled' });
    expect(rows.some((r) => r.preset === 'secret')).toBe(false);
  });

  it('as CSV, with a header row, quoting what needs it', async () => {
    const { type, body } = await text('/api/v1/audit/report?format=csv');
    expect(type).toMatch(/^text\/csv/);
    const [header, ...rows] = body.trimEnd().split('\n');
    expect(header).toBe('time,actor,key_id,preset,event,from,to,revision,position');
    expect(rows.find((r) => r.includes('PresetDetailsChanged'))).toContain('"name ""Bot"", description ""Answers."""');
  });

  it('takes a range, and refuses an unknown format', async () => {
    const future = new Date(Date.now() + 3600_000).toISOString();
    expect((await json(`/api/v1/audit/report?from=${encodeURIComponent(future)}`)).body).toEqual({ data: [] });
    const bad = await json('/api/v1/audit/report?format=xml');
    expect(bad.status).toBe(400);
    expect(bad.body.error.metadata.errors[0].path).toBe('format');
  });
});

describe('periodic checkpoints (AUDIT_CHECKPOINT_INTERVAL_MS)', () => {
  it('records one for a workspace that changed, within a few intervals, and none while nothing changes', async () => {
    const periodic = await startApiSpecification({ AUDIT_CHECKPOINT_INTERVAL_MS: '100' });
    try {
      expect((await periodic.request('/api/v1/presets/tick/chat/completions', { method: 'POST', json: chatBody() })).status).toBe(200);
      const checkpoints = async () =>
        ((await (await periodic.request('/api/v1/audit/verify')).json()) as { data: { checkpoints: number } }).data.checkpoints;
      const deadline = Date.now() + 10_000;
      while ((await checkpoints()) === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
      expect(await checkpoints()).toBe(1);
      await new Promise((r) => setTimeout(r, 400));
      expect(await checkpoints()).toBe(1);
      expect(periodic.logs.join('')).toContain('audit checkpoints recorded');
    } finally {
      await periodic.close();
    }
  });
});
