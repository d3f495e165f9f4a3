import { parseArgs } from 'node:util';
import { describeBackends, openEventStore } from '../src/backends';
import type { EventStoreAdapter } from '../src/eventstore/eventStore';
import { sealLog } from '../src/audit/seal';
import { loadSigningKey } from '../src/audit/signing';
import { verifyLog, type LogShareOptions, type LogShareReport } from '../src/audit/verify';
import { runSharesInThreads } from '../src/threads/shares';
import { threadEntry } from '../src/threads/thread';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { cliConfig, cliLogger, errorMessage, missingStore, runScript, type CliIo } from './cli';

/**
 * `npm run audit:seal | audit:verify | audit:public-key` (docs/audit.md), with the service's
 * environment (DATA_DIR, EVENTSTORE_URL):
 * - seal: computes the hash chain over a log written before it, records the links beside the
 *   events (rewriting none) and a first checkpoint per workspace. Stop the service first.
 * - verify: recomputes every chain and checkpoint; names the first event that does not match.
 * - public-key: prints the Ed25519 public key (PEM) that checks signed exports.
 */
const USAGE = `Usage: npm run audit:seal | npm run audit:verify | npm run audit:public-key
  (node dist/scripts/audit.js seal|verify|public-key)
seal        record the hash chain of a log written before events carried one (once; stop the service first)
verify      recompute every stream's chain and every checkpoint; exit 0 when all match, 1 naming the first fault
public-key  print the public key (PEM) that checks the service's signed exports
Exit 2: bad usage, configuration or a store that cannot be read.`;

const PROGRESS_EVERY = 100_000;

export const main = async (argv: string[], io: CliIo): Promise<number> => {
  let command: string | undefined;
  try {
    const { positionals, values } = parseArgs({ args: argv, options: { help: { type: 'boolean' } }, allowPositionals: true, strict: true });
    if (values.help) {
      io.out(USAGE);
      return 0;
    }
    command = positionals[0];
    if (positionals.length !== 1 || !['seal', 'verify', 'public-key'].includes(command!)) throw new Error('name one command');
  } catch (error) {
    io.err(`${errorMessage(error)}\n${USAGE}`);
    return 2;
  }
  const config = cliConfig(io);
  if (!config) return 2;
  if (command === 'public-key') {
    try {
      const key = await loadSigningKey(config.dataDir, { create: false });
      io.out(key.publicKeyPem.trimEnd());
      io.err(`key id ${key.keyId} (Ed25519), from ${config.dataDir}`);
      return 0;
    } catch (error) {
      io.err(`audit:public-key: no signing key in ${config.dataDir} (the service makes it when it first starts): ${errorMessage(error)}`);
      return 2;
    }
  }
  const missing = missingStore(config, { readModel: false });
  if (missing) {
    io.err(`audit:${command}: ${missing}`);
    return 2;
  }
  let store: EventStoreAdapter | undefined;
  try {
    store = openEventStore(config, cliLogger(config), { readOnly: true });
    io.out(`audit:${command}: events from ${describeBackends(config).eventStore}`);
    let next = PROGRESS_EVERY;
    const onProgress = (events: number) => {
      if (events < next) return;
      io.out(`audit:${command}: ${events} events…`);
      next = events + PROGRESS_EVERY;
    };
    if (command === 'seal') {
      const r = await sealLog(store, { onProgress });
      if (r.state === 'already_sealed') io.out('audit:seal: the log is already sealed (every event has its link); nothing to do');
      else if (r.state === 'empty') io.out('audit:seal: the log is empty; nothing to do');
      else io.out(`audit:seal: sealed ${r.sealed} events in ${r.streams} streams, ${r.checkpoints} first checkpoints recorded`);
      return 0;
    }
    const started = Date.now();
    // Built, verify runs in threads, a slice of the log's positions each (its chains and the checkpoints due in it); from source, here.
    const entry = threadEntry(join(__dirname, '..', 'src', 'workers'), 'auditVerify');
    const count = availableParallelism();
    const threads = entry
      ? runSharesInThreads<Omit<LogShareOptions, 'share'>, LogShareReport>({
          count,
          entry,
          kind: 'verifyLoader',
          data: { config },
        })
      : undefined;
    if (threads) io.out(`audit:verify: checked in ${count} worker threads, a slice of the log each`);
    const r = await verifyLog(store, { onProgress, threads });
    const seconds = (Date.now() - started) / 1000;
    const rate = seconds > 0 ? Math.round(r.events / seconds) : r.events;
    if (!r.fault) {
      io.out(
        `audit:verify: ${r.events} events in ${r.streams} streams and ${r.checkpoints} checkpoints match (${seconds.toFixed(1)} s, ${rate} events/s)`,
      );
      return 0;
    }
    const f = r.fault;
    io.out(
      `audit:verify: FAULT ${f.kind} at ${f.stream} revision ${f.revision}${f.position ? ` (position ${f.position})` : ''}: ${f.message}`,
    );
    return 1;
  } catch (error) {
    io.err(`audit:${command} could not run: ${errorMessage(error)}`);
    return 2;
  } finally {
    await store?.close().catch(() => {});
  }
};

if (require.main === module) runScript(main);
