import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openMongoConsumerGroupStore } from '../../src/consumerGroups/mongodb';
import { openSqliteConsumerGroupStore } from '../../src/consumerGroups/sqlite';
import { openMemoryConsumerGroupStore } from '../../src/consumerGroups/store';
import { openSqliteWebhookStore } from '../../src/webhooks/sqlite';
import { consumerGroupStoreContract } from './consumerGroupStoreContract';

describe('consumer group store contract: in memory', () => {
  consumerGroupStoreContract(async () => {
    const store = openMemoryConsumerGroupStore();
    return { store, cleanup: () => store.close() };
  });
});

describe('consumer group store contract: embedded SQLite (in the webhooks file)', () => {
  consumerGroupStoreContract(async () => {
    const dir = mkdtempSync(join(tmpdir(), 'presets-groups-'));
    // The file the webhooks' progress lives in, opened by both stores as the service does.
    const webhooks = openSqliteWebhookStore({ file: join(dir, 'webhooks.db') });
    const store = openSqliteConsumerGroupStore({ file: join(dir, 'webhooks.db') });
    return {
      store,
      cleanup: async () => {
        await store.close();
        await webhooks.close();
        rmSync(dir, { recursive: true, force: true });
      },
    };
  });
});

// Runs against a real server only: `docker compose up -d mongo`, then
// MONGODB_URL=mongodb://localhost:27017/?replicaSet=rs0&directConnection=true npm run test:integration
const url = process.env.MONGODB_URL;
(url ? describe : describe.skip)('consumer group store contract: MongoDB (MONGODB_URL)', () => {
  consumerGroupStoreContract(async () => {
    const store = await openMongoConsumerGroupStore({ url: url!, database: 'presets_contract' });
    return { store, cleanup: () => store.close() };
  });
});
