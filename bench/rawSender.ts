/**
 * A sender that costs next to nothing: one prebuilt HTTP/1.1 request written on raw keep-alive
 * sockets at a fixed rate, answers read and dropped. The webhook bench's "receiver alone" windows
 * use it to measure what its receiver costs the reads with the service's delivery paused (the
 * receiver shares the machine's cores with the service and the load generator).
 *
 * `node dist/bench/rawSender.js PORT CONNECTIONS RATE REQUEST_FILE`: RATE requests a second on each
 * connection; on SIGTERM it prints `{"sent": N}` and exits.
 */
import { readFileSync } from 'node:fs';
import { connect } from 'node:net';
import { HOST } from './lib';

const [port, connections, rate, requestFile] = process.argv.slice(2);
const request = readFileSync(requestFile!);
let sent = 0;
for (let c = 0; c < Number(connections); c++) {
  const socket = connect(Number(port), HOST);
  socket.setNoDelay(true);
  socket.on('data', () => undefined);
  socket.on('error', (error) => {
    console.error(`raw sender: ${error.message}`);
    process.exit(1);
  });
  socket.on('connect', () => {
    const started = performance.now();
    let i = 0;
    const tick = () => {
      const wait = started + (i * 1000) / Number(rate) - performance.now();
      if (wait > 0) return void setTimeout(tick, wait);
      socket.write(request);
      sent++;
      i++;
      setImmediate(tick);
    };
    tick();
  });
}
process.on('SIGTERM', () => {
  console.log(JSON.stringify({ sent }));
  process.exit(0);
});
