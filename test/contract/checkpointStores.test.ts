import { join } from 'node:path';
import { memoryCheckpoints } from '#src/feed/checkpoints';
import { openMongoCheckpoints } from '#src/feed/mongoCheckpoints';
import { openSqliteCheckpoints } from '#src/feed/sqliteCheckpoints';
import { openMemoryReadModel } from '#projections/readmodel/memory';
import { openMongoReadModel } from '#projections/readmodel/mongodb';
import { openSqliteReadModel } from '#projections/readmodel/sqlite';
import { readModelCheckpoints } from '#projections/readModelCheckpoints';
import { checkpointStoreContract } from './checkpointStoreContract';
import { storeContractSuites } from './storeSuites';

storeContractSuites('checkpoint store', checkpointStoreContract, {
  memory: memoryCheckpoints,
  sqlite: (dir) => openSqliteCheckpoints({ file: join(dir, 'checkpoints.db') }),
  mongodb: (url) => openMongoCheckpoints({ url, database: 'presets_contract' }),
});

/** The read model keeps its checkpoints with its documents; as a processor's store it holds the same contract. */
const asStore = <R extends Parameters<typeof readModelCheckpoints>[0] & { close(): Promise<void> }>(readModel: R) => ({
  ...readModelCheckpoints(readModel),
  close: () => readModel.close(),
});
storeContractSuites('read model as a checkpoint store', checkpointStoreContract, {
  memory: () => asStore(openMemoryReadModel()),
  sqlite: (dir) => asStore(openSqliteReadModel({ file: join(dir, 'readmodel.db') })),
  mongodb: async (url) => asStore(await openMongoReadModel({ url, database: 'presets_contract' })),
});
