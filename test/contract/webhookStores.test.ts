import { join } from 'node:path';
import { openMemoryWebhookStore } from '#src/webhooks/memory';
import { openMongoWebhookStore } from '#src/webhooks/mongodb';
import { openSqliteWebhookStore } from '#src/webhooks/sqlite';
import { storeContractSuites } from './storeSuites';
import { webhookStoreContract } from './webhookStoreContract';

storeContractSuites('webhook store', webhookStoreContract, {
  memory: openMemoryWebhookStore,
  sqlite: (dir) => openSqliteWebhookStore({ file: join(dir, 'webhooks.db') }),
  mongodb: (url) => openMongoWebhookStore({ url, database: 'presets_contract' }),
});
