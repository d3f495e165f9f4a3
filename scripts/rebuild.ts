import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import type { EventStoreAdapter } from '../src/eventstore/eventStore';
import { describeBackends, openEventStore, openReadModel } from '../src/backends';
import { threadEntry } from '../src/threads/thread';
import { catchUp, rebuildInto } from '../projections/rebuild';
import { openRebuildTarget, type RebuildTarget } from '../projections/rebuildTarget';
import { cliLogger, errorMessage, runScript, startCli, type CliIo } from './cli';
import { createProgress } from './progress';
import { WORKSPACE_STREAM_PREFIX } from '../src/events/workspaceStreams';

/**
 * `npm run rebuild`: projects every preset event again into a fresh read model, then switches to
 * it (projections/rebuild.ts; docs/rebuild-verify.md).
 */
const USAGE = `Usage: npm run rebuild
Rebuilds the read model from every event in the event store into a fresh read model, then switches
to it. Uses the service's environment (DATA_DIR, EVENTSTORE_URL, MONGODB_URL). With the embedded
SQLite read model, stop the service first. Exit 0: done; 1: failed (the live read model is unchanged
unless the message says otherwise); 2: bad usage or configuration, or no event store at DATA_DIR.`;

export const main = async (argv: string[], io: CliIo): Promise<number> => {
  const cli = startCli('rebuild', argv, io, USAGE, [], { readModel: false });
  if ('exit' in cli) return cli.exit;
  const { config } = cli;
  const backends = describeBackends(config);
  let eventStore: EventStoreAdapter | undefined;
  let target: RebuildTarget | undefined;
  let switched = false;
  const started = Date.now();
  try {
    eventStore = openEventStore(config, cliLogger(config), { readOnly: true });
    target = await openRebuildTarget(config);
    const entry = threadEntry(join(__dirname, '..', 'src', 'workers'), 'rebuild');
    const threads = entry ? availableParallelism() : 0;
    io.out(
      `rebuild: events from ${backends.eventStore}, read model ${backends.readModel}, building into ${target.description} ` +
        `(${threads > 0 ? `${threads} worker threads` : 'on one thread'})`,
    );
    const built = await rebuildInto(eventStore, target.readModel, {
      log: io.out,
      progress: (head) => createProgress({ label: 'rebuild', head, tty: io.tty, log: io.out }),
      writer: target.writer,
      threads: entry ? { count: threads, entry, data: { config } } : undefined,
    });
    if (built.events === 0) io.out('rebuild: the event store holds no preset events: the rebuilt read model is empty');
    const notes = await target.switchOver();
    switched = true;
    // A projector still running on the old read model (MongoDB) may have taken events during the
    // switch: project everything after the rebuilt checkpoint into the now-live read model too.
    const live = await openReadModel(config);
    try {
      await catchUp(eventStore, live, {
        after: built.position,
        until: await eventStore.headPosition({ streamPrefix: WORKSPACE_STREAM_PREFIX }),
      });
    } finally {
      await live.close();
    }
    const seconds = (Date.now() - started) / 1000;
    io.out(
      `rebuild: done, ${built.events} events in ${seconds.toFixed(1)} s (${Math.round(built.events / Math.max(seconds, 0.001))} events/s), checkpoint ${built.position ?? 'none'}`,
    );
    notes.forEach((note) => io.out(note));
    return 0;
  } catch (error) {
    if (switched) {
      io.err(
        `rebuild: switched to the rebuilt read model, but the catch-up after it failed: ${errorMessage(error)}. The projector projects the rest when it runs.`,
      );
      return 1;
    }
    await target?.discard().catch((e: unknown) => io.err(`rebuild: could not remove the fresh read model: ${errorMessage(e)}`));
    io.err(`rebuild failed: ${errorMessage(error)}. The live read model is unchanged.`);
    return 1;
  } finally {
    await eventStore?.close().catch(() => {});
  }
};

if (require.main === module) runScript(main);
