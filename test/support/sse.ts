/**
 * A small server-sent events client over fetch, for tests: it parses frames as EventSource does
 * (blank-line separated; `field: value` lines; `:` comments) and never reconnects by itself, so a
 * test decides when to drop and when to come back with Last-Event-ID.
 */
import { checkResponse } from './contract';

export interface SseFrame {
  id?: string;
  event?: string;
  data?: string;
  retry?: string;
  comments: string[];
}

export interface SseClient {
  res: Response;
  /** The next frame, or null once the server ended the stream; rejects after `timeoutMs`. */
  next(timeoutMs?: number): Promise<SseFrame | null>;
  /** The next `n` event frames (frames with data), skipping heartbeats and `retry`. */
  events(n: number, timeoutMs?: number): Promise<SseFrame[]>;
  /** Drops the connection, as a consumer that crashes or loses its network would. */
  close(): void;
}

const parseFrame = (block: string): SseFrame => {
  const frame: SseFrame = { comments: [] };
  for (const line of block.split('\n')) {
    if (line.startsWith(':')) {
      frame.comments.push(line.slice(1).trim());
      continue;
    }
    const colon = line.indexOf(':');
    const field = colon < 0 ? line : line.slice(0, colon);
    const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
    if (field === 'id' || field === 'event' || field === 'retry') frame[field] = value;
    else if (field === 'data') frame.data = frame.data === undefined ? value : `${frame.data}\n${value}`;
  }
  return frame;
};

/** `fetcher`: the fetch to read it with (a specification's, in process), fetch itself by default. */
export const openSse = async (url: string, headers: Record<string, string>, fetcher: typeof fetch = fetch): Promise<SseClient> => {
  const abort = new AbortController();
  const res = await fetcher(url, { headers: { accept: 'text/event-stream', ...headers }, signal: abort.signal });
  await checkResponse('GET', url, res); // status and headers (and the body of an error answer)
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  const queue: SseFrame[] = [];
  let buffer = '';
  let ended = false;

  const pull = async (): Promise<void> => {
    const { done, value } = await reader.read();
    if (done) {
      ended = true;
      return;
    }
    buffer += decoder.decode(value, { stream: true });
    for (let i = buffer.indexOf('\n\n'); i >= 0; i = buffer.indexOf('\n\n')) {
      queue.push(parseFrame(buffer.slice(0, i)));
      buffer = buffer.slice(i + 2);
    }
  };

  const next = async (timeoutMs = 5000): Promise<SseFrame | null> => {
    const deadline = Date.now() + timeoutMs;
    while (queue.length === 0 && !ended) {
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`no SSE frame within ${timeoutMs} ms`)), Math.max(0, deadline - Date.now()));
      });
      try {
        await Promise.race([pull(), timeout]);
      } finally {
        clearTimeout(timer);
      }
    }
    return queue.shift() ?? null;
  };

  return {
    res,
    next,
    async events(n, timeoutMs) {
      const found: SseFrame[] = [];
      while (found.length < n) {
        const frame = await next(timeoutMs);
        if (frame === null) throw new Error(`the stream ended after ${found.length} of ${n} events`);
        if (frame.data !== undefined) found.push(frame);
      }
      return found;
    },
    close: () => abort.abort(),
  };
};

/** Reads frames until the stream ends (or `timeoutMs` passes): every frame it had, the last one last. */
export const drainSse = async (client: SseClient, timeoutMs: number): Promise<SseFrame[]> => {
  const frames: SseFrame[] = [];
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const frame = await client.next(Math.max(1, deadline - Date.now()));
    if (frame === null) return frames;
    frames.push(frame);
  }
};

/** The stream ended with the final `error` frame of a key that is gone (no id: nothing to resume from), for `reason`. */
export const expectEndedByKeyGone = (frames: SseFrame[], reason: string): void => {
  const last = frames.at(-1)!;
  expect(last.event).toBe('error');
  expect(last.id).toBeUndefined();
  expect(JSON.parse(last.data!)).toEqual({ error: { code: 401, message: expect.any(String), metadata: { reason } } });
};
