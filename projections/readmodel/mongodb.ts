import { MongoClient, type AnyBulkWriteOperation, type Collection, type Document, type Filter, type Sort } from 'mongodb';
import { mongoUnavailable, connectMongo } from '../../src/mongodb/unavailable';
import {
  COLLECTIONS,
  checkpointUpdate,
  isOnlyDuplicateKey,
  presetListFilter,
  presetRecordOf,
  presetUpsert,
  versionInsert,
  versionViewOf,
  type CheckpointDocument,
} from './mongoDocuments';
import { plainChange, presetJsonOf, versionViewJson } from './documentJson';
import type { Page, PresetView, ProjectionChange, ReadModel } from './readModel';

/**
 * The read model on MongoDB. `apply` writes the documents, then the checkpoint: no transaction, so
 * no replica set is required, and a crash between the two only means the same events come again,
 * which the idempotent writes (mongoDocuments.ts) turn into no-ops. A transaction would not even
 * help: inside one, the E11000 that says "already applied" aborts the whole transaction.
 */
const guard = async <T>(f: () => Promise<T>): Promise<T> => {
  try {
    return await f();
  } catch (error) {
    throw mongoUnavailable(error);
  }
};

// Answers carry no `_id`: the views are the API's documents.
const noId = { projection: { _id: 0 } };

/** One page of a sorted query, and how many documents match in all. */
const findPage = async <T extends Document>(collection: Collection<T>, filter: Filter<T>, sort: Sort, page: Page) => {
  const [docs, total] = await Promise.all([
    // limit(0) would mean "no limit" to MongoDB
    page.limit > 0 ? collection.find(filter, noId).sort(sort).skip(page.offset).limit(page.limit).toArray() : [],
    collection.countDocuments(filter),
  ]);
  return { docs, total: Number(total) };
};

/**
 * Unordered: the writes commute (the highest revision wins, a version is written once), and an
 * ordered bulk write would stop at the first "already applied" duplicate and skip the rest.
 */
const bulkIdempotent = async (collection: Collection, ops: AnyBulkWriteOperation<Document>[]) => {
  if (ops.length === 0) return;
  try {
    await collection.bulkWrite(ops, { ordered: false });
  } catch (error) {
    if (!isOnlyDuplicateKey(error)) throw error;
  }
};

/** `collectionSuffix`: a rebuild writes into `presets<suffix>` etc., then renames them (projections/rebuildTarget.ts). */
export const openMongoReadModel = async (options: { url: string; database?: string; collectionSuffix?: string }): Promise<ReadModel> => {
  // useBigInt64: int64 values (the stored revisions) come back as bigint, not number or Long.
  const client = new MongoClient(options.url, { useBigInt64: true });
  const db = client.db(options.database); // undefined: the database named in the URL
  const suffix = options.collectionSuffix ?? '';
  const presets = db.collection(COLLECTIONS.presets + suffix);
  const versions = db.collection(COLLECTIONS.versions + suffix);
  const checkpoints = db.collection<CheckpointDocument>(COLLECTIONS.checkpoints + suffix);
  await connectMongo(client, () =>
    Promise.all([
      presets.createIndexes([
        { key: { workspace_id: 1, slug: 1 }, unique: true },
        { key: { workspace_id: 1, updated_at: -1, slug: 1 } }, // the list order
        { key: { workspace_id: 1, status: 1, updated_at: -1, slug: 1 } }, // ... of some statuses
        { key: { id: 1 }, unique: true },
      ]),
      versions.createIndex({ preset_id: 1, version: 1 }, { unique: true }),
    ]),
  );

  const getPreset: ReadModel['getPreset'] = (workspaceId, slug) =>
    guard(async () => {
      const doc = await presets.findOne({ workspace_id: workspaceId, slug }, noId);
      return doc ? presetRecordOf(doc) : null;
    });

  return {
    apply: (changes: ProjectionChange[], checkpoint) =>
      guard(async () => {
        const presetOps: AnyBulkWriteOperation<Document>[] = [];
        const versionOps: AnyBulkWriteOperation<Document>[] = [];
        // Documents are stored as objects: a config a projector kept as its stored text is parsed here.
        for (const change of changes.map(plainChange)) {
          if (change.kind === 'putPreset') presetOps.push({ replaceOne: presetUpsert(change.record) });
          else versionOps.push({ insertOne: versionInsert(change.version) });
        }
        // Versions first: a reader never finds a preset whose designated version is not stored yet.
        await bulkIdempotent(versions, versionOps);
        await bulkIdempotent(presets, presetOps);
        if (!checkpoint) return;
        const cp = checkpointUpdate(checkpoint);
        await checkpoints.updateOne(cp.filter, cp.update, { upsert: cp.upsert });
      }),
    checkpoint: (name) =>
      guard(async () => {
        const doc = await checkpoints.findOne({ _id: name });
        return doc ? BigInt(doc.position) : null;
      }),
    getPreset,
    getPresetJson: async (workspaceId, slug) => {
      const record = await getPreset(workspaceId, slug);
      return record && presetJsonOf(record);
    },
    listPresets: (workspaceId, page, statuses, search) =>
      guard(async () => {
        const filter = presetListFilter(workspaceId, statuses, search) as Filter<Document>;
        const { docs, total } = await findPage(presets, filter, { updated_at: -1, slug: 1 }, page);
        return { items: docs.map((d) => presetRecordOf(d).view as PresetView), total };
      }),
    getVersion: (presetId, version) =>
      guard(async () => {
        const doc = await versions.findOne({ preset_id: presetId, version }, noId);
        return doc ? versionViewOf(doc) : null;
      }),
    getLatestVersion: (presetId) =>
      guard(async () => {
        const doc = await versions.findOne({ preset_id: presetId }, { ...noId, sort: { version: -1 } });
        return doc ? versionViewOf(doc) : null;
      }),
    listVersions: (presetId, page) =>
      guard(async () => {
        const { docs, total } = await findPage(versions, { preset_id: presetId }, { version: 1 }, page);
        return { items: docs.map(versionViewOf), total };
      }),
    // MongoDB keeps documents, not text: the text made again here, compared as the embedded one's.
    listVersionsJson: (presetId, page) =>
      guard(async () => {
        if (page.limit <= 0) return [];
        const found = await versions.find({ preset_id: presetId }, noId).sort({ version: 1 }).skip(page.offset).limit(page.limit).toArray();
        return found.map((d) => {
          const view = versionViewOf(d);
          return { version: view.version, json: versionViewJson(view) };
        });
      }),
    close: () => client.close(),
  };
};
