import { setFlagsFromString } from 'node:v8';
import { LRUCache } from 'lru-cache';
import type { Agent, Dispatcher } from 'undici';
import { parseWebhookUrl, type ParsedUrl } from './addresses';
import { checkedLookup, literalRefusal, RefusedDestination, type DestinationPolicy } from './destination';
import type { AttemptResult } from './retryPolicy';

/**
 * One delivery: POST the body, and the outcome is the answer's status or why there was none.
 * Sent with undici (a quarter of node:http's CPU per request, which was most of a delivery's),
 * through its dispatcher's own handler interface rather than its `request` API: a delivery needs
 * the answer's status and no stream of its body, and the stream, its promise and its async
 * resource were a quarter of the sender's CPU (docs/performance.md, Webhooks).
 * Redirects are never followed (a 3xx is the outcome: following one would let a receiver point
 * the service anywhere); the address is checked by the socket's own resolver (destination.ts);
 * one deadline covers connecting, sending and the answer's head. The answer's body is read and
 * dropped (up to ANSWER_BODY_LIMIT; a longer one closes the connection instead), so a kept-alive
 * connection can carry the next delivery.
 */
export interface SendOptions {
  timeoutMs: number;
  policy: DestinationPolicy;
  /** Connections to reuse (keep-alive): one per origin, one request at a time, one set per webhook. */
  connections: Connections;
  /** Aborts the attempt (the webhook was paused, changed or deleted, or the service is stopping). */
  signal?: AbortSignal;
}

export interface Sent {
  result: AttemptResult;
  latencyMs: number;
}

export const USER_AGENT = 'presets-webhooks/1';

/** An answer's body longer than this is not read to its end: its connection is closed instead. */
export const ANSWER_BODY_LIMIT = 64 * 1024;

/**
 * undici is loaded with the first webhook's loop: its code and its compiled WebAssembly cost a
 * thread ~10 MB of resident memory, which a service with no active webhook does not pay. Its HTTP
 * parser (llhttp) is WebAssembly, the only WebAssembly this process runs: it is compiled by V8's
 * baseline compiler alone (`--liftoff-only`, a process-wide flag, set before the module is first
 * compiled), since optimizing it took ~20 MB for a moment and ~9 MB to keep, for no speed the
 * replay bench could tell (docs/performance.md, Webhooks).
 *
 * Only what a delivery uses is loaded: the Agent, from the file undici's own index takes it from.
 * The index itself loads fetch, WebSocket, EventSource, the caches and the mocks as well (111
 * modules against 24): ~3.4 MB more live heap in the delivery thread and 5-7 MB more at a replay's
 * peak than the 32 this file loaded while it used the request API too (docs/performance.md,
 * Webhooks). This is undici's own file, not its API, so package.json pins its exact version (an
 * upgrade is a deliberate change), and test/integration/webhooks/sendModules.test.ts holds the path.
 */
let loadedAgent: typeof Agent | undefined;
const undiciAgent = (): typeof Agent => {
  if (!loadedAgent) {
    setFlagsFromString('--liftoff-only');
    loadedAgent = require('undici/lib/dispatcher/agent') as typeof Agent;
  }
  return loadedAgent;
};

/** A webhook's connections: whatever the URL's origin, one socket at a time, its address checked when it connects. */
export type Connections = Agent;
export const newConnections = (policy: DestinationPolicy): Connections =>
  new (undiciAgent())({ connections: 1, pipelining: 1, connect: { lookup: checkedLookup(policy) } });

class Timeout extends Error {
  override readonly name = 'Timeout';
}
/** An answer's body past ANSWER_BODY_LIMIT: its connection is closed (the status already is the outcome). */
class AnswerTooLong extends Error {
  override readonly name = 'AnswerTooLong';
}

/** A webhook's URL is parsed once, not at every delivery. */
const parsedUrls = new LRUCache<string, ParsedUrl>({ max: 1024 });
const parsedUrl = (raw: string): ParsedUrl => {
  let parsed = parsedUrls.get(raw);
  if (!parsed) parsedUrls.set(raw, (parsed = parseWebhookUrl(raw)));
  return parsed;
};

