import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

/**
 * A real webhook receiver on 127.0.0.1: a node:http server that keeps every request it gets and
 * answers as the test says. It can go down (connections refused) and come back on the same port.
 */
export interface Received {
  headers: IncomingHttpHeaders;
  body: string;
  at: number;
  /** What the receiver did with it. */
  answered?: number | 'hang' | 'drop';
}

/** What to do with the nth request (from 1): answer a status (now or after a while), never answer, or drop the connection. */
export type Behaviour = (n: number, received: Received) => number | 'hang' | 'drop' | { status: number; afterMs: number };

export interface Receiver {
  url: string;
  port: number;
  received: Received[];
  /** The event ids of the requests received, in order. */
  ids(): string[];
  /** The event ids of the requests answered with a 2xx, in order. */
  acknowledged(): string[];
  behave(behaviour: Behaviour): void;
  /** Stops listening and drops every connection: further attempts are refused. */
  down(): Promise<void>;
  /** Listens again on the same port. */
  up(): Promise<void>;
  /** Resolves once `predicate` holds for what was received; rejects after `timeoutMs`. */
  until(predicate: (received: Received[]) => boolean, timeoutMs?: number): Promise<Received[]>;
  close(): Promise<void>;
}

export const startReceiver = async (behaviour: Behaviour = () => 204, path = '/hook'): Promise<Receiver> => {
  let behave = behaviour;
  const received: Received[] = [];
  const sockets = new Set<Socket>();
  const hanging = new Set<ServerResponse>();
  let port = 0;
  let server: Server;

  const listen = async () => {
    server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const r: Received = { headers: req.headers, body: Buffer.concat(chunks).toString('utf8'), at: Date.now() };
        received.push(r);
        const what = behave(received.length, r);
        if (what === 'hang') return void ((r.answered = what), hanging.add(res));
        if (what === 'drop') return void ((r.answered = what), req.socket.destroy());
        const answer = (status: number) => {
          if (res.destroyed) return;
          res.statusCode = status;
          res.end(() => {
            r.answered = status;
          });
        };
        if (typeof what === 'number') return answer(what);
        hanging.add(res);
        setTimeout(() => {
          hanging.delete(res);
          answer(what.status);
        }, what.afterMs);
      });
    });
    server.on('connection', (s) => {
      sockets.add(s);
      s.once('close', () => sockets.delete(s));
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, '127.0.0.1', () => resolve());
    });
    port = (server.address() as AddressInfo).port;
  };
  const stop = () =>
    new Promise<void>((resolve) => {
      for (const res of hanging) res.destroy();
      hanging.clear();
      for (const s of sockets) s.destroy();
      server.close(() => resolve());
    });

  await listen();
  return {
    get url() {
      return `http://127.0.0.1:${port}${path}`;
    },
    get port() {
      return port;
    },
    received,
    ids: () => received.map((r) => String(r.headers['webhook-id'])),
    acknowledged: () =>
      received
        .filter((r) => typeof r.answered === 'number' && r.answered >= 200 && r.answered < 300)
        .map((r) => String(r.headers['webhook-id'])),
    behave: (b) => {
      behave = b;
    },
    down: stop,
    up: listen,
    until: async (predicate, timeoutMs = 15_000) => {
      const deadline = Date.now() + timeoutMs;
      while (!predicate(received)) {
        if (Date.now() > deadline)
          throw new Error(`the receiver did not get what was awaited within ${timeoutMs} ms; it got ${received.length} requests`);
        await new Promise((r) => setTimeout(r, 20));
      }
      return received;
    },
    close: stop,
  };
};
