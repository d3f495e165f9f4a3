import type { ServerResponse } from 'node:http';

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
  /** Ends the response: the client sees the stream end and may reconnect with Last-Event-ID. */
  end(): void;
  /** Resolves when the response is closed, ended here or dropped by the client. */
  readonly closed: Promise<void>;
}

export interface SseRegistry {
  /**
   * Starts an event-stream answer on `res` (status, headers, `retry`, heartbeats) and tracks it
   * until it closes; null once shutting down (the caller answers 503 instead).
   */
  open(res: ServerResponse, options: { heartbeatMs: number }): SseConnection | null;
  /** Ends every open stream; one that has not closed within `graceMs` (a consumer not reading) is destroyed. */
  closeAll(graceMs?: number): Promise<void>;
  readonly size: number;
}

export const SSE_HEADERS = {
  'Content-Type': 'text/event-stream; charset=utf-8',
  'Cache-Control': 'no-store',
  // nginx and similar proxies would otherwise buffer the stream
  'X-Accel-Buffering': 'no',
} as const;

/** A reconnecting EventSource waits this long (ms) before it tries again. */
export const SSE_RETRY_MS = 1000;

export const createSseRegistry = (): SseRegistry => {
  const open = new Map<SseConnection, ServerResponse>();
  let closing = false;
  return {
    open(res, { heartbeatMs }) {
      if (closing) return null;
      const connection = connect(res, heartbeatMs);
      open.set(connection, res);
      void connection.closed.then(() => open.delete(connection));
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
  };
};

const connect = (res: ServerResponse, heartbeatMs: number): SseConnection => {
  let resolveClosed!: () => void;
  const closed = new Promise<void>((resolve) => {
    resolveClosed = resolve;
  });
  const heartbeat = setInterval(() => {
    // A comment line: keeps proxies and the client's idle timers from cutting an idle stream.
    // Skipped while the buffer is full: the stream is evidently not idle then.
    if (!res.writableNeedDrain && !res.writableEnded) res.write(': heartbeat\n\n');
  }, heartbeatMs);
  const onClose = () => {
    clearInterval(heartbeat);
    resolveClosed();
  };
  if (res.destroyed)
    onClose(); // the client left between the request and now
  else {
    res.once('close', onClose);
    res.writeHead(200, SSE_HEADERS);
    res.write(`retry: ${SSE_RETRY_MS}\n\n`);
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
      // `data` is one line (JSON.stringify escapes CR and LF), so one `data:` field carries it.
      if (!res.write(`id: ${id}\nevent: ${event}\ndata: ${data}\n\n`)) await drained();
    },
    end() {
      if (!res.writableEnded && !res.destroyed) res.end();
    },
    closed,
  };
};
