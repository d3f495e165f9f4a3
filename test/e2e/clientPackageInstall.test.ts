import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { useApiSpecification } from '../support/apiSpecification';
import { KEYS } from '../support/service';

/**
 * The `presets-client` package (packages/client) as a gateway or a CI job installs it: packed by
 * npm (its prepack builds it from src/client), installed from the tarball into an empty directory
 * with nothing but its own dependencies (no native build, no server driver, no Koa or Vite), then
 * `npx presets --help` and a client resolve against a test service on a loopback port.
 */
const svc = useApiSpecification({}, { served: true });
const run = promisify(execFile);
const ROOT = join(__dirname, '..', '..');
const NPM = process.platform === 'win32' ? 'npm.cmd' : 'npm';
const NPX = process.platform === 'win32' ? 'npx.cmd' : 'npx';

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'presets-client-install-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

it('packs, installs in an empty directory with only its own dependencies, and runs', async () => {
  const packed = await run(NPM, ['pack', '--json', '--pack-destination', dir], {
    cwd: join(ROOT, 'packages', 'client'),
    maxBuffer: 16 << 20,
  });
  const [{ filename, files }] = JSON.parse(packed.stdout.slice(packed.stdout.indexOf('['))) as [
    { filename: string; files: { path: string }[] },
  ];
  expect(files.map((f) => f.path)).toEqual(
    expect.arrayContaining(['package.json', 'dist/index.js', 'dist/bin.js', 'dist/types/src/client/index.d.ts']),
  );
  expect(files.filter((f) => !f.path.startsWith('dist/') && f.path !== 'package.json')).toEqual([]);

  const app = join(dir, 'gateway');
  rmSync(app, { recursive: true, force: true });
  mkdirSync(app);
  writeFileSync(join(app, 'package.json'), JSON.stringify({ name: 'gateway', private: true }));
  await run(NPM, ['install', '--prefer-offline', '--no-audit', '--no-fund', join(dir, filename)], { cwd: app, maxBuffer: 16 << 20 });
  const installed = readdirSync(join(app, 'node_modules')).filter((n) => !n.startsWith('.'));
  for (const server of ['better-sqlite3', '@eventstore', 'mongodb', 'koa', '@koa', 'vite', 'rolldown', 'dotprompt', 'pino']) {
    expect({ server, installed: installed.includes(server) }).toEqual({ server, installed: false });
  }
  expect(existsSync(join(app, 'node_modules', 'presets-client', 'dist', 'types', 'src', 'client', 'index.d.ts'))).toBe(true);

  const help = await run(NPX, ['--no-install', 'presets', '--help'], { cwd: app });
  expect(help.stdout).toContain('presets push <dir>');

  const created = await svc.request('/api/v1/presets/packaged/chat/completions', {
    method: 'POST',
    json: { model: 'openai/gpt-4o', temperature: 0.2, messages: [{ role: 'system', content: 'Be brief.' }] },
  });
  expect(created.status).toBe(200);
  const body = { model: '@preset/packaged', messages: [{ role: 'user', content: 'hi' }] };
  const script = `
    const { createPresetClient } = require('presets-client');
    const client = createPresetClient({ baseUrl: process.env.PRESETS_URL, apiKey: process.env.PRESETS_API_KEY });
    client.resolve('chat_completions', ${JSON.stringify(body)})
      .then((r) => { console.log(JSON.stringify(r.request)); return client.close(); })
      .catch((e) => { console.error(e); process.exit(1); });`;
  const resolved = await run(process.execPath, ['-e', script], {
    cwd: app,
    env: { PATH: process.env.PATH!, PRESETS_URL: svc.url, PRESETS_API_KEY: KEYS.writer },
  });
  const byService = await svc.request('/api/v1/resolve/chat/completions', { method: 'POST', json: body });
  expect(JSON.parse(resolved.stdout)).toEqual(((await byService.json()) as { data: { request: unknown } }).data.request);
}, 300_000);
