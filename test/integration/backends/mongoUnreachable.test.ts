import { StoreUnavailable } from '#src/eventstore/eventStore';
import { openMongoReadModel } from '#projections/readmodel/mongodb';

// No server: port 1 on the loopback refuses connections; the real driver's server selection fails.
it('reports an unreachable MongoDB as StoreUnavailable when opening the read model', async () => {
  const opening = openMongoReadModel({ url: 'mongodb://127.0.0.1:1/presets?serverSelectionTimeoutMS=200' });
  await expect(opening).rejects.toBeInstanceOf(StoreUnavailable);
});
