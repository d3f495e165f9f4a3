import { openMemoryReadModel } from '../../projections/readmodel/memory';
import { readModelContract } from './readModelContract';

describe('read model contract: in memory', () => {
  readModelContract(async () => {
    const readModel = openMemoryReadModel();
    return { readModel, cleanup: () => readModel.close() };
  });
});
