import { openMemoryEventStore } from '#src/eventstore/memory';
import { openMemoryReadModel } from '#projections/readmodel/memory';
import { eventStoreContract } from './eventStoreContract';
import { sharedTailContract } from './sharedTailContract';
import { readModelContract } from './readModelContract';

describe('event store contract: in memory', () => {
  eventStoreContract(async () => {
    const store = openMemoryEventStore();
    return { store, cleanup: () => store.close() };
  });
});

describe('shared tail contract: in memory', () => {
  sharedTailContract(async () => {
    const store = openMemoryEventStore();
    return { store, cleanup: () => store.close() };
  });
});

describe('read model contract: in memory', () => {
  readModelContract(async () => {
    const readModel = openMemoryReadModel();
    return { readModel, cleanup: () => readModel.close() };
  });
});
