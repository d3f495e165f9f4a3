import { setFlagsFromString } from 'node:v8';
import { LRUCache } from 'lru-cache';
import type { Agent } from 'undici';
import { parseWebhookUrl, type ParsedUrl } from './addresses';
import { checkedLookup, literalRefusal, RefusedDestination, type DestinationPolicy } from './destination';
import type { AttemptResult } from './retryPolicy';

/**
 * One delivery: POST the body, and the outcome is the answer's status or why there was none.
 * Sent with undici (a quarter of node:http's CPU per request, which was most of a delivery's).
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
 * Only what a delivery uses is loaded: the Agent and the request API, the files undici's own
 * index takes them from, and the one line by which that index gives every dispatcher its
 * `request`. The index itself loads fetch, WebSocket, EventSource, the caches and the mocks as
 * well (111 modules against 32): ~3.4 MB more live heap in the delivery thread and 5-7 MB more at a
 * replay's peak (docs/performance.md, Webhooks). These are undici's own files, not its API, so
 * package.json pins its exact version (an upgrade is a deliberate change), and
 * test/integration/webhooks/sendModules.test.ts holds the paths.
 */
let loadedAgent: typeof Agent | undefined;
const undiciAgent = (): typeof Agent => {
  if (!loadedAgent) {
    setFlagsFromString('--liftoff-only');
    const Dispatcher = require('undici/lib/dispatcher/dispatcher') as { prototype: object };
    Object.assign(Dispatcher.prototype, require('undici/lib/api') as object);
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

/** A webhook's URL is parsed once, not at every delivery. */
const parsedUrls = new LRUCache<string, ParsedUrl>({ max: 1024 });
const parsedUrl = (raw: string): ParsedUrl => {
  let parsed = parsedUrls.get(raw);
  if (!parsed) parsedUrls.set(raw, (parsed = parseWebhookUrl(raw)));
  return parsed;
};

export const send = async (rawUrl: string, body: string, headers: Record<string, string>, options: SendOptions): Promise<Sent> => {
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  const parsed = parsedUrl(rawUrl);
  if (!parsed.ok) return { result: { error: `the URL ${parsed.problem}` }, latencyMs: 0 };
  // A literal address is connected to without a lookup, so it is checked here.
  const refusal = parsed.literal ? literalRefusal(parsed.host, options.policy) : null;
  if (refusal) return { result: { error: `refused: ${refusal}` }, latencyMs: 0 };
  const { signal } = options;
  if (signal?.aborted) return { result: { error: 'aborted' }, latencyMs: 0 };

  // The one deadline, and the caller's signal, both end the attempt through its own controller.
  const attempt = new AbortController();
  const deadline = setTimeout(() => attempt.abort(new Timeout(`no answer within ${options.timeoutMs} ms`)), options.timeoutMs);
  const onStop = () => attempt.abort(signal!.reason);
  signal?.addEventListener('abort', onStop, { once: true });
  const done = () => {
    clearTimeout(deadline);
    signal?.removeEventListener('abort', onStop);
  };
  try {
    const answer = await options.connections.request({
      origin: parsed.url.origin,
      path: `${parsed.url.pathname}${parsed.url.search}`,
      method: 'POST',
      headers: { ...headers, 'content-type': 'application/json', 'user-agent': USER_AGENT },
      body,
      signal: attempt.signal,
    });
    const latencyMs = elapsed();
    // Read to the end (within the same deadline) so the connection can be reused, then let go.
    answer.body
      .dump({ limit: ANSWER_BODY_LIMIT })
      .catch(() => undefined)
      .finally(done);
    return { result: { status: answer.statusCode }, latencyMs };
  } catch (error) {
    done();
    return { result: { error: describeError(error as Error) }, latencyMs: elapsed() };
  }
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
