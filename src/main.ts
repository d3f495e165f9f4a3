import * as E from 'fp-ts/Either';
import { loadConfig } from './config';
import { createLogger } from './logger';
import { startService } from './service';
import { setHeapFlags } from './threads/heapFlags';

/** `npm start`: the API (with its projector, unless PROJECTOR=off) until SIGTERM or SIGINT. */
const main = async () => {
  setHeapFlags();
  const config = loadConfig(process.env);
  if (E.isLeft(config)) {
    for (const problem of config.left) console.error(`configuration: ${problem}`);
    process.exit(1);
  }
  const logger = createLogger(config.right.logLevel);
  let service;
  try {
    service = await startService(config.right, logger, (line) => process.stdout.write(`${line}\n`));
  } catch (error) {
    logger.fatal({ err: error }, 'could not start');
    console.error(`presets could not start: ${(error as Error).message}`);
    process.exit(1);
  }
  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) {
      logger.warn({ signal }, 'second signal: exiting now');
      process.exit(1);
    }
    stopping = true;
    logger.info({ signal }, 'stopping');
    service.close().then(
      () => process.exit(0),
      (error) => {
        logger.error({ err: error }, 'error while stopping');
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
};

void main();
