import { join } from 'node:path';
import { createMemoryUsageStore } from '#src/usage/memory';
import { openMongoUsageStore } from '#src/usage/mongodb';
import { openSqliteUsageStore } from '#src/usage/sqlite';
import { storeContractSuites } from './storeSuites';
import { usageStoreContract } from './usageStoreContract';

storeContractSuites('usage store', usageStoreContract, {
  memory: createMemoryUsageStore,
  sqlite: (dir) => openSqliteUsageStore({ file: join(dir, 'usage.db') }),
  mongodb: (url) => openMongoUsageStore({ url, database: 'presets_contract' }),
});
