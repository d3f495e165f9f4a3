import Database from 'better-sqlite3';
import { mkdtempSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { call, freePort, spawnService, waitReady, writeChildKeys, type Answer, type Child } from '../support/process';

/**
 * SIGTERM under load, against the real process: requests the server has read get their complete
 * answer, new connections are refused at once, and the process exits 0. A request that failed at
 * the client must have left no trace (no event, no request log line): it was never read.
 */
jest.setTimeout(60_000);
const body = (n: number) => JSON.stringify({ model: 'm/x', seed: n, messages: [{ role: 'system', content: 'shutdown test' }] });

/** Headers and half the body now, the rest on `finish()`: certainly in flight when SIGTERM comes. */
const slowPost = (base: string, key: string, slug: string, requestId: string) => {
  const whole = Buffer.from(body(0));
  let finish = () => {};
  const answer = new Promise<Answer>((resolve, reject) => {
    const req = request(
      `${base}/api/v1/presets/${slug}/chat/completions`,
      {
        method: 'POST',
        agent: false,
        timeout: 30_000,
        headers: {
          authorization: `Bearer ${key}`,
          'content-type': 'application/json',
          'content-length': String(whole.length),
          'x-request-id': requestId,
        },
      },
      (res) => {
        const parts: Buffer[] = [];
        res.on('data', (c: Buffer) => parts.push(c));
        res.on('end', () =>
          resolve({
            status: res.statusCode!,
            headers: res.headers,
            text: Buffer.concat(parts).toString(),
            json: JSON.parse(Buffer.concat(parts).toString()),
          }),
        );
      },
    );
    req.on('error', reject);
    req.write(whole.subarray(0, whole.length >> 1));
    finish = () => req.end(whole.subarray(whole.length >> 1));
  });
  return { answer, finish: () => finish() };
};

let dataDir: string;
let child: Child | undefined;
afterAll(() => {
  if (child && child.proc.exitCode === null) child.proc.kill('SIGKILL');
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

it('SIGTERM mid-load: in-flight requests complete, new connections are refused, exit 0', async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'presets-shutdown-'));
  const keys = writeChildKeys(dataDir);
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  child = spawnService({ PORT: String(port), DATA_DIR: dataDir, API_KEYS_FILE: keys.file, SHUTDOWN_TIMEOUT_MS: '20000' });
  await waitReady(base, child);

  const slow = Array.from({ length: 10 }, (_, i) => slowPost(base, keys.plain, `slow-${i}`, `slow-${i}`));
  await sleep(500); // their headers have been read: the server counts them as in flight
  let answered = 0;
  const fast = Array.from({ length: 40 }, (_, i) =>
    call(base, 'POST', `/api/v1/presets/fast-${i % 5}/chat/completions`, {
      key: keys.hashed,
      json: JSON.parse(body(i)),
      requestId: `fast-${i}`,
    })
      .then(
        (a) => ({ i, a }),
        (error: Error & { code?: string }) => ({ i, error }),
      )
      .finally(() => {
        answered++;
      }),
  );
  for (let t = 0; answered < 20 && t < 400; t++) await sleep(5); // mid-way through the burst
  child.proc.kill('SIGTERM');
  await sleep(300);

  expect(child.proc.exitCode).toBeNull(); // still finishing the slow requests...
  await expect(call(base, 'GET', '/health/live', { timeoutMs: 2000 })).rejects.toMatchObject({ code: 'ECONNREFUSED' }); // ...but closed to new ones
  for (const s of slow) s.finish();
  const slowAnswers = await Promise.all(slow.map((s) => s.answer));
  for (const a of slowAnswers) {
    expect(a.status).toBe(200);
    expect(a.json.data.designated_version.version).toBe(1);
  }
  const fastResults = await Promise.all(fast);
  expect(await child.exited).toEqual({ code: 0, signal: null });

  const output = child.output();
  const db = new Database(join(dataDir, 'events.db'), { readonly: true });
  const stored = new Set(
    (db.prepare('SELECT metadata FROM events').all() as Array<{ metadata: string }>).map((r) => JSON.parse(r.metadata).requestId as string),
  );
  db.close();
  for (let i = 0; i < 10; i++) expect(stored.has(`slow-${i}`)).toBe(true);
  let failed = 0;
  const codes: string[] = [];
  for (const r of fastResults) {
    if ('a' in r) {
      // A complete answer: a 2xx with the preset, or a 409 in the envelope (lost a race on its slug).
      expect([200, 202, 409]).toContain(r.a.status);
      if (r.a.status === 409) expect(r.a.json.error.code).toBe(409);
      else expect(stored.has(`fast-${r.i}`)).toBe(true);
    } else {
      failed++;
      codes.push(r.error.code!);
      expect(['ECONNREFUSED', 'ECONNRESET']).toContain(r.error.code);
      expect(stored.has(`fast-${r.i}`)).toBe(false);
      expect(output).not.toContain(`"requestId":"fast-${r.i}"`);
    }
  }
  expect(output).toContain('"msg":"stopped"');
  console.log(
    `shutdown under load: ${40 - failed} of 40 fast requests answered, ${failed} failed before being read (${codes.join(', ') || 'none'}); 10/10 slow completed`,
  );
});

it('SIGTERM with an event stream open: the stream ends cleanly and the process exits without waiting for the shutdown timeout', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'presets-shutdown-sse-'));
  const keys = writeChildKeys(dir);
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const sse = spawnService({ PORT: String(port), DATA_DIR: dir, API_KEYS_FILE: keys.file, SHUTDOWN_TIMEOUT_MS: '60000' });
  try {
    await waitReady(base, sse);
    const res = await fetch(`${base}/api/v1/events`, { headers: { accept: 'text/event-stream', authorization: `Bearer ${keys.plain}` } });
    expect(res.status).toBe(200);
    const reader = res.body!.getReader();
    expect(new TextDecoder().decode((await reader.read()).value)).toContain('retry: 1000');
    const started = Date.now();
    sse.proc.kill('SIGTERM');
    // The stream ends (done), not with an error: a consumer reconnects to another replica.
    for (let part = await reader.read(); !part.done; part = await reader.read());
    expect(await sse.exited).toEqual({ code: 0, signal: null });
    // An open stream does not hold the shutdown for its timeout (a minute here): half of it is room enough.
    expect(Date.now() - started).toBeLessThan(30_000);
  } finally {
    if (sse.proc.exitCode === null) sse.proc.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  }
});
