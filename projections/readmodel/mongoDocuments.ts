import { MongoBulkWriteError, MongoServerError } from 'mongodb';
import type { PresetStatus } from '../../src/presets/events';
import type { Checkpoint, PresetRecord, PresetView, VersionView } from './readModel';

/**
 * The MongoDB read model's documents and writes, as pure functions (mongodb.ts runs them).
 * A preset document is the view plus the stream revision it reflects; a version document is the
 * view; a checkpoint is `{ _id: name, position: '<decimal>' }` (a string: positions exceed int64).
 */
export const COLLECTIONS = { presets: 'presets', versions: 'preset_versions', checkpoints: 'checkpoints' } as const;

export type PresetDocument = PresetView & { revision: bigint };
export type VersionDocument = VersionView;
export interface CheckpointDocument {
  _id: string;
  position: string;
}

/**
 * Replace the preset when the stored one reflects a lower revision, or insert it. When the stored
 * one is as new or newer the filter matches nothing, the upsert tries to insert, and the unique
 * index on { workspace_id, slug } refuses it with E11000: "already applied" (see isOnlyDuplicateKey).
 * A whole replacement, not a `$set`: a config is stored as sent, and MongoDB takes field names
 * that start with `$` (a JSON schema's `$defs`, `$ref`) nested in an inserted or replacing
 * document, where an update operator refuses them.
 */
export const presetUpsert = ({ view, revision }: PresetRecord) => ({
  filter: { workspace_id: view.workspace_id, slug: view.slug, revision: { $lt: revision } },
  replacement: { ...view, revision },
  upsert: true as const,
});

/**
 * Insert the version; an existing one is never changed: the unique index on { preset_id, version }
 * refuses the insert with E11000, "already applied". A copy, as the driver adds its `_id` to what
 * it inserts.
 */
export const versionInsert = (view: VersionView) => ({ document: { ...view } });

export const checkpointUpdate = ({ name, position }: Checkpoint) => ({
  filter: { _id: name },
  update: { $set: { position: position.toString() } },
  upsert: true as const,
});

export const DUPLICATE_KEY = 11000;

/**
 * True when a write failed only because documents already existed (E11000), which for these
 * idempotent writes means "already applied". Any other failure, or a write-concern error hidden
 * behind the duplicates, is a real one.
 */
export const isOnlyDuplicateKey = (error: unknown): boolean => {
  if (error instanceof MongoBulkWriteError) {
    const errors = Array.isArray(error.writeErrors) ? error.writeErrors : [error.writeErrors];
    return errors.length > 0 && errors.every((e) => e.code === DUPLICATE_KEY) && !error.result?.getWriteConcernError();
  }
  return error instanceof MongoServerError && error.code === DUPLICATE_KEY;
};

/** A stored preset as the API answers it, with the revision it reflects. */
export const presetRecordOf = (doc: Record<string, unknown>): PresetRecord => {
  const { _id, revision, ...view } = doc;
  return { view: view as unknown as PresetView, revision: BigInt(revision as bigint | number) };
};

export const versionViewOf = (doc: Record<string, unknown>): VersionView => {
  const { _id, ...view } = doc;
  return view as unknown as VersionView;
};

/**
 * The filter of a preset list: the workspace, the statuses asked for, and a search for a substring
 * of the slug or the name, ignoring case (a regular expression of the search's characters, each
 * taken literally).
 */
export const presetListFilter = (workspaceId: string, statuses?: readonly PresetStatus[], search?: string): Record<string, unknown> => {
  const filter: Record<string, unknown> = { workspace_id: workspaceId };
  if (statuses) filter.status = { $in: [...statuses] };
  if (search) {
    const pattern = { $regex: search.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'), $options: 'i' };
    filter.$or = [{ slug: pattern }, { name: pattern }];
  }
  return filter;
};
