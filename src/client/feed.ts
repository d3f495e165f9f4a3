import { createParser, type EventSourceMessage } from 'eventsource-parser';
import { PresetServiceError } from './api';

/**
 * Follows the workspace's live event feed (GET /api/v1/events as server-sent events): each event
 * is handed on, in order, and only once it has been handled does the feed move past it, so a
 * connection that drops, or an event whose handling fails, resumes with `Last-Event-ID` at the
 * first event not handled. Reconnects with exponential backoff and full jitter.
 */
export interface FeedOptions {
  open(lastEventId: string | undefined, signal: AbortSignal): Promise<Response>;
  /** Start after this event id (a feed position); undefined: from the start. */
  after: string | undefined;
  onEvent(event: EventSourceMessage): Promise<void>;
  /** The stream is open (again). */
  onOpen(): void;
  /** The stream is down (dropped, refused, or an event could not be handled); it will be tried again. */
  onDown(error?: unknown): void;
  backoff: { initialMs: number; maxMs: number };
  random?: () => number;
}

export interface Feed {
  stop(): Promise<void>;
}

/** The wait before reconnect attempt `attempt` (from 0): a random time up to the exponential bound. */
export const backoffDelay = (attempt: number, { initialMs, maxMs }: FeedOptions['backoff'], random: () => number = Math.random): number =>
  random() * Math.min(maxMs, initialMs * 2 ** Math.min(attempt, 30));

const pause = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve) => {
    if (signal.aborted) return resolve();
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
    signal.addEventListener('abort', done, { once: true });
  });

export const followFeed = (o: FeedOptions): Feed => {
  const stopping = new AbortController();
  let lastEventId = o.after;
  let attempt = 0;

  const readStream = async (res: Response) => {
    const queue: EventSourceMessage[] = [];
    const parser = createParser({ onEvent: (event) => queue.push(event) });
    const reader = res.body!.getReader();
    const decoder = new TextDecoder();
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) return;
        parser.feed(decoder.decode(value, { stream: true }));
        while (queue.length > 0) {
          const event = queue.shift()!;
          await o.onEvent(event);
          if (event.id !== undefined) lastEventId = event.id;
          attempt = 0; // an event went through: the next drop starts the backoff afresh
        }
      }
    } finally {
      reader.cancel().catch(() => {});
    }
  };

  const run = async () => {
    while (!stopping.signal.aborted) {
      try {
        const res = await o.open(lastEventId, stopping.signal);
        if (res.status !== 200) {
          await res.body?.cancel().catch(() => {});
          throw new PresetServiceError(res.status, `GET /api/v1/events answered ${res.status}`);
        }
        o.onOpen();
        await readStream(res);
        if (!stopping.signal.aborted) o.onDown(); // the service ended the stream (it is shutting down): come back
      } catch (error) {
        if (stopping.signal.aborted) break;
        o.onDown(error);
      }
      await pause(backoffDelay(attempt++, o.backoff, o.random), stopping.signal);
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
