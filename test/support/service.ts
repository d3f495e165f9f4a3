import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import * as E from 'fp-ts/Either';
import { loadConfig, type Config } from '../../src/config';
import { createLogger } from '../../src/logger';
import { startService, type Service } from '../../src/service';
import { checkResponse } from './contract';

/**
 * Starts the real service on a free loopback port with a temporary data directory and a keys
 * file of known callers; collects its log lines so tests can read them.
 */
export const WORKSPACE_A = randomUUID();
export const WORKSPACE_B = randomUUID();
export const KEYS = {
  writer: 'pk_test_writer_a',
  readerOnly: 'pk_test_reader_a',
  writerOnly: 'pk_test_writeonly_a',
  otherWorkspace: 'pk_test_writer_b',
};

export interface TestService extends Service {
  dataDir: string;
  logs: string[];
  request(path: string, init?: RequestInit & { key?: string | null; json?: unknown }): Promise<Response>;
  restart(overrides?: Record<string, string>): Promise<TestService>;
  stop(): Promise<void>;
}

const keysFile = (dir: string) => {
  const file = join(dir, 'keys.json');
  const all = ['presets:read', 'presets:write', 'webhooks:manage', 'audit:read'];
  writeFileSync(
    file,
    JSON.stringify({
      keys: [
        { key: KEYS.writer, user_id: 'user-writer', workspace_id: WORKSPACE_A, scopes: all },
        { key: KEYS.readerOnly, user_id: 'user-reader', workspace_id: WORKSPACE_A, scopes: ['presets:read'] },
        { key: KEYS.writerOnly, user_id: 'user-writeonly', workspace_id: WORKSPACE_A, scopes: ['presets:write'] },
        { key: KEYS.otherWorkspace, user_id: 'user-b', workspace_id: WORKSPACE_B, scopes: all },
      ],
    }),
  );
  return file;
};

export const startTestService = async (
  env: Record<string, string> = {},
  dataDir = mkdtempSync(join(tmpdir(), 'presets-test-')),
): Promise<TestService> => {
  const config = loadConfig({
    PORT: '0',
    HOST: '127.0.0.1',
    DATA_DIR: dataDir,
    API_KEYS_FILE: keysFile(dataDir),
    LOG_LEVEL: 'info',
    ...env,
  });
  if (E.isLeft(config)) throw new Error(config.left.join('; '));
  const logs: string[] = [];
  const sink = new Writable({
    write(chunk, _enc, done) {
      logs.push(String(chunk));
      done();
    },
  });
  const service = await startService(config.right as Config, createLogger(config.right.logLevel, sink), () => undefined);
  const request: TestService['request'] = async (path, init = {}) => {
    const { key = KEYS.writer, json, headers, ...rest } = init;
    const h = new Headers(headers);
    if (key !== null && !h.has('authorization')) h.set('authorization', `Bearer ${key}`);
    if (json !== undefined) h.set('content-type', 'application/json');
    const res = await fetch(`${service.url}${path}`, { ...rest, headers: h, body: json !== undefined ? JSON.stringify(json) : rest.body });
    // Every answer must conform to the service's OpenAPI document (and, for presets, to OpenRouter's reference).
    await checkResponse(rest.method ?? 'GET', path, res);
    return res;
  };
  const stop = async () => service.close();
  return {
    ...service,
    dataDir,
    logs,
    request,
    stop,
    restart: async (overrides = {}) => {
      await service.close();
      return startTestService({ ...env, ...overrides }, dataDir);
    },
  };
};

export const removeDir = (dir: string) => rmSync(dir, { recursive: true, force: true });

export const chatBody = (overrides: Record<string, unknown> = {}) => ({
  model: 'openai/gpt-4o',
  temperature: 0.2,
  messages: [
    { role: 'system', content: 'You are terse.' },
    { role: 'user', content: 'Hi' },
  ],
  ...overrides,
});
