import * as E from 'fp-ts/Either';
import { mkdir } from 'node:fs/promises';
import { describeBackends, openEventStore, openReadModel } from './backends';
import { loadConfig } from './config';
import { createLogger } from './logger';
import { setHeapFlags } from './threads/heapFlags';
import { startProjector } from '../projections/projector';

/** `npm run projector`: the projector alone, for deployments that run the API with PROJECTOR=off. */
const main = async () => {
  setHeapFlags();
  const config = loadConfig(process.env);
  if (E.isLeft(config)) {
    for (const problem of config.left) console.error(`configuration: ${problem}`);
    process.exit(1);
  }
  const logger = createLogger(config.right.logLevel).child({ component: 'projector' });
  await mkdir(config.right.dataDir, { recursive: true });
  logger.info(describeBackends(config.right), 'opening stores');
  const eventStore = openEventStore(config.right, logger);
  const readModel = await openReadModel(config.right);
  const projector = await startProjector({ feed: eventStore, readModel, logger });
  const stop = async () => {
    await projector.stop();
    await eventStore.close();
    await readModel.close();
    process.exit(0);
  };
  process.once('SIGTERM', () => void stop());
  process.once('SIGINT', () => void stop());
};

void main();
