import { MongoBulkWriteError, MongoNetworkError, MongoServerError, type BulkWriteResult, type WriteError } from 'mongodb';
import {
  checkpointUpdate,
  isOnlyDuplicateKey,
  presetListFilter,
  presetRecordOf,
  presetUpsert,
  versionInsert,
  versionViewOf,
} from '#projections/readmodel/mongoDocuments';
import type { PresetView, VersionView } from '#projections/readmodel/readModel';

const version: VersionView = {
  id: 'v-1',
  preset_id: 'p-1',
  version: 2,
  config: { model: 'm', temperature: 0.2 },
  system_prompt: 'hi',
  template_format: 'none',
  variables: null,
  messages: [],
  note: null,
  source_format: 'responses',
  creator_id: 'u-1',
  created_at: '2026-01-02T00:00:00.000Z',
  updated_at: '2026-01-02T00:00:00.000Z',
};
const preset: PresetView = {
  id: 'p-1',
  name: 'Alpha',
  slug: 'alpha',
  description: null,
  status: 'active',
  status_updated_at: null,
  created_at: '2026-01-01T00:00:00.000Z',
  updated_at: '2026-01-02T00:00:00.000Z',
  creator_user_id: 'u-1',
  workspace_id: 'w-1',
  labels: {},
  designated_version_id: 'v-1',
  designated_version: version,
};

// The driver does not export WriteError at run time (a type only); its instances expose these getters.
const writeError = (code: number, index = 0) => ({ index, code, errmsg: `E${code}` }) as unknown as WriteError;
const bulkError = (errors: WriteError[], writeConcernError?: object) =>
  new MongoBulkWriteError({ message: errors[0]?.errmsg ?? 'write concern', code: errors[0]?.code ?? 64, writeErrors: errors }, {
    getWriteConcernError: () => writeConcernError,
  } as unknown as BulkWriteResult);

describe('MongoDB read model documents', () => {
  it('filters a list by workspace, statuses and a search taken literally, ignoring case', () => {
    expect(presetListFilter('w-1')).toEqual({ workspace_id: 'w-1' });
    expect(presetListFilter('w-1', ['active', 'disabled'])).toEqual({ workspace_id: 'w-1', status: { $in: ['active', 'disabled'] } });
    const { $or } = presetListFilter('w-1', undefined, 'a.b*(c)') as { $or: Array<Record<string, { $regex: string; $options: string }>> };
    expect($or.map((c) => Object.keys(c)[0])).toEqual(['slug', 'name']);
    const pattern = $or[0]!.slug!;
    expect(pattern.$options).toBe('i');
    const regex = new RegExp(pattern.$regex, pattern.$options);
    expect(['x-A.B*(C)-y', 'a.b*(c)'].every((s) => regex.test(s))).toBe(true);
    expect(['aXb*(c)', 'a.bbb(c)', 'a.b*c'].some((s) => regex.test(s))).toBe(false);
  });

  it('replaces a preset whole (no update operator: a config may hold $-prefixed names) only over a lower revision, upserting', () => {
    expect(presetUpsert({ view: preset, revision: 3n })).toEqual({
      filter: { workspace_id: 'w-1', slug: 'alpha', revision: { $lt: 3n } },
      replacement: { ...preset, revision: 3n },
      upsert: true,
    });
  });

  it('inserts a version as a copy (the driver adds its _id to what it inserts)', () => {
    const insert = versionInsert(version);
    expect(insert).toEqual({ document: version });
    expect(insert.document).not.toBe(version);
  });

  it('keeps the checkpoint as a decimal string, exact beyond int64', () => {
    const position = 2n ** 64n * 12345n + 2n ** 53n + 1n;
    expect(checkpointUpdate({ name: 'presets', position })).toEqual({
      filter: { _id: 'presets' },
      update: { $set: { position: position.toString() } },
      upsert: true,
    });
    expect(BigInt(checkpointUpdate({ name: 'x', position }).update.$set.position)).toBe(position);
  });

  it('returns views without Mongo’s _id and the revision, which comes back as a bigint', () => {
    expect(presetRecordOf({ _id: 'oid', ...preset, revision: 4n })).toEqual({ view: preset, revision: 4n });
    expect(presetRecordOf({ ...preset, revision: 4 }).revision).toBe(4n);
    expect(versionViewOf({ _id: 'oid', ...version })).toEqual(version);
  });
});

describe('MongoDB duplicate key: "already applied"', () => {
  it('is swallowed when every failed write is E11000', () => {
    expect(isOnlyDuplicateKey(new MongoServerError({ message: 'E11000 duplicate key error', code: 11000 }))).toBe(true);
    expect(isOnlyDuplicateKey(bulkError([writeError(11000, 0), writeError(11000, 3)]))).toBe(true);
  });

  it('is not swallowed when anything else failed too', () => {
    expect(isOnlyDuplicateKey(new MongoServerError({ message: 'validation', code: 121 }))).toBe(false);
    expect(isOnlyDuplicateKey(bulkError([writeError(11000, 0), writeError(121, 1)]))).toBe(false);
    expect(isOnlyDuplicateKey(bulkError([writeError(11000)], { code: 64, errmsg: 'waiting for replication timed out' }))).toBe(false);
    expect(isOnlyDuplicateKey(new MongoNetworkError('connection reset'))).toBe(false);
    expect(isOnlyDuplicateKey(Object.assign(new Error('E11000 lookalike'), { code: 11000 }))).toBe(false);
  });
});
