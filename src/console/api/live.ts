import { createParser } from 'eventsource-parser';
import { ApiFailure, explain } from './client';
import type { PresetEvent } from './types';

/**
 * The workspace's live event feed (GET /api/v1/events as text/event-stream), read over fetch
 * because a browser EventSource cannot send the Authorization header. Reconnects with
 * Last-Event-ID after a drop, so no event is missed or repeated; a silent connection (no event,
 * no heartbeat comment) is taken for a dead one.
 */
export type LiveState = 'connecting' | 'live' | 'reconnecting' | 'denied';

export interface LiveOptions {
  key: string;
  /** Follow from after this position; null: from the start. */
  after: string | null;
  onEvent(event: PresetEvent): void;
  /** The stream is open (again): anything may have happened while it was not. */
  onOpen(): void;
  onState(state: LiveState): void;
  /** 401 or 403: following stops. */
  onDenied(failure: ApiFailure): void;
}

/** The service's heartbeat comes every 15 s by default (SSE_HEARTBEAT_MS): three missed is a dead connection. */
const SILENCE_MS = 45_000;
const MAX_BACKOFF_MS = 15_000;

export const followEvents = (options: LiveOptions): (() => void) => {
  const stopped = new AbortController();
  let lastId = options.after;
  let retryMs = 1000;

  const connectOnce = async () => {
    const attempt = new AbortController();
    const abort = () => attempt.abort();
    stopped.signal.addEventListener('abort', abort);
    let watchdog: ReturnType<typeof setTimeout> | undefined;
    const heard = () => {
      clearTimeout(watchdog);
      watchdog = setTimeout(abort, SILENCE_MS);
    };
    try {
      const headers: Record<string, string> = { Authorization: `Bearer ${options.key}`, Accept: 'text/event-stream' };
      if (lastId !== null) headers['Last-Event-ID'] = lastId;
      const res = await fetch('/api/v1/events', { headers, signal: attempt.signal, cache: 'no-store' });
      if (res.status === 401 || res.status === 403) {
        const body = (await res.json().catch(() => ({}))) as { error?: { message?: string; metadata?: Record<string, unknown> } };
        const metadata = body.error?.metadata ?? {};
        options.onDenied(new ApiFailure(res.status, explain(res.status, body.error?.message ?? '', metadata), metadata));
        return 'denied';
      }
      if (!res.ok || !res.body) return 'failed';
      heard();
      options.onState('live');
      options.onOpen();
      let denied: ApiFailure | undefined;
      const parser = createParser({
        onEvent: (message) => {
          // The service ended the stream: its key was revoked or expired (401, in the error envelope).
          if (message.event === 'error') {
            const body = JSON.parse(message.data) as { error?: { code?: number; message?: string; metadata?: Record<string, unknown> } };
            const code = body.error?.code ?? 401;
            const metadata = body.error?.metadata ?? {};
            denied = new ApiFailure(code, explain(code, body.error?.message ?? '', metadata), metadata);
            return;
          }
          if (message.id) lastId = message.id;
          if (message.data) options.onEvent(JSON.parse(message.data) as PresetEvent);
        },
        onRetry: (ms) => {
          retryMs = ms;
        },
        onComment: heard,
      });
      const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
      for (;;) {
        const { done, value } = await reader.read();
        if (done) {
          if (!denied) return 'ended';
          options.onDenied(denied);
          return 'denied';
        }
        heard();
        parser.feed(value);
      }
    } catch {
      return 'failed';
    } finally {
      clearTimeout(watchdog);
      stopped.signal.removeEventListener('abort', abort);
    }
  };

  const run = async () => {
    options.onState('connecting');
    for (let failures = 0; !stopped.signal.aborted;) {
      const outcome = await connectOnce();
      if (outcome === 'denied') {
        options.onState('denied');
        return;
      }
      if (stopped.signal.aborted) return;
      // A stream the server ended (a restart) reconnects at once; failures back off.
      failures = outcome === 'ended' ? 0 : failures + 1;
      options.onState('reconnecting');
      const wait = Math.min(retryMs * 2 ** Math.max(0, failures - 1), MAX_BACKOFF_MS);
      await new Promise((resolve) => setTimeout(resolve, outcome === 'ended' ? retryMs : wait));
    }
  };
  void run();
  return () => stopped.abort();
};
