import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { hashApiKey } from '../src/auth/keysFile';

/**
 * The real service as a child process (`node dist/src/main.js`, built by `npm run build` or the
 * jest globalSetup), for the crash test and the tests that kill it, send it signals or take its
 * disk away. Plain node:http with no keep-alive, so every request is one connection and its
 * failure is its own.
 */
// From dist/scripts when compiled, or from scripts/ under ts-jest.
export const MAIN =
  [join(__dirname, '../src/main.js'), join(__dirname, '../dist/src/main.js')].find((f) => existsSync(f)) ??
  join(__dirname, '../dist/src/main.js');

export interface ChildKeys {
  file: string;
  workspaceId: string;
  plain: string;
  hashed: string;
}

/** A keys file with one plaintext entry and one stored only as its SHA-256. */
export const writeChildKeys = (dir: string): ChildKeys => {
  const workspaceId = randomUUID();
  const plain = `pk_child_plain_${randomUUID().replace(/-/g, '')}`;
  const hashed = `pk_child_hashed_${randomUUID().replace(/-/g, '')}`;
  const scopes = ['presets:read', 'presets:write', 'webhooks:manage', 'events:consume'];
  const file = join(dir, 'keys.json');
  writeFileSync(
    file,
    JSON.stringify({
      keys: [
        { key: plain, user_id: 'child-plain', workspace_id: workspaceId, scopes },
        { key_sha256: hashApiKey(hashed), user_id: 'child-hashed', workspace_id: workspaceId, scopes },
      ],
    }),
  );
  return { file, workspaceId, plain, hashed };
};

export const freePort = (): Promise<number> =>
  new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });

export interface Child {
  proc: ChildProcess;
  /** Resolves once the process is gone, with how it ended. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** Everything it wrote to stdout and stderr. */
  output: () => string;
}

export const spawnService = (env: Record<string, string>): Child => {
  const chunks: string[] = [];
  const proc = spawn(process.execPath, [MAIN], {
    env: { PATH: process.env.PATH ?? '', HOST: '127.0.0.1', LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  proc.stdout!.on('data', (c: Buffer) => chunks.push(c.toString('utf8')));
  proc.stderr!.on('data', (c: Buffer) => chunks.push(c.toString('utf8')));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    proc.once('exit', (code, signal) => resolve({ code, signal })),
  );
  return { proc, exited, output: () => chunks.join('') };
};

export interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  json: any;
}

/** One request on its own connection; rejects on a connection error or after `timeoutMs`. */
export const call = (
  base: string,
  method: string,
  path: string,
  opts: { key?: string; json?: unknown; requestId?: string; timeoutMs?: number } = {},
): Promise<Answer> =>
  new Promise((resolve, reject) => {
    const body = opts.json === undefined ? undefined : Buffer.from(JSON.stringify(opts.json));
    const headers: Record<string, string> = { connection: 'close' };
    if (opts.key) headers.authorization = `Bearer ${opts.key}`;
    if (body) Object.assign(headers, { 'content-type': 'application/json', 'content-length': String(body.length) });
    if (opts.requestId) headers['x-request-id'] = opts.requestId;
    const req = request(`${base}${path}`, { method, headers, agent: false, timeout: opts.timeoutMs ?? 15_000 }, (res) => {
      const parts: Buffer[] = [];
      res.on('data', (c: Buffer) => parts.push(c));
      res.on('error', reject);
      res.on('end', () => {
        const text = Buffer.concat(parts).toString('utf8');
        let json: unknown;
        try {
          json = JSON.parse(text);
        } catch {
          json = undefined;
        }
        resolve({ status: res.statusCode ?? 0, headers: res.headers, text, json });
      });
    });
    req.on('timeout', () => req.destroy(new Error('request timed out')));
    req.on('error', reject);
    req.end(body);
  });

/** Polls /health/ready until 200; fails early if the process exits, or at the deadline. */
export const waitReady = async (base: string, child: Child, timeoutMs = 20_000): Promise<number> => {
  const started = Date.now();
  let exited = false;
  void child.exited.then(() => {
    exited = true;
  });
  while (Date.now() - started < timeoutMs) {
    if (exited) throw new Error(`the service exited before it was ready:\n${child.output().slice(-2000)}`);
    const ok = await call(base, 'GET', '/health/ready', { timeoutMs: 2000 }).then(
      (a) => a.status === 200,
      () => false,
    );
    if (ok) return Date.now() - started;
    await sleep(25);
  }
  throw new Error(`the service was not ready within ${timeoutMs} ms:\n${child.output().slice(-2000)}`);
};

/** SIGTERM, then SIGKILL if it has not exited in time; resolves with the exit. */
export const stopChild = async (child: Child, graceMs = 15_000) => {
  if (child.proc.exitCode !== null || child.proc.signalCode !== null) return child.exited;
  child.proc.kill('SIGTERM');
  const timer = setTimeout(() => child.proc.kill('SIGKILL'), graceMs);
  const result = await child.exited;
  clearTimeout(timer);
  return result;
};
