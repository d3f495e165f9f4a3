import { openEventStoreDbEventStore } from '#src/eventstore/eventstoredb/store';
import { eventStoreContract } from './eventStoreContract';
import { sharedTailContract } from './sharedTailContract';

// Runs against a real server only: `docker compose up -d eventstore`, then
// EVENTSTORE_URL=esdb://localhost:2113?tls=false npm run test:integration
const url = process.env.EVENTSTORE_URL;
const run = url ? describe : describe.skip;

run('event store contract: EventStoreDB (EVENTSTORE_URL)', () => {
  eventStoreContract(async () => {
    const store = openEventStoreDbEventStore({ url: url! });
    return { store, cleanup: () => store.close() };
  });
});

run('shared tail contract: EventStoreDB (EVENTSTORE_URL): one subscription to $all per process, fanned out', () => {
  sharedTailContract(async () => {
    const store = openEventStoreDbEventStore({ url: url! });
    return { store, cleanup: () => store.close() };
  });
});
