import { join } from 'node:path';
import { openMongoConsumerGroupStore } from '#src/consumerGroups/mongodb';
import { openSqliteConsumerGroupStore } from '#src/consumerGroups/sqlite';
import { openMemoryConsumerGroupStore } from '#src/consumerGroups/store';
import { openSqliteWebhookStore } from '#src/webhooks/sqlite';
import { consumerGroupStoreContract } from './consumerGroupStoreContract';
import { storeContractSuites } from './storeSuites';

storeContractSuites('consumer group store', consumerGroupStoreContract, {
  memory: openMemoryConsumerGroupStore,
  // In the file the webhooks' progress lives in, opened by both stores as the service does.
  sqlite: (dir) => {
    const webhooks = openSqliteWebhookStore({ file: join(dir, 'webhooks.db') });
    const store = openSqliteConsumerGroupStore({ file: join(dir, 'webhooks.db') });
    return {
      ...store,
      async close() {
        await store.close();
        await webhooks.close();
      },
    };
  },
  mongodb: (url) => openMongoConsumerGroupStore({ url, database: 'presets_contract' }),
});
