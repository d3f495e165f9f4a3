import http from 'node:http';
import https from 'node:https';
import { parseWebhookUrl } from './addresses';
import { checkedLookup, literalRefusal, RefusedDestination, type DestinationPolicy } from './destination';
import type { AttemptResult } from './retryPolicy';

/**
 * One delivery: POST the body, and the outcome is the answer's status or why there was none.
 * Redirects are never followed (a 3xx is the outcome: following one would let a receiver point the
 * service anywhere); the address is checked by the socket's own resolver (destination.ts); one
 * deadline covers connecting, sending and the answer's head. The answer's body is read and
 * dropped, so a kept-alive connection can carry the next delivery.
 */
export interface SendOptions {
  timeoutMs: number;
  policy: DestinationPolicy;
  /** Connections to reuse (keep-alive), one pair per webhook. */
  agents: { http: http.Agent; https: https.Agent };
  /** Aborts the attempt (the webhook was paused, changed or deleted, or the service is stopping). */
  signal?: AbortSignal;
}

export interface Sent {
  result: AttemptResult;
  latencyMs: number;
}

export const USER_AGENT = 'presets-webhooks/1';

export const newAgents = () => ({
  http: new http.Agent({ keepAlive: true, maxSockets: 1 }),
  https: new https.Agent({ keepAlive: true, maxSockets: 1 }),
});

class Timeout extends Error {
  override readonly name = 'Timeout';
}

export const send = (rawUrl: string, body: string, headers: Record<string, string>, options: SendOptions): Promise<Sent> => {
  const started = process.hrtime.bigint();
  const elapsed = () => Math.round(Number(process.hrtime.bigint() - started) / 1e6);
  const parsed = parseWebhookUrl(rawUrl);
  if (!parsed.ok) return Promise.resolve({ result: { error: `the URL ${parsed.problem}` }, latencyMs: 0 });
  // A literal address is connected to without a lookup, so it is checked here.
  const refusal = parsed.literal ? literalRefusal(parsed.host, options.policy) : null;
  if (refusal) return Promise.resolve({ result: { error: `refused: ${refusal}` }, latencyMs: 0 });

  return new Promise<Sent>((resolve) => {
    let settled = false;
    const finish = (result: AttemptResult) => {
      if (settled) return;
      settled = true;
      resolve({ result, latencyMs: elapsed() });
    };
    const secure = parsed.url.protocol === 'https:';
    const payload = Buffer.from(body, 'utf8');
    const req = (secure ? https : http).request(parsed.url, {
      method: 'POST',
      agent: secure ? options.agents.https : options.agents.http,
      lookup: checkedLookup(options.policy),
      headers: { ...headers, 'content-type': 'application/json', 'content-length': String(payload.length), 'user-agent': USER_AGENT },
      signal: options.signal,
    });
    const deadline = setTimeout(() => req.destroy(new Timeout(`no answer within ${options.timeoutMs} ms`)), options.timeoutMs);
    req.once('response', (res) => {
      finish({ status: res.statusCode ?? 0 });
      // Read to the end (within the same deadline) so the connection can be reused, then let go.
      res.on('error', () => {});
      res.once('end', () => clearTimeout(deadline));
      res.once('close', () => clearTimeout(deadline));
      res.resume();
    });
    req.once('error', (error) => {
      clearTimeout(deadline);
      finish({ error: describeError(error) });
    });
    req.end(payload);
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
  CERT_HAS_EXPIRED: 'TLS certificate expired',
  DEPTH_ZERO_SELF_SIGNED_CERT: 'TLS certificate is self-signed',
  UNABLE_TO_VERIFY_LEAF_SIGNATURE: 'TLS certificate could not be verified',
  ERR_TLS_CERT_ALTNAME_INVALID: 'TLS certificate does not name the host',
};

/** A short reason for the delivery log: never a stack, never a header. */
export const describeError = (error: Error): string => {
  if (error instanceof Timeout) return error.message;
  if (error instanceof RefusedDestination) return `refused: ${error.message}`;
  if (error.name === 'AbortError') return 'aborted';
  const code = (error as NodeJS.ErrnoException).code;
  if (code && MESSAGES[code]) return `${MESSAGES[code]} (${code})`;
  return code ? `${error.message.slice(0, 200)} (${code})` : error.message.slice(0, 200);
};
