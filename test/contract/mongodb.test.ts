import { openMongoReadModel } from '#projections/readmodel/mongodb';
import { readModelContract } from './readModelContract';

// Runs against a real server only: `docker compose up -d mongo`, then
// MONGODB_URL=mongodb://localhost:27017/?replicaSet=rs0&directConnection=true npm run test:integration
const url = process.env.MONGODB_URL;
const run = url ? describe : describe.skip;

run('read model contract: MongoDB (MONGODB_URL)', () => {
  readModelContract(async () => {
    // A database of its own; each test uses fresh workspace ids, so data left by earlier runs is harmless.
    const readModel = await openMongoReadModel({ url: url!, database: 'presets_contract' });
    return { readModel, cleanup: () => readModel.close() };
  });
});
