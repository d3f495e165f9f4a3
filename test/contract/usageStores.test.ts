import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createMemoryUsageStore } from '../../src/usage/memory';
import { openMongoUsageStore } from '../../src/usage/mongodb';
import { openSqliteUsageStore } from '../../src/usage/sqlite';
import { usageStoreContract } from './usageStoreContract';

describe('usage store contract: in memory', () => {
  usageStoreContract(async () => {
    const store = createMemoryUsageStore();
    return { store, cleanup: () => store.close() };
  });
});

describe('usage store contract: embedded SQLite', () => {
  usageStoreContract(async () => {
    const dir = mkdtempSync(join(tmpdir(), 'presets-usage-'));
    const store = openSqliteUsageStore({ file: join(dir, 'usage.db') });
    return {
      store,
      cleanup: async () => {
        await store.close();
        rmSync(dir, { recursive: true, force: true });
      },
    };
  });
});

// Runs against a real server only: `docker compose up -d mongo`, then
// MONGODB_URL=mongodb://localhost:27017/?replicaSet=rs0&directConnection=true npm run test:integration
const url = process.env.MONGODB_URL;
(url ? describe : describe.skip)('usage store contract: MongoDB (MONGODB_URL)', () => {
  usageStoreContract(async () => {
    const store = await openMongoUsageStore({ url: url!, database: 'presets_contract' });
    return { store, cleanup: () => store.close() };
  });
});
