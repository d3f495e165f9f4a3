/**
 * The one message protocol across a thread boundary, the same on both sides: calls that are
 * answered (a request id, then a reply or a failure) and events that are not. A Worker (seen from
 * its parent) and `parentPort` (seen from inside) are both ports.
 */
import type { MessagePort, Worker } from 'node:worker_threads';

export type Port = Worker | MessagePort;

/* eslint-disable @typescript-eslint/no-explicit-any -- handler and listener arguments are whatever each API declares */
/** What one side lets the other call. Arguments and results must survive structured cloning. */
export type Api = Record<string, (...args: any[]) => unknown>;
/** What one side tells the other without waiting for an answer. */
export type Events = Record<string, any[]>;
/* eslint-enable @typescript-eslint/no-explicit-any */

type Message =
  | { kind: 'call'; id: number; method: string; args: unknown[] }
  | { kind: 'reply'; id: number; value: unknown }
  | { kind: 'fail'; id: number; message: string; code?: string }
  | { kind: 'event'; name: string; args: unknown[] };

/** A call failed on the other side, or the other side is gone. `code` is the error's own (SQLITE_FULL…). */
export class RemoteError extends Error {
  override readonly name = 'RemoteError';
  constructor(
    message: string,
    readonly code?: string,
  ) {
    super(message);
  }
}

export interface Endpoint<Remote extends Api, RemoteEvents extends Events, OwnEvents extends Events> {
  call<M extends keyof Remote & string>(method: M, ...args: Parameters<Remote[M]>): Promise<Awaited<ReturnType<Remote[M]>>>;
  on<E extends keyof RemoteEvents & string>(name: E, listener: (...args: RemoteEvents[E]) => void): void;
  emit<E extends keyof OwnEvents & string>(name: E, ...args: OwnEvents[E]): void;
  /** Answers the other side's calls with these handlers. */
  serve(handlers: Api): void;
  /** Fails every call still waiting for an answer (the other side is gone). */
  failAll(message: string): void;
}

export const endpoint = <Remote extends Api, RemoteEvents extends Events, OwnEvents extends Events = Events>(
  port: Port,
): Endpoint<Remote, RemoteEvents, OwnEvents> => {
  const waiting = new Map<number, { resolve: (value: unknown) => void; reject: (error: RemoteError) => void }>();
  const listeners = new Map<string, Array<(...args: unknown[]) => void>>();
  let handlers: Api = {};
  let next = 0;
  /** Why the other side is gone (failAll): a call made after it fails at once instead of waiting forever. */
  let gone: string | undefined;

  const answer = async (message: Extract<Message, { kind: 'call' }>) => {
    try {
      const handler = handlers[message.method];
      if (!handler) throw new Error(`no handler for ${message.method}`);
      const value = await handler(...message.args);
      port.postMessage({ kind: 'reply', id: message.id, value } satisfies Message);
    } catch (error) {
      const { message: text, code } = error as { message?: string; code?: unknown };
      port.postMessage({
        kind: 'fail',
        id: message.id,
        message: text ?? String(error),
        code: typeof code === 'string' ? code : undefined,
      } satisfies Message);
    }
  };

  port.on('message', (message: Message) => {
    switch (message.kind) {
      case 'call':
        return void answer(message);
      case 'event':
        for (const listener of listeners.get(message.name) ?? []) listener(...message.args);
        return;
      default: {
        const pending = waiting.get(message.id);
        waiting.delete(message.id);
        if (message.kind === 'reply') pending?.resolve(message.value);
        else pending?.reject(new RemoteError(message.message, message.code));
      }
    }
  });

  return {
    call: (method, ...args) =>
      new Promise((resolve, reject) => {
        if (gone !== undefined) return reject(new RemoteError(gone, 'THREAD_GONE'));
        const id = next++;
        waiting.set(id, { resolve: resolve as (value: unknown) => void, reject });
        port.postMessage({ kind: 'call', id, method, args } satisfies Message);
      }),
    on: (name, listener) => {
      listeners.set(name, [...(listeners.get(name) ?? []), listener as (...args: unknown[]) => void]);
    },
    emit: (name, ...args) => port.postMessage({ kind: 'event', name, args } satisfies Message),
    serve: (served) => {
      handlers = served;
    },
    failAll: (message) => {
      gone = message;
      for (const { reject } of waiting.values()) reject(new RemoteError(message, 'THREAD_GONE'));
      waiting.clear();
    },
  };
};
