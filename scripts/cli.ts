import * as E from 'fp-ts/Either';
import pino from 'pino';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { EVENTS_FILE, READ_MODEL_FILE } from '../src/backends';
import { loadConfig, type Config } from '../src/config';
import { createLogger } from '../src/logger';

/**
 * What `npm run rebuild` and `npm run verify` share: their I/O (so tests run them as functions),
 * argument parsing and the service's configuration, read from the same environment.
 */
export interface CliIo {
  out: (line: string) => void;
  err: (line: string) => void;
  env: Record<string, string | undefined>;
  /** A terminal to draw a progress bar on; without one, progress is plain lines on `out`. */
  tty?: NodeJS.WriteStream;
}

export const processIo = (): CliIo => ({
  out: (line) => process.stdout.write(`${line}\n`),
  err: (line) => process.stderr.write(`${line}\n`),
  env: process.env,
  tty: process.stderr.isTTY ? process.stderr : undefined,
});

/** Runs a CLI's main as a script: its answer becomes the exit code. */
export const runScript = (main: (argv: string[], io: CliIo) => Promise<number>) => {
  main(process.argv.slice(2), processIo()).then(
    (code) => {
      process.exitCode = code;
    },
    (error: unknown) => {
      process.stderr.write(`${(error as Error)?.stack ?? String(error)}\n`);
      process.exitCode = 1;
    },
  );
};

export type Flags = Record<string, boolean>;

/** Parses boolean flags; `exit` is set (after printing why, or the usage for --help) when the command should not run. */
export const parseFlags = (argv: string[], io: CliIo, usage: string, names: string[]): { flags: Flags; exit?: number } => {
  try {
    const options = Object.fromEntries([...names, 'help'].map((n) => [n, { type: 'boolean' as const }]));
    const { values } = parseArgs({ args: argv, options, strict: true, allowPositionals: false });
    const flags = Object.fromEntries(Object.entries(values).map(([k, v]) => [k, v === true]));
    if (flags.help) {
      io.out(usage);
      return { flags, exit: 0 };
    }
    return { flags };
  } catch (error) {
    io.err(`${(error as Error).message}\n${usage}`);
    return { flags: {}, exit: 2 };
  }
};

/** The service's configuration, or null after printing each problem. */
export const cliConfig = (io: CliIo): Config | null => {
  const config = loadConfig(io.env);
  if (E.isRight(config)) return config.right;
  for (const problem of config.left) io.err(`configuration: ${problem}`);
  return null;
};

/**
 * Why an embedded store the command needs is missing, or null. Opening a missing SQLite file would
 * create an empty one: a wrong DATA_DIR would then rebuild (or verify) nothing, and say all is well.
 */
export const missingStore = (config: Config, needs: { readModel: boolean }): string | null => {
  const events = join(config.dataDir, EVENTS_FILE);
  const readModel = join(config.dataDir, READ_MODEL_FILE);
  if (!config.eventstoreUrl && !existsSync(events)) return `there is no event store at ${events} (is DATA_DIR right?)`;
  if (needs.readModel && !config.mongodbUrl && !existsSync(readModel))
    return `there is no read model at ${readModel} (start the service, or npm run rebuild)`;
  return null;
};

/** Store logs (EventStoreDB reconnects) go to stderr, so stdout stays the command's report. */
/**
 * How rebuild and verify both start: their flags, the configuration, the stores they need. Either
 * what they go on with, or the exit code to stop with (from --help, or 2 for bad usage,
 * configuration or a missing store, the message already written).
 */
export const startCli = (
  name: string,
  argv: string[],
  io: CliIo,
  usage: string,
  flagNames: string[],
  needs: { readModel: boolean },
): { flags: Flags; config: Config } | { exit: number } => {
  const { flags, exit } = parseFlags(argv, io, usage, flagNames);
  if (exit !== undefined) return { exit };
  const config = cliConfig(io);
  if (!config) return { exit: 2 };
  const missing = missingStore(config, needs);
  if (missing) {
    io.err(`${name}: ${missing}`);
    return { exit: 2 };
  }
  return { flags, config };
};

export const cliLogger = (config: Config) => createLogger(config.logLevel, pino.destination({ fd: 2, sync: true }));

export const errorMessage = (error: unknown): string => (error instanceof Error ? error.message : String(error));
