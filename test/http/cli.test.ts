import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { useApiSpecification } from '../support/apiSpecification';
import { KEYS } from '../support/service';

/**
 * The `presets` command (docs/prompts-as-code.md) as CI runs it: the built bin spawned as a
 * process against the service on a loopback port, `pull` writing files that `push` sends back
 * unchanged, a drift gate, a readable diff, labels through the release rules, errors naming
 * their file, `--json` for machines and no colour off a terminal.
 */
const svc = useApiSpecification({}, { served: true });
const BIN = join(__dirname, '..', '..', 'dist', 'src', 'client', 'bin.js');

type Json = Record<string, unknown>;
const run = (args: string[], key: string = KEYS.writer, env: Record<string, string> = {}) =>
  new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
    execFile(
      process.execPath,
      [BIN, ...args],
      { env: { PATH: process.env.PATH!, PRESETS_URL: svc.url, PRESETS_API_KEY: key, ...env }, timeout: 60_000 },
      (error, stdout, stderr) => resolve({ code: error ? ((error as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
  });
const api = async (path: string, init: { method?: string; json?: unknown; key?: string } = {}) => {
  const res = await svc.request(path, init);
  return { status: res.status, body: (await res.json()) as Json & { data: Json } };
};
const version = async (slug: string, temperature: number, system = 'You help customers of {{company}}.') => {
  const answer = await api(`/api/v1/presets/${slug}/versions`, {
    method: 'POST',
    json: {
      format: 'chat_completions',
      config: { model: 'openai/gpt-4o', temperature },
      system_prompt: system,
      template_format: 'handlebars',
    },
  });
  expect(answer.status).toBe(200);
};
const versionsOf = async (slug: string) =>
  (await api(`/api/v1/presets/${slug}/versions`)).body as unknown as { data: Json[]; total_count: number };

let dir: string;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'presets-cli-'));
  await version('support', 0.3);
  await version('triage', 0, 'Sort the message.');
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

it('prints its usage with --help, and exits 1 naming what is missing without the service settings', async () => {
  const help = await run(['--help']);
  expect(help.code).toBe(0);
  expect(help.stdout).toContain('presets push <dir>');
  const unset = await run(['push', dir], KEYS.writer, { PRESETS_URL: '' });
  expect(unset.code).toBe(1);
  expect(unset.stderr).toContain('PRESETS_URL is not set');
  expect((await run(['frobnicate'])).code).toBe(1);
});

it('pulls every preset as files that push back unchanged', async () => {
  const pulled = await run(['pull', dir]);
  expect(pulled.code).toBe(0);
  expect(readdirSync(dir).sort()).toEqual(['support.prompt', 'triage.prompt']);
  expect(pulled.stdout).toContain(`${join(dir, 'support.prompt')}  written (version 1)`);
  expect(pulled.stdout.trim().split('\n').at(-1)).toBe('2 files: 2 written');

  const pushed = await run(['push', dir, '--check']);
  expect(pushed).toMatchObject({ code: 0, stderr: '' });
  expect(pushed.stdout).toContain(`${join(dir, 'triage.prompt')}  unchanged (version 1)`);
  expect(pushed.stdout.trim().split('\n').at(-1)).toBe('2 files: 2 unchanged');
  expect((await versionsOf('support')).total_count).toBe(1);
  // Nothing but text off a terminal.
  expect(pushed.stdout).not.toContain('\u001b[');
});

it('gates on drift with --check --dry-run: exit 2, a diff of config and template, nothing written', async () => {
  const file = join(dir, 'support.prompt');
  const text = readFileSync(file, 'utf8');
  writeFileSync(file, text.replace('temperature: 0.3', 'temperature: 0.6').replace('You help', 'You gladly help'));
  const checked = await run(['push', dir, '--check', '--dry-run']);
  expect(checked.code).toBe(2);
  expect(checked.stdout).toContain(`${file}  would be new version`);
  expect(checked.stdout).toMatch(/^ {4}- {2}temperature: 0\.3$/m);
  expect(checked.stdout).toMatch(/^ {4}\+ {2}temperature: 0\.6$/m);
  expect(checked.stdout).toMatch(/^ {4}\+You gladly help customers of \{\{company\}\}\.$/m);
  expect(checked.stdout.trim().split('\n').at(-1)).toBe('2 files (dry run): 1 new version, 1 unchanged');
  expect((await versionsOf('support')).total_count).toBe(1);
});

it('pushes what differs with a note and moves a label to each file’s version', async () => {
  writeFileSync(join(dir, 'greeter.prompt'), '---\nmodel: openai/gpt-4o-mini\n---\n{{role "system"}}Greet {{name}}.\n');
  const pushed = await run(['push', dir, '--label', 'staging', '--note', 'Warmer support (#12)']);
  expect(pushed.code).toBe(0);
  expect(pushed.stdout.split('\n').slice(0, 3)).toEqual([
    `${join(dir, 'greeter.prompt')}  new preset, label staging → 1`,
    `${join(dir, 'support.prompt')}  new version 2, label staging → 2`,
    `${join(dir, 'triage.prompt')}  unchanged (version 1), label staging → 1`,
  ]);
  expect(pushed.stdout.trim().split('\n').at(-1)).toBe('3 files: 1 new preset, 1 new version, 1 unchanged');
  const support = (await api('/api/v1/presets/support')).body.data as { designated_version: Json; labels: Json };
  expect(support.designated_version).toMatchObject({
    version: 2,
    config: { model: 'openai/gpt-4o', temperature: 0.6 },
    note: 'Warmer support (#12)',
  });
  expect(support.labels).toEqual({ staging: 2 });
  expect(((await api('/api/v1/presets/greeter')).body.data as { labels: Json }).labels).toEqual({ staging: 1 });
  // Idempotent: the same files again make nothing.
  expect((await run(['push', dir, '--check'])).code).toBe(0);
  expect((await versionsOf('support')).total_count).toBe(2);
});

it('reports a protected label’s move as a proposal', async () => {
  const protect = await api('/api/v1/presets/triage/labels/production/protection', {
    method: 'PUT',
    json: { protected: true, approvals: 1 },
    key: KEYS.releaseAnn,
  });
  expect(protect.status).toBe(200);
  const pushed = await run(['push', dir, '--label', 'production', '--json'], KEYS.releaseAnn);
  expect(pushed.code).toBe(0);
  const lines = pushed.stdout
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as Json);
  expect(lines.find((l) => l.slug === 'triage')).toMatchObject({
    status: 'unchanged',
    version: 1,
    label: { name: 'production', status: 'proposed', version: 1, approvals_required: 1 },
  });
  expect(lines.at(-1)).toEqual({ summary: { files: 3, unchanged: 3 } });
});

