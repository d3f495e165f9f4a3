import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { connect, type Socket } from 'node:net';
import { createSseRegistry, type SseConnection } from '#src/http/sse';

/**
 * A consumer whose socket stops reading is dropped after one keep-alive interval with nothing
 * taken, instead of the stream holding what it would be sent: memory stays bounded by the
 * socket's buffers, and the consumer (if alive) reconnects with Last-Event-ID.
 */
/** Long enough that a reader taking 3 MB/s empties the kernel's socket buffers (a few MB) within it. */
const HEARTBEAT_MS = 2000;
let server: Server;
let opened: Promise<SseConnection>;
beforeEach(async () => {
  const registry = createSseRegistry();
  let resolve!: (c: SseConnection) => void;
  opened = new Promise((r) => (resolve = r));
  server = createServer((_req, res) => resolve(registry.open(res, { heartbeatMs: HEARTBEAT_MS })!));
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
});
afterEach(async () => {
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
});

const request = (): Socket => {
  const socket = connect((server.address() as AddressInfo).port, '127.0.0.1');
  socket.write('GET /events HTTP/1.1\r\nHost: x\r\nAccept: text/event-stream\r\n\r\n');
  return socket;
};

it('drops a stream whose client has stopped reading, once its buffer has stayed full for a keep-alive interval', async () => {
  const socket = request();
  const connection = await opened;
  socket.pause(); // a client that never reads again
  const frame = 'x'.repeat(64 * 1024);
  let sent = 0;
  let dropped = false;
  void connection.closed.then(() => (dropped = true));
  // Send until a frame is not taken (the socket's buffers are full), as the shared tail would.
  const started = Date.now();
  while (!dropped) {
    await connection.send(String(++sent), 'E', frame);
    if (Date.now() - started > 20_000) throw new Error('never dropped');
  }
  await connection.closed;
  // Held at most what the buffers took before the stall: far less than an unbounded queue.
  expect(sent * frame.length).toBeLessThan(64 * 1024 * 1024);
  socket.destroy();
});

it('keeps a slow reader that does take what it is sent', async () => {
  const socket = request();
  const connection = await opened;
  let dropped = false;
  void connection.closed.then(() => (dropped = true));
  socket.on('data', () => {
    socket.pause();
    setTimeout(() => socket.resume(), 20); // reads, slowly (64 KiB per 20 ms)
  });
  const frame = 'y'.repeat(64 * 1024);
  for (let i = 0; i < 100 && !dropped; i++) await connection.send(String(i), 'E', frame);
  expect(dropped).toBe(false);
  connection.end();
  socket.destroy();
});
