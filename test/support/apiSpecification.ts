import { Readable, Writable } from 'node:stream';
import type { ReadableStream as WebReadableStream } from 'node:stream/web';
import * as E from 'fp-ts/Either';
import inject from 'light-my-request';
import { createKeyRing, decodeKeysFile } from '../../src/auth/apiKeys';
import { createSigningKey } from '../../src/audit/signing';
import { loadConfig, type Config } from '../../src/config';
import { openMemoryConsumerGroupStore } from '../../src/consumerGroups/store';
import { openMemoryEventStore } from '../../src/eventstore/memory';
import { createLogger } from '../../src/logger';
import { composeService, type ComposedService } from '../../src/service';
import { createMemoryUsageStore } from '../../src/usage/memory';
import { openMemoryWebhookStore } from '../../src/webhooks/memory';
import { openMemoryReadModel } from '../../projections/readmodel/memory';
import { checkResponse } from './contract';
import { testKeyEntries, testRequest, type TestRequestInit } from './service';

/**
 * The HTTP API specified in process: the service composed as production composes it
 * (`composeService`: the live key ring, the projector, the shared tail, consumer groups, audit,
 * usage, metrics, the Koa app), on the memory stores instead of SQLite or servers, and its app
 * driven through `app.callback()` by light-my-request: no port, no disk, no thread. The callers
 * are the ones every harness has (KEYS in ./service.ts). Answers are fetch `Response`s, each
 * checked against the OpenAPI document (and OpenRouter's reference) as the real service's are.
 *
 * What needs a real process stays on startTestService: a port (event streams, the browser,
 * presets/client's feed, webhook receivers), the disk (restarts, rebuilds, faults), threads.
 */
export interface ApiSpecification extends Omit<ComposedService, 'app' | 'metricsServer' | 'endStreams'> {
  request(path: string, init?: TestRequestInit): Promise<Response>;
  /** fetch into the app, in process, for what takes a fetch and a base URL (presets/client, an event stream's reader). */
  fetch: typeof fetch;
  /** The base URL that `fetch` answers (any would do: nothing listens on it). */
  url: string;
  /** The service's log lines, as JSON text. */
  logs: string[];
  /** given/when/then over requests (each a path and its init): the given ones must succeed (2xx). */
  given(...requests: SpecRequest[]): { when(request: SpecRequest): { then(check: (res: Response) => unknown): Promise<void> } };
}
export type SpecRequest = readonly [path: string, init?: TestRequestInit];

/** The base URL of a specification's fetch: a name that resolves nowhere (RFC 6761), so nothing reaches a network. */
const ORIGIN = 'http://presets.invalid';

/** The configuration of a specification: the service's defaults, and `env` over them. DATA_DIR names no directory: nothing may touch the disk. */
const specConfig = (env: Record<string, string>): Config => {
  const config = loadConfig({ PORT: '0', DATA_DIR: '/nonexistent/presets-specification', LOG_LEVEL: 'info', ...env });
  if (E.isLeft(config)) throw new Error(config.left.join('; '));
  return config.right;
};

export const startApiSpecification = async (env: Record<string, string> = {}): Promise<ApiSpecification> => {
  const config = specConfig(env);
  const logs: string[] = [];
  const sink = new Writable({
    write(chunk, _enc, done) {
      logs.push(String(chunk));
      done();
    },
  });
  const keys = decodeKeysFile({ keys: testKeyEntries() }, 'the test keys');
  const service = await composeService(
    config,
    {
      eventStore: openMemoryEventStore(),
      readModel: openMemoryReadModel(),
      webhooks: openMemoryWebhookStore(),
      consumerGroups: openMemoryConsumerGroupStore(),
      usage: createMemoryUsageStore(),
    },
    createLogger(config.logLevel, sink),
    { fileKeys: createKeyRing(keys), signingKey: createSigningKey() },
  );
  const handle = service.app.callback();
  /**
   * fetch, in process: the request injected into the app (light-my-request), the answer's body
   * a stream as it is written (an event stream arrives frame by frame), an abort signal honoured.
   * Any origin does: the path and query are what the app sees.
   */
  const fetchInProcess = async (input: string | URL | Request, init: RequestInit = {}): Promise<Response> => {
    const url = new URL(input instanceof Request ? input.url : String(input), ORIGIN);
    const method = (init.method ?? 'GET').toUpperCase();
    const { body, signal } = init;
    const answer = await inject(handle, {
      method,
      url: `${url.pathname}${url.search}`,
      headers: Object.fromEntries(new Headers(init.headers).entries()),
      payloadAsStream: true,
      ...(signal ? { signal } : {}),
      // A stream goes as one (no Content-Length: chunked), as fetch sends it.
      ...(body === undefined || body === null
        ? {}
        : { payload: body instanceof ReadableStream ? Readable.fromWeb(body as WebReadableStream) : (body as string | Buffer) }),
    });
    const out = new Headers();
    for (const [name, value] of Object.entries(answer.headers))
      for (const v of Array.isArray(value) ? value : value === undefined ? [] : [String(value)]) out.append(name, v);
    const empty = method === 'HEAD' || [101, 204, 205, 304].includes(answer.statusCode);
    const stream = answer.stream();
    if (empty) stream.resume();
    return new Response(empty ? null : (Readable.toWeb(stream) as ReadableStream), { status: answer.statusCode, headers: out });
  };
  const request: ApiSpecification['request'] = async (path, init = {}) => {
    const res = await fetchInProcess(path, testRequest(init));
    await checkResponse(init.method ?? 'GET', path, res);
    return res;
  };
  const given: ApiSpecification['given'] = (...requests) => ({
    when: (when) => ({
      then: async (check) => {
        for (const [path, init] of requests) {
          const res = await request(path, init);
          if (res.status >= 300) throw new Error(`given ${init?.method ?? 'GET'} ${path}: ${res.status} ${await res.text()}`);
        }
        await check(await request(...when));
      },
    }),
  });
  const { app: _app, metricsServer: _metrics, endStreams, close, ...parts } = service;
  return { ...parts, url: ORIGIN, fetch: fetchInProcess as typeof fetch, logs, request, given, close: () => endStreams().then(close) };
};

/** The specification a suite shares: composed before its first test, closed after its last. */
export const useApiSpecification = (env: Record<string, string> = {}): ApiSpecification => {
  let current: ApiSpecification | undefined;
  const running = (): ApiSpecification => {
    if (!current) throw new Error('useApiSpecification: the service is composed in beforeAll; use it in a test or a later hook');
    return current;
  };
  beforeAll(async () => {
    current = await startApiSpecification(env);
  });
  afterAll(async () => current?.close());
  return new Proxy({} as ApiSpecification, {
    get: (_target, name) => {
      const value = running()[name as keyof ApiSpecification];
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(running()) : value;
    },
  });
};
