import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Readable, Writable } from 'node:stream';
import type { ReadableStream as WebReadableStream } from 'node:stream/web';
import * as E from 'fp-ts/Either';
import inject from 'light-my-request';
import { createKeyRing, decodeKeysFile } from '#src/auth/apiKeys';
import { createSigningKey } from '#src/audit/signing';
import { loadConfig, type Config } from '#src/config';
import { openMemoryConsumerGroupStore } from '#src/consumerGroups/store';
import { openMemoryEventStore } from '#src/eventstore/memory';
import { createLogger } from '#src/logger';
import { composeService, type ComposedService, type ServiceStores } from '#src/composition';
import { createMemoryUsageStore } from '#src/usage/memory';
import { openMemoryWebhookStore } from '#src/webhooks/memory';
import { openMemoryReadModel } from '#projections/readmodel/memory';
import { checkResponse } from './contract';
import { testKeyEntries, testRequest, type TestRequestInit } from './service';

/**
 * The HTTP API specified in process: the service composed as production composes it
 * (`composeService`: the live key ring, the projector, the shared tail, consumer groups, webhook
 * delivery, audit, usage, metrics, the Koa app), on the memory stores instead of SQLite or servers,
 * and its app driven through `app.callback()` by light-my-request: no port, no disk, no thread. The
 * callers are the ones every harness has (KEYS in ./service.ts). Answers are fetch `Response`s,
 * each checked against the OpenAPI document (and OpenRouter's reference) as the real service's are;
 * `fetch` streams them, so event streams and presets/client's feed work in process too.
 *
 * What needs a real process stays on startTestService or a spawned build: the disk (durability,
 * faults, rebuilds), threads, sockets as such (raw requests, shutdown), files (the keys file).
 */
export interface ApiSpecification extends Omit<ComposedService, 'app' | 'metricsServer' | 'endStreams'> {
  request(path: string, init?: TestRequestInit): Promise<Response>;
  /** fetch into the app, in process, for what takes a fetch and a base URL (presets/client, an event stream's reader). */
  fetch: typeof fetch;
  /** The base URL that `fetch` answers: a name that resolves nowhere, or the loopback port when `served`. */
  url: string;
  /** Where GET /metrics answers: `url`'s, or METRICS_PORT's own server on loopback (read that one with fetch itself). */
  metricsUrl: string;
  /** The service's log lines, as JSON text (every composition's, restarts included). */
  logs: string[];
  /**
   * The service stopped and composed again on the same stores, with `env` over the first one's: a
   * restart of a service whose stores outlive it (what survives only on disk is startTestService's).
   */
  restart(env?: Record<string, string>): Promise<ApiSpecification>;
  /** given/when/then over requests (each a path and its init): the given ones must succeed (2xx). */
  given(...requests: SpecRequest[]): { when(request: SpecRequest): { then(check: (res: Response) => unknown): Promise<void> } };
}
export type SpecRequest = readonly [path: string, init?: TestRequestInit];

export interface SpecificationOptions {
  /**
   * Listen on a loopback port from the start, and make `url` that port's and `fetch` fetch itself:
   * for a browser, which reaches the app only over a socket. Still the memory stores, no disk.
   */
  served?: boolean;
}

/** The base URL of a specification's fetch: a name that resolves nowhere (RFC 6761), so nothing reaches a network. */
const ORIGIN = 'http://presets.invalid';

/** The configuration of a specification: the service's defaults, and `env` over them. DATA_DIR names no directory: nothing may touch the disk. */
const specConfig = (env: Record<string, string>): Config => {
  const config = loadConfig({ PORT: '0', DATA_DIR: '/nonexistent/presets-specification', LOG_LEVEL: 'info', ...env });
  if (E.isLeft(config)) throw new Error(config.left.join('; '));
  return config.right;
};

/** The stores, kept open across compositions (a restart): each composition's close leaves them be. */
const lasting = (stores: ServiceStores): ServiceStores =>
  Object.fromEntries(Object.entries(stores).map(([name, store]) => [name, { ...store, close: async () => undefined }])) as ServiceStores;

const toHeaders = (raw: Record<string, string | string[] | number | undefined>): Headers => {
  const out = new Headers();
  for (const [name, value] of Object.entries(raw))
    for (const v of Array.isArray(value) ? value : value === undefined ? [] : [String(value)]) out.append(name, v);
  return out;
};

/**
 * A Node stream as a web one, for a Response body. Not Readable.toWeb: a body cancelled by its
 * reader (an aborted long poll) while the app still writes made it throw from the stream's events.
 */
const webStream = (stream: Readable): ReadableStream<Uint8Array> => {
  let open = true;
  const settle = (f: () => void) => {
    if (!open) return;
    open = false;
    f();
  };
  return new ReadableStream<Uint8Array>({
    start(controller) {
      stream.on('data', (chunk: Buffer | string) => open && controller.enqueue(new Uint8Array(Buffer.from(chunk))));
      stream.on('end', () => settle(() => controller.close()));
      stream.on('error', (error) => settle(() => controller.error(error)));
    },
    cancel() {
      open = false;
      stream.destroy();
    },
  });
};

