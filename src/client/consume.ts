import type { ApiEvent } from '../apiTypes/event';
import { PresetServiceError } from './api';
import { backoffDelay } from './feed';

/**
 * `consume(name, handler)`: follows a consumer group (POST /api/v1/consumer-groups/{name}/fetch
 * and /ack, scope events:consume) from any number of processes. Each event of a fetched batch is
 * handed to `handler` in order; what was handled is acknowledged (up to the last event handled,
 * so an event whose handler threw comes again, with the ones after it): by the next fetch
 * (its `ack`), or by itself after a handler failed and when stopping. Failures back off
 * exponentially with full jitter; a group leased to another consumer is waited on for the
 * Retry-After the service gives. At least once, in order: a handler should be idempotent.
 */
export interface ConsumerOptions {
  baseUrl: string;
  /** A key with the events:consume scope. */
  apiKey: string;
  fetch?: typeof fetch;
  /** Events per batch (1–1000, default 100). */
  max?: number;
  /** How long one fetch waits for new events (default 20 s). */
  waitMs?: number;
  /** Waits after a failure: a random time up to `initialMs`·2^attempt, at most `maxMs` (defaults 500 ms, 30 s). */
  backoff?: { initialMs?: number; maxMs?: number };
  /** Told of each failure the consumer recovers from by itself: a handler that threw, an answer it did not expect. */
  onError?: (error: unknown) => void;
  random?: () => number;
}

export interface Consumer {
  /** Stops after the event being handled; its batch is acknowledged up to there. */
  stop(): Promise<void>;
}

interface Batch {
  data: ApiEvent[];
  lease: { id: string } | null;
}

const sleep = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve) => {
    if (signal.aborted) return resolve();
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
  });

export const consume = (name: string, handler: (event: ApiEvent) => Promise<void>, options: ConsumerOptions): Consumer => {
  const fetchImpl = options.fetch ?? globalThis.fetch;
  const base = `${options.baseUrl.replace(/\/+$/, '')}/api/v1/consumer-groups/${encodeURIComponent(name)}`;
  const headers = { authorization: `Bearer ${options.apiKey}`, 'content-type': 'application/json' };
  const backoff = { initialMs: options.backoff?.initialMs ?? 500, maxMs: options.backoff?.maxMs ?? 30_000 };
  const report = options.onError ?? (() => {});
  const stopping = new AbortController();
  const post = (path: string, body: unknown) =>
    fetchImpl(`${base}/${path}`, { method: 'POST', headers, body: JSON.stringify(body), signal: stopping.signal });
  const unexpected = async (res: Response, what: string) =>
    new PresetServiceError(res.status, `${what} ${name}: ${res.status} ${(await res.text().catch(() => '')).slice(0, 500)}`);

  type Ack = { lease_id: string; position: string };
  const acknowledge = async (ack: Ack) => {
    const acked = await fetchImpl(`${base}/ack`, { method: 'POST', headers, body: JSON.stringify(ack) });
    if (acked.status !== 200) throw await unexpected(acked, 'acknowledge');
    await acked.body?.cancel().catch(() => {});
  };

  const run = async () => {
    let attempt = 0;
    // What was handled of the last batch, acknowledged by the next fetch (one request, one write).
    let handledBatch: Ack | undefined;
    const failed = async (error: unknown) => {
      report(error);
      await sleep(backoffDelay(attempt++, backoff, options.random), stopping.signal);
    };
    while (!stopping.signal.aborted) {
      try {
        const ack = handledBatch;
        const res = await post('fetch', { max: options.max ?? 100, wait_ms: options.waitMs ?? 20_000, ...(ack ? { ack } : {}) });
        if (res.status === 409 && ack) {
          // The acknowledgement was refused (the lease expired and went to another consumer, who
          // handles those events again): nothing was leased; fetch again without it.
          handledBatch = undefined;
          throw await unexpected(res, 'acknowledge (with a fetch from)');
        }
        // Answered: the acknowledgement is saved, with the new lease or before the wait (kept for
        // the retry when the fetch failed).
        if (res.status === 200) handledBatch = undefined;
        if (res.status === 409) {
          // Leased to another consumer (or to this one before a restart): wait until it may expire.
          const retry = Number(res.headers.get('retry-after') ?? '1');
          await res.body?.cancel().catch(() => {});
          await sleep(Math.min(Math.max(retry, 1), 600) * 1000, stopping.signal);
          continue;
        }
        if (res.status !== 200) throw await unexpected(res, 'fetch from');
        const batch = (await res.json()) as Batch;
        let handled: ApiEvent | undefined;
        let failure: unknown;
        for (const event of batch.data) {
          if (stopping.signal.aborted) break;
          try {
            await handler(event);
            handled = event;
          } catch (error) {
            failure = error;
            break;
          }
        }
        if (handled && batch.lease) {
          const ack = { lease_id: batch.lease.id, position: handled.position };
          // After a failure, or when stopping, acknowledged now; otherwise with the next fetch.
          if (failure !== undefined || stopping.signal.aborted) await acknowledge(ack);
          else handledBatch = ack;
        }
        if (failure !== undefined) await failed(failure);
        else attempt = 0;
      } catch (error) {
        if (stopping.signal.aborted) break;
        await failed(error);
      }
    }
    // Stopped with a batch handled and not yet acknowledged (the fetch that would have was not sent,
    // or was cut short): acknowledged now; refused (409) when that fetch had already done it.
    if (handledBatch) {
      await acknowledge(handledBatch).catch((error: unknown) => {
        if (!(error instanceof PresetServiceError && error.status === 409)) report(error);
      });
    }
  };
  const running = run();
  return {
    async stop() {
      stopping.abort();
      await running;
    },
  };
};
