import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * One contract suite run against each adapter of a store port: in memory, embedded SQLite (in a
 * temporary directory, removed after each test) and MongoDB, which runs against a real server only:
 * `docker compose up -d mongo`, then
 * MONGODB_URL=mongodb://localhost:27017/?replicaSet=rs0&directConnection=true npm run test:integration
 * (reported as skipped, by name, without it).
 */
interface Closable {
  close(): Promise<void>;
}

export const storeContractSuites = <S extends Closable>(
  name: string,
  contract: (open: () => Promise<{ store: S; cleanup(): Promise<void> }>) => void,
  adapters: { memory: () => S; sqlite: (dir: string) => S; mongodb: (url: string) => Promise<S> },
) => {
  describe(`${name} contract: in memory`, () => {
    contract(async () => {
      const store = adapters.memory();
      return { store, cleanup: () => store.close() };
    });
  });

  describe(`${name} contract: embedded SQLite`, () => {
    contract(async () => {
      const dir = mkdtempSync(join(tmpdir(), 'presets-contract-'));
      const store = adapters.sqlite(dir);
      return {
        store,
        cleanup: async () => {
          await store.close();
          rmSync(dir, { recursive: true, force: true });
        },
      };
    });
  });

  const url = process.env.MONGODB_URL;
  (url ? describe : describe.skip)(`${name} contract: MongoDB (MONGODB_URL)`, () => {
    contract(async () => {
      const store = await adapters.mongodb(url!);
      return { store, cleanup: () => store.close() };
    });
  });
};
