import Database from 'better-sqlite3';
import type { Db } from 'mongodb';
import { closeSync, existsSync, fsyncSync, openSync, renameSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { BulkWriter } from './loadStreams';
import type { ProjectionChange, ReadModel } from './readmodel/readModel';
import { openSqliteReadModel, READ_MODEL_FILE, type SqliteRows } from './readmodel/sqlite';

// The MongoDB client takes half a second to load: a SQLite rebuild never loads it (as src/backends.ts).
const mongodb = (): typeof import('mongodb') => require('mongodb');
const mongoReadModel = (): typeof import('./readmodel/mongodb') => require('./readmodel/mongodb');
const mongoDocuments = (): typeof import('./readmodel/mongoDocuments') => require('./readmodel/mongoDocuments');

/**
 * Where a rebuild writes: a fresh read model beside the live one, and how to make it the live one.
 * Kept apart from `ReadModel`, which the request handlers use and which knows nothing of this.
 */
export interface RebuildTarget {
  /** Fresh and empty when opened. */
  readonly readModel: ReadModel;
  /** How the rebuild's load writes into it (loadStreams.ts). */
  readonly writer: BulkWriter;
  readonly description: string;
  /** Closes the fresh read model and puts it in place of the live one; returns notes for the operator. */
  switchOver(): Promise<string[]>;
  /** Throws the fresh read model away (after a failure); the live one is untouched. */
  discard(): Promise<void>;
}

export class ReadModelInUse extends Error {
  override readonly name = 'ReadModelInUse';
}

export const openRebuildTarget = (config: { mongodbUrl?: string; dataDir: string }, now = new Date()): Promise<RebuildTarget> =>
  config.mongodbUrl ? openMongoRebuildTarget(config.mongodbUrl) : Promise.resolve(openSqliteRebuildTarget(config.dataDir, now));

/**
 * Fails when another process has the SQLite file open. Renaming a file under an open connection
 * would leave that process on the old file, and its WAL clean-up on close would delete the new
 * file's WAL by name: so the service (and any `npm run projector`) must be stopped, not restarted after.
 * An exclusive lock cannot be had while any other connection holds the file (WAL keeps a shared lock).
 */
export const assertNotInUse = (file: string): void => {
  if (!existsSync(file)) return;
  const db = new Database(file, { timeout: 0 });
  try {
    db.pragma('locking_mode = EXCLUSIVE');
    db.exec('BEGIN EXCLUSIVE; COMMIT');
  } catch (error) {
    if ((error as { code?: string }).code?.startsWith('SQLITE_BUSY')) {
      throw new ReadModelInUse(`${file} is open in another process (the service, or npm run projector): stop it and run the rebuild again`);
    }
    throw error;
  } finally {
    db.close(); // the last connection: checkpoints the old WAL and removes it
  }
};

const fsyncPath = (path: string) => {
  const fd = openSync(path, 'r');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
};

const removeDatabaseFiles = (file: string) => {
  for (const f of [file, `${file}-journal`, `${file}-wal`, `${file}-shm`]) rmSync(f, { force: true });
};

export const openSqliteRebuildTarget = (dataDir: string, now = new Date()): RebuildTarget => {
  const live = join(dataDir, READ_MODEL_FILE);
  assertNotInUse(live); // fail before a long build, not after it
  const stamp = now.toISOString().replace(/[-:.]/g, '');
  const fresh = join(dataDir, `${READ_MODEL_FILE}.rebuild-${stamp}`);
  removeDatabaseFiles(fresh);
  // No journal, no fsync while building: a crash or failure throws the file away anyway.
  const readModel = openSqliteReadModel({ file: fresh, bulkLoad: true });
  return {
    readModel,
    writer: { encoding: 'sqlite', write: (rows) => readModel.applyRows(rows as SqliteRows), finish: () => readModel.finishBulkLoad() },
    description: `SQLite ${fresh}`,
    async switchOver() {
      await readModel.close();
      fsyncPath(fresh); // built without fsync: make it durable before it becomes the live file
      assertNotInUse(live);
      // The old file's WAL and shared memory must go with it, or SQLite would replay them into the new file.
      for (const f of [`${live}-wal`, `${live}-shm`]) rmSync(f, { force: true });
      renameSync(fresh, live); // atomic on one file system
      fsyncPath(dataDir);
      return [
        `${live} is now the rebuilt read model. Start the service (or npm run projector) again: it continues from the rebuilt checkpoint.`,
      ];
    },
    async discard() {
      await readModel.close();
      removeDatabaseFiles(fresh);
    },
  };
};

const REBUILD_SUFFIX = '__rebuild';
const rebuildNames = () => {
  const { COLLECTIONS } = mongoDocuments();
  return [COLLECTIONS.versions, COLLECTIONS.presets, COLLECTIONS.checkpoints]; // versions first: see switchOver
};

const dropRebuildCollections = async (db: Db) => {
  const existing = new Set((await db.listCollections({}, { nameOnly: true }).toArray()).map((c) => c.name));
  for (const name of rebuildNames()) if (existing.has(name + REBUILD_SUFFIX)) await db.dropCollection(name + REBUILD_SUFFIX);
};

export const openMongoRebuildTarget = async (url: string, database?: string): Promise<RebuildTarget> => {
  const client = new (mongodb().MongoClient)(url);
  await client.connect();
  const db = client.db(database);
  try {
    await dropRebuildCollections(db); // left by a rebuild that failed: start fresh
  } catch (error) {
    await client.close();
    throw error;
  }
  const readModel = await mongoReadModel().openMongoReadModel({ url, database, collectionSuffix: REBUILD_SUFFIX });
  return {
    readModel,
    writer: { encoding: 'changes', write: (changes) => readModel.apply(changes as ProjectionChange[]) },
    description: `MongoDB collections ${rebuildNames()
      .map((n) => n + REBUILD_SUFFIX)
      .join(', ')}`,
    async switchOver() {
      await readModel.close();
      // One rename per collection (MongoDB has no multi-collection rename). Versions first, so a
      // reader that finds a rebuilt preset also finds its designated version.
      for (const name of rebuildNames()) await db.renameCollection(name + REBUILD_SUFFIX, name, { dropTarget: true });
      await client.close();
      return ['The rebuilt collections are now live; a running service and projector use them at once (no restart).'];
    },
    async discard() {
      await readModel.close().catch(() => {});
      await dropRebuildCollections(db).finally(() => client.close());
    },
  };
};