export const startApiSpecification = async (
  env: Record<string, string> = {},
  { served = false }: SpecificationOptions = {},
): Promise<ApiSpecification> => {
  const logs: string[] = [];
  const sink = new Writable({
    write(chunk, _enc, done) {
      logs.push(String(chunk));
      done();
    },
  });
  const stores: ServiceStores = {
    eventStore: openMemoryEventStore(),
    readModel: openMemoryReadModel(),
    webhooks: openMemoryWebhookStore(),
    consumerGroups: openMemoryConsumerGroupStore(),
    usage: createMemoryUsageStore(),
  };
  const fileKeys = createKeyRing(decodeKeysFile({ keys: testKeyEntries() }, 'the test keys'));
  const signingKey = createSigningKey();
  const compose = (settings: Record<string, string>) => {
    const config = specConfig(settings);
    return composeService(config, lasting(stores), createLogger(config.logLevel, sink), { fileKeys, signingKey });
  };
  let settings = env;
  let service = await compose(settings);
  let handle = service.app.callback();

  /**
   * fetch, in process: the request injected into the app (light-my-request), the answer's body
   * a stream as it is written (an event stream arrives frame by frame), an abort signal honoured.
   * Any origin does: the path and query are what the app sees.
   */
  const fetchInProcess = async (input: string | URL | Request, init: RequestInit = {}): Promise<Response> => {
    const url = new URL(input instanceof Request ? input.url : String(input), ORIGIN);
    const method = (init.method ?? 'GET').toUpperCase();
    const { body, signal } = init;
    // A turn of the event loop, as a request over a socket takes: a test that polls in a loop must
    // not starve the service's timers (the key ring's look, the projector's) of their turn.
    await new Promise((resolve) => setImmediate(resolve));
    if (signal?.aborted) throw signal.reason;
    // The app's side of the exchange: a client that aborts is a connection closed, as the app sees one.
    let served: ServerResponse | undefined;
    signal?.addEventListener('abort', () => served?.destroy(), { once: true });
    const injected = inject((req, res) => ((served = res), handle(req, res)), {
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
    // Aborted before the answer's head came: fetch rejects then, and so does this (its answer, if any, dropped).
    const answer = signal
      ? await Promise.race([
          injected,
          new Promise<never>((_, reject) => signal.addEventListener('abort', () => reject(signal.reason), { once: true })),
        ]).catch((error: unknown) => {
          void injected.then(
            (late) => late.stream().destroy(),
            () => undefined,
          );
          throw error;
        })
      : await injected;
    const empty = method === 'HEAD' || [101, 204, 205, 304].includes(answer.statusCode);
    const stream = answer.stream();
    if (empty) stream.resume();
    return new Response(empty ? null : webStream(stream), {
      status: answer.statusCode,
      headers: toHeaders(answer.headers),
    });
  };

  let server: Server | undefined;
  if (served)
    server = await new Promise<Server>((resolve, reject) => {
      const s = createServer((req: IncomingMessage, res: ServerResponse) => void handle(req, res));
      s.once('error', reject);
      s.listen(0, '127.0.0.1', () => resolve(s));
    });
  const url = server ? `http://127.0.0.1:${(server.address() as AddressInfo).port}` : ORIGIN;
  const fetcher = server ? globalThis.fetch : (fetchInProcess as typeof fetch);

  const request: ApiSpecification['request'] = async (path, init = {}) => {
    const res = await fetcher(new URL(path, url), testRequest(init));
    await checkResponse(init.method ?? 'GET', path, res);
    return res;
  };
  const stop = async () => {
    await service.endStreams();
    server?.closeAllConnections();
    await service.close();
  };

  const spec: ApiSpecification = {
    get eventStore() {
      return stores.eventStore;
    },
    get readModel() {
      return stores.readModel;
    },
    get webhooks() {
      return stores.webhooks;
    },
    get usage() {
      return stores.usage;
    },
    get deliverer() {
      return service.deliverer;
    },
    get projector() {
      return service.projector;
    },
    get metrics() {
      return service.metrics;
    },
    get checkpointer() {
      return service.checkpointer;
    },
    url,
    fetch: fetcher,
    get metricsUrl() {
      return service.metricsServer ? `http://127.0.0.1:${service.metricsServer.port}/metrics` : `${url}/metrics`;
    },
    logs,
    request,
    async restart(more = {}) {
      await stop();
      settings = { ...settings, ...more };
      service = await compose(settings);
      handle = service.app.callback();
      return spec;
    },
    given: (...requests) => ({
      when: (when) => ({
        then: async (check) => {
          for (const [path, init] of requests) {
            const res = await request(path, init);
            if (res.status >= 300) throw new Error(`given ${init?.method ?? 'GET'} ${path}: ${res.status} ${await res.text()}`);
          }
          await check(await request(...when));
        },
      }),
    }),
    async close() {
      await stop();
      if (server) await new Promise((resolve) => server!.close(resolve));
      for (const store of Object.values(stores)) await store.close();
    },
  };
  return spec;
};

/** The specification a suite shares: composed before its first test, closed after its last. */
export const useApiSpecification = (env: Record<string, string> = {}, options: SpecificationOptions = {}): ApiSpecification => {
  let current: ApiSpecification | undefined;
  const running = (): ApiSpecification => {
    if (!current) throw new Error('useApiSpecification: the service is composed in beforeAll; use it in a test or a later hook');
    return current;
  };
  beforeAll(async () => {
    current = await startApiSpecification(env, options);
  });
  afterAll(async () => current?.close());
  return new Proxy({} as ApiSpecification, {
    get: (_target, name) => {
      const value = running()[name as keyof ApiSpecification];
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(running()) : value;
    },
  });
};