it('exits 1 naming the file the service refused, and still pushes the others', async () => {
  const bad = join(dir, 'broken.prompt');
  writeFileSync(bad, '---\nmodel: openai/gpt-4o\nconfig:\n  max_output_tokens: 5\n---\nHi\n');
  writeFileSync(
    join(dir, 'support.prompt'),
    readFileSync(join(dir, 'support.prompt'), 'utf8').replace('temperature: 0.6', 'temperature: 0.9'),
  );
  try {
    const pushed = await run(['push', dir]);
    expect(pushed.code).toBe(1);
    expect(pushed.stderr).toContain(`${bad}  error: 400 the file does not make a valid version; config.max_output_tokens:`);
    expect(pushed.stdout).toContain(`${join(dir, 'support.prompt')}  new version 3`);
    expect(pushed.stdout.trim().split('\n').at(-1)).toBe('4 files: 1 new version, 2 unchanged, 1 error');
  } finally {
    rmSync(bad);
  }
});

it('pulls the version a label names, or only the slugs given; a slug that does not exist is an error', async () => {
  const other = mkdtempSync(join(tmpdir(), 'presets-cli-label-'));
  try {
    const pulled = await run(['pull', other, '--label', 'staging']);
    expect(pulled.code).toBe(0);
    expect(readFileSync(join(other, 'support.prompt'), 'utf8')).toContain('temperature: 0.6');
    expect(pulled.stdout).toContain(`${join(other, 'triage.prompt')}  written (version 1)`);
    const named = await run(['pull', other, 'support', 'missing']);
    expect(named.code).toBe(1);
    expect(named.stdout).toContain(`${join(other, 'support.prompt')}  written (version 3)`);
    expect(named.stderr).toContain(`${join(other, 'missing.prompt')}  error: 404`);
  } finally {
    rmSync(other, { recursive: true, force: true });
  }
});
