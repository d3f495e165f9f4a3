import { randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import * as E from 'fp-ts/Either';
import { SCOPES } from '#src/auth/keysFile';
import { loadConfig, type Config } from '#src/config';
import { createLogger } from '#src/logger';
import { startService, type Service } from '#src/service';
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
  webhooksOnly: 'pk_test_webhooks_a',
  /** Every scope, in workspaces A and B: makes keys, for other users too (`act_for_others`). */
  admin: 'pk_test_admin_ab',
  /** presets:read, presets:write, presets:release and keys:manage in workspace A, without `act_for_others`: the insider of issue 54. */
  insider: 'pk_test_insider_a',
  /** presets:read, presets:write and presets:release in workspace A, each a different user. */
  releaseAnn: 'pk_test_release_ann',
  releaseBob: 'pk_test_release_bob',
  releaseCid: 'pk_test_release_cid',
};

export interface TestService extends Service {
  dataDir: string;
  logs: string[];
  request(path: string, init?: TestRequestInit): Promise<Response>;
  restart(overrides?: Record<string, string>): Promise<TestService>;
  stop(): Promise<void>;
}

/** The test callers (KEYS) as the keys file lists them: every harness gives the service these. */
export const testKeyEntries = () => {
  const all = ['presets:read', 'presets:write', 'webhooks:manage', 'events:consume', 'audit:read'];
  return [
    { key: KEYS.writer, user_id: 'user-writer', workspace_id: WORKSPACE_A, scopes: all },
    { key: KEYS.readerOnly, user_id: 'user-reader', workspace_id: WORKSPACE_A, scopes: ['presets:read'] },
    { key: KEYS.writerOnly, user_id: 'user-writeonly', workspace_id: WORKSPACE_A, scopes: ['presets:write'] },
    { key: KEYS.webhooksOnly, user_id: 'user-webhooks', workspace_id: WORKSPACE_A, scopes: ['webhooks:manage'] },
    { key: KEYS.otherWorkspace, user_id: 'user-b', workspace_id: WORKSPACE_B, scopes: all },
    {
      key: KEYS.admin,
      user_id: 'user-admin',
      workspace_id: WORKSPACE_A,
      workspaces: [WORKSPACE_B],
      scopes: SCOPES,
      act_for_others: true,
    },
    {
      key: KEYS.insider,
      user_id: 'user-insider',
      workspace_id: WORKSPACE_A,
      scopes: ['presets:read', 'presets:write', 'presets:release', 'keys:manage'],
    },
    ...(['ann', 'bob', 'cid'] as const).map((name) => ({
      key: `pk_test_release_${name}`,
      user_id: `user-${name}`,
      workspace_id: WORKSPACE_A,
      scopes: ['presets:read', 'presets:write', 'presets:release'],
    })),
  ];
};

const keysFile = (dir: string) => {
  const file = join(dir, 'keys.json');
  writeFileSync(file, JSON.stringify({ keys: testKeyEntries() }));
  return file;
};

/** A request as the tests make it: the writer's key unless another (or null) is given, a JSON body from `json`. */
export type TestRequestInit = RequestInit & { key?: string | null; json?: unknown };

/** The headers and body of a test request (`key`, `json`) as fetch takes them. */
export const testRequest = (init: TestRequestInit): RequestInit => {
  const { key = KEYS.writer, json, headers, ...rest } = init;
  const h = new Headers(headers);
  if (key !== null && !h.has('authorization')) h.set('authorization', `Bearer ${key}`);
  if (json !== undefined) h.set('content-type', 'application/json');
  return { ...rest, headers: h, body: json !== undefined ? JSON.stringify(json) : rest.body };
};

export const startTestService = async (
  env: Record<string, string> = {},
  dataDir = mkdtempSync(join(tmpdir(), 'presets-test-')),
): Promise<TestService> => {
  const config = loadConfig({
    PORT: '0',
    HOST: '127.0.0.1',
    DATA_DIR: dataDir,
    // Beside a data directory the service is to make itself, not in it.
    API_KEYS_FILE: keysFile(existsSync(dataDir) ? dataDir : mkdtempSync(join(tmpdir(), 'presets-keys-'))),
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
    const res = await fetch(`${service.url}${path}`, testRequest(init));
    // Every answer must conform to the service's OpenAPI document (and, for presets, to OpenRouter's reference).
    await checkResponse(init.method ?? 'GET', path, res);
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

/**
 * The service a suite shares: started before its first test (`beforeAll`), stopped and its data
 * directory removed after its last (`afterAll`). Call it at the top of a suite or a describe
 * block; the handle it returns speaks to the running service once the suite's hooks have run.
 * A restart stays the suite's own explicit call (`await svc.restart(overrides)`): the handle then
 * speaks to the restarted service, and the one stopped at the end is whichever runs. `env` may
 * be a function, called in that `beforeAll`, for settings that need files made first.
 */
export const useTestService = (env: Record<string, string> | (() => Record<string, string>) = {}): TestService => {
  let current: TestService | undefined;
  const running = (): TestService => {
    if (!current) throw new Error('useTestService: the service starts in beforeAll; use it in a test or a later hook');
    return current;
  };
  beforeAll(async () => {
    current = await startTestService(typeof env === 'function' ? env() : env);
  });
  afterAll(async () => {
    if (!current) return;
    await current.stop();
    removeDir(current.dataDir);
  });
  const handle: TestService = {
    get url() {
      return running().url;
    },
    get port() {
      return running().port;
    },
    get eventStore() {
      return running().eventStore;
    },
    get readModel() {
      return running().readModel;
    },
    get webhooks() {
      return running().webhooks;
    },
    get metrics() {
      return running().metrics;
    },
    get metricsUrl() {
      return running().metricsUrl;
    },
    get usage() {
      return running().usage;
    },
    get checkpointer() {
      return running().checkpointer;
    },
    get deliverer() {
      return running().deliverer;
    },
    get projector() {
      return running().projector;
    },
    get dataDir() {
      return running().dataDir;
    },
    get logs() {
      return running().logs;
    },
    request: (path, init) => running().request(path, init),
    close: () => running().close(),
    stop: () => running().stop(),
    restart: async (overrides) => {
      current = await running().restart(overrides);
      return handle;
    },
  };
  return handle;
};

export const chatBody = (overrides: Record<string, unknown> = {}) => ({
  model: 'openai/gpt-4o',
  temperature: 0.2,
  messages: [
    { role: 'system', content: 'You are terse.' },
    { role: 'user', content: 'Hi' },
  ],
  ...overrides,
});
