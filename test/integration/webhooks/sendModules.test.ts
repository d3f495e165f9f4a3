import { execFileSync } from 'node:child_process';
import { join } from 'node:path';

/**
 * The delivery thread loads only the parts of undici a delivery uses (src/webhooks/send.ts): the
 * built sender, in a process of its own, delivers to a receiver on 127.0.0.1, and what it loaded
 * of undici is then read from the module cache. Against dist/ (built by the jest run's global
 * setup), so the paths are those node resolves in the service.
 */
const ROOT = join(__dirname, '..', '..', '..');
const SCRIPT = `
const { createServer } = require('node:http');
const { newConnections, send } = require(${JSON.stringify(join(ROOT, 'dist/src/webhooks/send.js'))});
const server = createServer((req, res) => { req.resume(); req.on('end', () => res.writeHead(204).end()); });
server.listen(0, '127.0.0.1', async () => {
  const connections = newConnections({ allowPrivateNetworks: true });
  const sent = await send('http://127.0.0.1:' + server.address().port + '/hook', '{"a":1}', {}, { timeoutMs: 2000, policy: { allowPrivateNetworks: true }, connections });
  await connections.destroy();
  server.close();
  const marker = '/node_modules/undici/';
  const undici = Object.keys(require.cache).filter((f) => f.includes(marker)).map((f) => f.slice(f.indexOf(marker) + marker.length));
  process.stdout.write(JSON.stringify({ result: sent.result, undici }));
});
`;

describe('the webhook sender', () => {
  it('delivers with undici’s Agent alone, without its index, its request API, fetch or WebSocket', () => {
    const out = JSON.parse(execFileSync(process.execPath, ['-e', SCRIPT], { cwd: ROOT, timeout: 20_000 }).toString()) as {
      result: unknown;
      undici: string[];
    };
    expect(out.result).toEqual({ status: 204 });
    expect(out.undici).toEqual(expect.arrayContaining(['lib/dispatcher/agent.js']));
    expect(out.undici).not.toContain('index.js');
    // The dispatcher's own handler interface: no request API with its body streams.
    expect(out.undici.filter((f) => f.startsWith('lib/api/'))).toEqual([]);
    expect(out.undici.filter((f) => f.startsWith('lib/web/') || f.startsWith('lib/mock/') || f.startsWith('lib/cache/'))).toEqual([]);
    // What the index would have loaded: 111 modules of undici 7.30; the Agent alone, 24.
    expect(out.undici.length).toBeLessThan(50);
  });
});
