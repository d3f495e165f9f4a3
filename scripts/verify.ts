import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import type { EventStoreAdapter } from '../src/eventstore/eventStore';
import { describeBackends, openEventStore, openReadModel } from '../src/backends';
import type { ReadModel } from '../projections/readmodel/readModel';
import { verifyReadModel } from '../projections/verify';
import { verifyInThreads } from '../projections/verifyThreads';
import { threadEntry } from '../src/threads/thread';
import { cliLogger, errorMessage, runScript, startCli, type CliIo } from './cli';
import { createProgress } from './progress';

/** `npm run verify [-- --strict]`: compares the read model with the events (projections/verify.ts; docs/rebuild-verify.md). */
const USAGE = `Usage: npm run verify [-- --strict]
Folds every preset stream from the event store again and compares each preset and version with
the read model, printing one line per difference. Uses the service's environment (DATA_DIR,
EVENTSTORE_URL, MONGODB_URL) and may run while the service runs. --strict: a read model that has
not caught up with the events is a difference too. Exit 0: no difference; 1: differences; 2: could not verify.`;
const MAX_LINES = 1000;

export const main = async (argv: string[], io: CliIo): Promise<number> => {
  const cli = startCli('verify', argv, io, USAGE, ['strict'], { readModel: true });
  if ('exit' in cli) return cli.exit;
  const { flags, config } = cli;
  const strict = flags.strict === true;
  let eventStore: EventStoreAdapter | undefined;
  let readModel: ReadModel | undefined;
  try {
    eventStore = openEventStore(config, cliLogger(config), { readOnly: true });
    readModel = await openReadModel(config);
    const backends = describeBackends(config);
    const entry = threadEntry(join(__dirname, '..', 'src', 'workers'), 'verify');
    const threads = entry ? availableParallelism() : 0;
    io.out(
      `verify: events from ${backends.eventStore}, read model ${backends.readModel}${strict ? ' (strict)' : ''} ` +
        `(${threads > 0 ? `${threads} worker threads` : 'on one thread'})`,
    );
    const r = await verifyReadModel(eventStore, readModel, {
      strict,
      threads: entry ? verifyInThreads({ count: threads, entry, data: { config } }) : undefined,
      progress: (head) => createProgress({ label: 'verify: folding events', head, tty: io.tty, log: io.out }),
    });
    r.differences.slice(0, MAX_LINES).forEach((l) => io.out(l));
    if (r.differenceCount > MAX_LINES) io.out(`… and ${r.differenceCount - MAX_LINES} more differences`);
    if (r.behind > 0)
      io.out(
        `${strict ? 'difference: ' : ''}read model is behind by ${r.behind} events (checkpoint ${r.checkpoint ?? 'none'}, last event ${r.head})`,
      );
    if (r.lagging > 0)
      io.out(`${r.lagging} presets not compared: the read model had not reached their last event (--strict compares them)`);
    if (r.movedOn > 0) io.out(`${r.movedOn} presets not compared: they changed while verify ran`);
    const failures = r.differenceCount + (strict && r.behind > 0 ? 1 : 0);
    io.out(
      `verify: ${r.events} events, ${r.presets} presets, ${r.versions} versions: ${failures === 0 ? 'no differences' : `${failures} differences`}`,
    );
    return failures === 0 ? 0 : 1;
  } catch (error) {
    io.err(`verify could not run: ${errorMessage(error)}`);
    return 2;
  } finally {
    await readModel?.close().catch(() => {});
    await eventStore?.close().catch(() => {});
  }
};

if (require.main === module) runScript(main);
