import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { newConnections, send, USER_AGENT } from '#src/webhooks/send';

/** The sender against real servers on 127.0.0.1: what it does with redirects, silence, big answers, and refused addresses. */
let server: Server;
let base: string;
const seen: Array<{ path: string; headers: Record<string, unknown>; body: string }> = [];
const allowed = { allowPrivateNetworks: true };
const connections = newConnections(allowed);

beforeAll(async () => {
  server = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      seen.push({ path: req.url!, headers: req.headers, body });
      if (req.url === '/redirect') return res.writeHead(307, { location: `${base}/target` }).end();
      if (req.url === '/silent') return; // never answers
      if (req.url === '/big') return res.writeHead(200).end('x'.repeat(5 * 1024 * 1024));
      if (req.url === '/hints') {
        res.writeEarlyHints({ link: '</style.css>; rel=preload; as=style' });
        return res.writeHead(202).end();
      }
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await connections.destroy();
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
});
beforeEach(() => {
  seen.length = 0;
});

const options = (over: Partial<Parameters<typeof send>[3]> = {}) => ({ timeoutMs: 2000, policy: allowed, connections, ...over });

it('POSTs the body with the given headers, JSON content type and its user agent', async () => {
  const sent = await send(`${base}/ok?x=1`, '{"a":1}', { 'webhook-id': 'e1' }, options());
  expect(sent.result).toEqual({ status: 204 });
  expect(seen).toEqual([
    {
      path: '/ok?x=1',
      body: '{"a":1}',
      headers: expect.objectContaining({
        'webhook-id': 'e1',
        'content-type': 'application/json',
        'content-length': '7',
        'user-agent': USER_AGENT,
      }),
    },
  ]);
});

it('does not follow a redirect: the 3xx is the outcome', async () => {
  expect((await send(`${base}/redirect`, '{}', {}, options())).result).toEqual({ status: 307 });
  expect(seen.map((s) => s.path)).toEqual(['/redirect']);
});

it('gives up on a receiver that does not answer within the timeout', async () => {
  const sent = await send(`${base}/silent`, '{}', {}, options({ timeoutMs: 300 }));
  expect(sent.result).toEqual({ error: 'no answer within 300 ms' });
});

it('takes a 2xx with a large body as delivered, and the next delivery goes through', async () => {
  expect((await send(`${base}/big`, '{}', {}, options())).result).toEqual({ status: 200 });
  expect((await send(`${base}/ok`, '{}', {}, options())).result).toEqual({ status: 204 });
});

it('takes the final status as the outcome, not an informational 1xx before it', async () => {
  expect((await send(`${base}/hints`, '{}', {}, options())).result).toEqual({ status: 202 });
  expect((await send(`${base}/ok`, '{}', {}, options())).result).toEqual({ status: 204 });
});

it('says a connection was refused', async () => {
  const closed = createServer();
  await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
  const port = (closed.address() as AddressInfo).port;
  await new Promise((r) => closed.close(r));
  expect((await send(`http://127.0.0.1:${port}/`, '{}', {}, options())).result).toEqual({ error: 'connection refused (ECONNREFUSED)' });
});

it('refuses private addresses when they are not allowed, literal or resolved at connection time, sending nothing', async () => {
  const port = (server.address() as AddressInfo).port;
  const literal = await send(`http://127.0.0.1:${port}/ok`, '{}', {}, options({ policy: { allowPrivateNetworks: false } }));
  expect(literal.result).toEqual({ error: expect.stringMatching(/^refused: 127\.0\.0\.1 is a loopback address/) });
  const named = await send(
    `http://localhost:${port}/ok`,
    '{}',
    {},
    options({ policy: { allowPrivateNetworks: false }, connections: newConnections({ allowPrivateNetworks: false }) }),
  );
  expect(named.result).toEqual({ error: expect.stringMatching(/^refused: localhost resolves to (127\.0\.0\.1|::1): .*loopback address/) });
  expect(seen).toEqual([]);
});

it('stops at once when aborted', async () => {
  const ac = new AbortController();
  const sending = send(`${base}/silent`, '{}', {}, options({ timeoutMs: 10_000, signal: ac.signal, connections: newConnections(allowed) }));
  setTimeout(() => ac.abort(), 50);
  expect((await sending).result).toEqual({ error: 'aborted' });
});
