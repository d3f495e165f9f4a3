import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openMemoryWebhookStore } from '../../src/webhooks/memory';
import { openMongoWebhookStore } from '../../src/webhooks/mongodb';
import { openSqliteWebhookStore } from '../../src/webhooks/sqlite';
import { webhookStoreContract } from './webhookStoreContract';

describe('webhook store contract: in memory', () => {
  webhookStoreContract(async () => {
    const store = openMemoryWebhookStore();
    return { store, cleanup: () => store.close() };
  });
});

describe('webhook store contract: embedded SQLite', () => {
  webhookStoreContract(async () => {
    const dir = mkdtempSync(join(tmpdir(), 'presets-webhooks-'));
    const store = openSqliteWebhookStore({ file: join(dir, 'webhooks.db') });
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
(url ? describe : describe.skip)('webhook store contract: MongoDB (MONGODB_URL)', () => {
  webhookStoreContract(async () => {
    const store = await openMongoWebhookStore({ url: url!, database: 'presets_contract' });
    return { store, cleanup: () => store.close() };
  });
});
