/**
 * The export's memory (bench/audit.ts): `node -r dist/bench/peakRss.js dist/bench/auditExport.js <dir> <workspace>`
 * streams the signed export of a workspace from the embedded store in `dir` into a sink that
 * drains at its own pace (backpressure, as a slow HTTP client), through the same generator the
 * route serves (src/audit/export.ts). Prints `{"lines","bytes","seconds"}`.
 */
import { pipeline } from 'node:stream/promises';
import { Readable, Writable } from 'node:stream';
import { join } from 'node:path';
import { exportLines } from '../src/audit/export';
import { loadSigningKey } from '../src/audit/signing';
import { openSqliteEventStore } from '../src/eventstore/sqlite/store';

const [dir, workspaceId] = process.argv.slice(2);

const main = async () => {
  const store = openSqliteEventStore({ file: join(dir!, 'events.db'), writerThread: false });
  const key = await loadSigningKey(dir!);
  let lines = 0;
  let bytes = 0;
  const started = process.hrtime.bigint();
  await pipeline(
    Readable.from(exportLines(store, { workspaceId: workspaceId! }, key)),
    new Writable({
      highWaterMark: 64 * 1024,
      write(chunk: Buffer | string, _encoding, done) {
        lines++;
        bytes += chunk.length;
        setImmediate(done);
      },
    }),
  );
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  await store.close();
  process.stdout.write(`${JSON.stringify({ lines, bytes, seconds })}\n`);
};

main().catch((error: unknown) => {
  process.stderr.write(`${(error as Error).stack}\n`);
  process.exitCode = 1;
});