export const send = (rawUrl: string, body: string, headers: Record<string, string>, options: SendOptions): Promise<Sent> => {
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  const parsed = parsedUrl(rawUrl);
  if (!parsed.ok) return Promise.resolve({ result: { error: `the URL ${parsed.problem}` }, latencyMs: 0 });
  // A literal address is connected to without a lookup, so it is checked here.
  const refusal = parsed.literal ? literalRefusal(parsed.host, options.policy) : null;
  if (refusal) return Promise.resolve({ result: { error: `refused: ${refusal}` }, latencyMs: 0 });
  const { signal } = options;
  if (signal?.aborted) return Promise.resolve({ result: { error: 'aborted' }, latencyMs: 0 });

  return new Promise<Sent>((resolve) => {
    let settled = false;
    const settle = (result: AttemptResult) => {
      if (settled) return;
      settled = true;
      resolve({ result, latencyMs: elapsed() });
    };
    // undici hands the request its controller once it has a connection; an attempt stopped
    // before that (the deadline, or the caller's signal) is aborted then.
    let controller: Dispatcher.DispatchController | undefined;
    let stoppedBy: Error | undefined;
    const stop = (reason: Error) => {
      stoppedBy ??= reason;
      controller?.abort(stoppedBy);
    };
    // The one deadline, and the caller's signal, both end the attempt, the answer's body included.
    const deadline = setTimeout(() => stop(new Timeout(`no answer within ${options.timeoutMs} ms`)), options.timeoutMs);
    const onStop = () => stop(signal!.reason instanceof Error ? signal!.reason : new DOMException('aborted', 'AbortError'));
    signal?.addEventListener('abort', onStop, { once: true });
    const done = () => {
      clearTimeout(deadline);
      signal?.removeEventListener('abort', onStop);
    };
    let bodyBytes = 0;
    options.connections.dispatch(
      {
        origin: parsed.url.origin,
        path: `${parsed.url.pathname}${parsed.url.search}`,
        method: 'POST',
        headers: { ...headers, 'content-type': 'application/json', 'user-agent': USER_AGENT },
        body,
      },
      {
        onRequestStart(started) {
          controller = started;
          if (stoppedBy) started.abort(stoppedBy);
        },
        // The outcome is the status of the answer's head (a 1xx is only news that one follows).
        onResponseStart(_controller, statusCode) {
          if (statusCode >= 200) settle({ status: statusCode });
        },
        // The body is read and dropped, so the connection can carry the next delivery; past the limit it is closed instead.
        onResponseData(answer, chunk) {
          bodyBytes += chunk.length;
          if (bodyBytes > ANSWER_BODY_LIMIT) answer.abort(new AnswerTooLong());
        },
        onResponseEnd: done,
        onResponseError(_controller, error) {
          done();
          settle({ error: describeError(error) });
        },
      },
    );
  });
};

const MESSAGES: Record<string, string> = {
  ECONNREFUSED: 'connection refused',
  ECONNRESET: 'connection reset',
  ENOTFOUND: 'host not found',
  EAI_AGAIN: 'DNS lookup failed',
  EHOSTUNREACH: 'host unreachable',
  ENETUNREACH: 'network unreachable',
  ETIMEDOUT: 'connection timed out',
  EPIPE: 'connection closed while sending',
  UND_ERR_SOCKET: 'connection closed before the answer',
  UND_ERR_CONNECT_TIMEOUT: 'connection timed out',
  UND_ERR_HEADERS_TIMEOUT: 'no answer in time',
  CERT_HAS_EXPIRED: 'TLS certificate expired',
  DEPTH_ZERO_SELF_SIGNED_CERT: 'TLS certificate is self-signed',
  UNABLE_TO_VERIFY_LEAF_SIGNATURE: 'TLS certificate could not be verified',
  ERR_TLS_CERT_ALTNAME_INVALID: 'TLS certificate does not name the host',
};

/** A short reason for the delivery log: never a stack, never a header. */
export const describeError = (error: Error): string => {
  if (error instanceof Timeout) return error.message;
  if (error instanceof RefusedDestination) return `refused: ${error.message}`;
  if (error.name === 'AbortError' || (error as NodeJS.ErrnoException).code === 'UND_ERR_ABORTED') return 'aborted';
  const code = (error as NodeJS.ErrnoException).code;
  if (code && MESSAGES[code]) return `${MESSAGES[code]} (${code})`;
  return code ? `${error.message.slice(0, 200)} (${code})` : error.message.slice(0, 200);
};
