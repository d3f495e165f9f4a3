import type { ServerResponse } from 'node:http';
import { openCounts, type CapRefusal, type OpenCaps } from './caps';

/**
 * Server-sent event answers written straight to the Node response (the route sets
 * `ctx.respond = false`), and a registry of the open ones so a shutdown can end them before it
 * waits for requests in flight: an event stream never finishes by itself.
 */
export interface SseConnection {
  /**
   * Writes one event frame. Resolves once the socket has taken it, after 'drain' when the buffer
   * was full, so a slow consumer slows its producer; resolves at once when the connection closed.
   */
  send(id: string, event: string, data: string): Promise<void>;
  /**
   * Where the stream's reader has got to in the log (events of other workspaces and filtered-out
   * types included): a keep-alive carries it as the frame's `id`, so a client that reconnects
   * with Last-Event-ID resumes from there instead of re-reading what was skipped.
   */
  position(scanned: () => string | undefined): void;
  /** Ends the response: the client sees the stream end and may reconnect with Last-Event-ID. */
  end(): void;
  /**
   * Ends the response with a last frame `event: error` whose data is `data` (an error envelope):
   * the stream cannot go on (its key was revoked). It has no `id`, so a client's Last-Event-ID
   * stays where it was.
   */
  fail(data: string): void;
  /** Resolves when the response is closed, ended here or dropped by the client. */
  readonly closed: Promise<void>;
}

/** Open streams per API key and in this process (caps.ts). */
export type SseLimits = OpenCaps;

/** SSE_MAX_PER_KEY and SSE_MAX_CONNECTIONS unless configured: what a laptop serves without strain. */
export const DEFAULT_SSE_LIMITS: SseLimits = { perKey: 100, perProcess: 2000 };

/** Why a stream cannot be opened now. */
export type SseRefusal = CapRefusal;

export interface SseRegistry {
  /** Whether one more stream for this key may be opened now; null when it may. */
  refusal(keyId: string): SseRefusal | null;
  /**
   * Starts an event-stream answer on `res` (status, headers, `retry`, keep-alives) and tracks it
   * until it closes; null once shutting down (the caller answers 503 instead). Ask `refusal` first:
   * this opens whatever the limits say.
   */
  open(res: ServerResponse, options: { heartbeatMs: number; keyId?: string }): SseConnection | null;
  /** Ends every open stream; one that has not closed within `graceMs` (a consumer not reading) is destroyed. */
  closeAll(graceMs?: number): Promise<void>;
  readonly size: number;
  readonly limits: SseLimits;
}

export const SSE_HEADERS = {
  'Content-Type': 'text/event-stream; charset=utf-8',
  'Cache-Control': 'no-store',
  // nginx and similar proxies would otherwise buffer the stream
  'X-Accel-Buffering': 'no',
} as const;

/** A reconnecting EventSource waits this long (ms) before it tries again. */
export const SSE_RETRY_MS = 1000;

export const createSseRegistry = (limits: SseLimits = DEFAULT_SSE_LIMITS): SseRegistry => {
  const open = new Map<SseConnection, ServerResponse>();
  const counts = openCounts(limits);
  let closing = false;
  return {
    refusal: (keyId) => counts.refusal(keyId, open.size, closing),
    open(res, { heartbeatMs, keyId }) {
      if (closing) return null;
      const connection = connect(res, heartbeatMs);
      open.set(connection, res);
      if (keyId !== undefined) counts.opened(keyId);
      void connection.closed.then(() => {
        open.delete(connection);
        if (keyId !== undefined) counts.closed(keyId);
      });
      return connection;
    },
    async closeAll(graceMs = 1000) {
      closing = true;
      const entries = [...open];
      for (const [connection] of entries) connection.end();
      let timer: NodeJS.Timeout | undefined;
      const all = Promise.all(entries.map(([c]) => c.closed));
      await Promise.race([
        all,
        new Promise((resolve) => {
          timer = setTimeout(resolve, graceMs);
        }),
      ]);
      clearTimeout(timer);
      for (const [connection, res] of entries) if (open.has(connection)) res.destroy();
      await all;
    },
    get size() {
      return open.size;
    },
    limits,
  };
};

const connect = (res: ServerResponse, heartbeatMs: number): SseConnection => {
  let resolveClosed!: () => void;
  const closed = new Promise<void>((resolve) => {
    resolveClosed = resolve;
  });
  let lastWrite = Date.now();
  /** Since when the socket has taken nothing of what waits in its buffer (null: it has taken it all). */
  let stalledSince: number | null = null;
  let waiting = 0; // bytes in the buffer then
  let lastId: string | undefined;
  let scanned: () => string | undefined = () => undefined;
  const write = (chunk: string): boolean => {
    lastWrite = Date.now();
    timer.refresh(); // a keep-alive is due a whole interval after the last write
    const taken = res.write(chunk);
    if (!taken && stalledSince === null) {
      stalledSince = lastWrite;
      waiting = res.writableLength;
    }
    return taken;
  };
  const onDrain = () => {
    stalledSince = null;
  };
  const keepAlive = () => {
    if (res.writableEnded || res.destroyed) return;
    const now = Date.now();
    if (stalledSince !== null && res.writableLength < waiting) {
      // A slow reader, not a stalled one: it took some of the buffer since the last look.
      stalledSince = now;
      waiting = res.writableLength;
    }
    // A client that has read nothing for a whole interval is not coming back for the rest: drop it
    // rather than hold what it would be sent (it reconnects with Last-Event-ID if it is alive).
    if (stalledSince !== null && now - stalledSince >= heartbeatMs) {
      res.destroy();
      return;
    }
    if (stalledSince !== null || now - lastWrite < heartbeatMs) {
      timer.refresh();
      return;
    }
    // Only a quiet stream gets a keep-alive: a comment line, which keeps proxies and the client's
    // idle timers from cutting it, with the position scanned since the last event as its id (an
    // EventSource takes an id without data as its Last-Event-ID and dispatches nothing).
    const position = scanned();
    const moved = position !== undefined && BigInt(position) > BigInt(lastId ?? '0');
    if (moved) lastId = position;
    write(moved ? `: heartbeat\nid: ${position}\n\n` : ': heartbeat\n\n');
  };
  const timer = setTimeout(keepAlive, heartbeatMs);
  const onClose = () => {
    clearTimeout(timer);
    res.off('drain', onDrain);
    resolveClosed();
  };
  if (res.destroyed)
    onClose(); // the client left between the request and now
  else {
    res.once('close', onClose);
    res.on('drain', onDrain);
    res.writeHead(200, SSE_HEADERS);
    write(`retry: ${SSE_RETRY_MS}\n\n`);
  }

  const drained = () =>
    new Promise<void>((resolve) => {
      const done = () => {
        res.off('drain', done);
        res.off('close', done);
        resolve();
      };
      res.on('drain', done);
      res.on('close', done);
    });

  return {
    async send(id, event, data) {
      if (res.destroyed || res.writableEnded) return;
      lastId = id;
      // `data` is one line (JSON.stringify escapes CR and LF), so one `data:` field carries it.
      if (!write(`id: ${id}\nevent: ${event}\ndata: ${data}\n\n`)) await drained();
    },
    position(getter) {
      scanned = getter;
    },
    end() {
      if (!res.writableEnded && !res.destroyed) res.end();
    },
    fail(data) {
      if (res.writableEnded || res.destroyed) return;
      write(`event: error\ndata: ${data}\n\n`);
      res.end();
    },
    closed,
  };
};
