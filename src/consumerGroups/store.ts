import * as t from 'io-ts';
import { filterFromJson, filterJson, type ConsumerGroup, type ConsumerGroupFilterJson } from './group';

/**
 * Where consumer groups and their positions are kept: beside the webhooks' delivery progress
 * (SQLite's webhooks.db with `synchronous=FULL`, or MongoDB), so an acknowledged position survives
 * a kill -9. Not events: a consumer's progress is not part of the presets' history.
 * One contract suite (test/contract/consumerGroupStoreContract.ts) holds every implementation.
 */
export interface ConsumerGroupStore {
  get(workspaceId: string, name: string): Promise<StoredGroup | null>;
  /** The workspace's groups, by name. */
  list(workspaceId: string): Promise<StoredGroup[]>;
  /** Every workspace's groups (the operators' metrics). */
  listAll(): Promise<StoredGroup[]>;
  /** Adds a group; false when the workspace has one of that name already. */
  insert(group: ConsumerGroup): Promise<boolean>;
  /** Replaces the group if it is still at `expectedRevision`; false otherwise or when it is gone. */
  update(group: ConsumerGroup, expectedRevision: number): Promise<boolean>;
  /** False when there was none. */
  delete(workspaceId: string, name: string): Promise<boolean>;
  close(): Promise<void>;
}

/**
 * A stored group that cannot be read back as one (a document an earlier version wrote, or a
 * damaged one): named, with why. Each document is decoded on its own, so one such group never
 * takes down the list, the metrics or another group; it is repaired by a PUT with a `start`, or
 * deleted.
 */
export interface UnreadableGroup {
  workspaceId: string;
  name: string;
  unreadable: string;
}
export type StoredGroup = ConsumerGroup | UnreadableGroup;
export const isUnreadable = (g: StoredGroup): g is UnreadableGroup => 'unreadable' in g;
export const isReadable = (g: StoredGroup): g is ConsumerGroup => !isUnreadable(g);

/** A group as one JSON document (bigints as decimal strings): how the SQLite and MongoDB stores keep it. */
export interface GroupDocument {
  workspace_id: string;
  name: string;
  filter: ConsumerGroupFilterJson;
  lease_ms: number;
  checkpoint: string | null;
  lease: { id: string; first: string; last: string; count: number; expires_at: string } | null;
  revision: number;
  created_at: string;
  updated_at: string;
}

export const toDocument = (g: ConsumerGroup): GroupDocument => ({
  workspace_id: g.workspaceId,
  name: g.name,
  filter: filterJson(g.filter),
  lease_ms: g.leaseMs,
  checkpoint: g.checkpoint === null ? null : g.checkpoint.toString(),
  lease: g.lease && {
    id: g.lease.id,
    first: g.lease.first.toString(),
    last: g.lease.last.toString(),
    count: g.lease.count,
    expires_at: g.lease.expiresAt,
  },
  revision: g.revision,
  created_at: g.createdAt,
  updated_at: g.updatedAt,
});

const Position = new t.Type<string, string, unknown>(
  'position',
  (u): u is string => typeof u === 'string' && /^\d{1,40}$/.test(u),
  (u, c) => (typeof u === 'string' && /^\d{1,40}$/.test(u) ? t.success(u) : t.failure(u, c, 'is not an event position')),
  t.identity,
);
const Nullable = <C extends t.Mixed>(c: C) => t.union([c, t.null]);
/** What a stored document must be to be read as a group. */
const GroupDocumentCodec: t.Type<GroupDocument, GroupDocument, unknown> = t.type({
  workspace_id: t.string,
  name: t.string,
  filter: t.type({ types: Nullable(t.array(t.string)), slug_prefix: Nullable(t.string) }),
  lease_ms: t.number,
  checkpoint: Nullable(Position),
  lease: Nullable(t.type({ id: t.string, first: Position, last: Position, count: t.number, expires_at: t.string })),
  revision: t.number,
  created_at: t.string,
  updated_at: t.string,
});

/**
 * A stored document as a group, or as an unreadable one under the names its row or key gives:
 * what every store's reads go through, one document at a time.
 */
export const decodeDocument = (where: { workspaceId: string; name: string }, document: unknown): StoredGroup => {
  const decoded = GroupDocumentCodec.decode(document);
  if (decoded._tag === 'Right') return fromDocument(decoded.right);
  const fields = [
    ...new Set(decoded.left.map((e) => e.context.map((c) => c.key).filter((k) => k !== '' && !/^\d+$/.test(k))[0] ?? 'the document')),
  ];
  return { ...where, unreadable: `its stored document cannot be read as a group (${fields.join(', ')})` };
};

/** A document kept as JSON text (SQLite), decoded as decodeDocument does. */
export const decodeDocumentText = (where: { workspaceId: string; name: string }, text: string): StoredGroup => {
  let document: unknown;
  try {
    document = JSON.parse(text);
  } catch {
    return { ...where, unreadable: 'its stored document is not JSON' };
  }
  return decodeDocument(where, document);
};

export const fromDocument = (d: GroupDocument): ConsumerGroup => ({
  workspaceId: d.workspace_id,
  name: d.name,
  filter: filterFromJson(d.filter),
  leaseMs: d.lease_ms,
  checkpoint: d.checkpoint === null ? null : BigInt(d.checkpoint),
  lease: d.lease && {
    id: d.lease.id,
    first: BigInt(d.lease.first),
    last: BigInt(d.lease.last),
    count: d.lease.count,
    expiresAt: d.lease.expires_at,
  },
  revision: d.revision,
  createdAt: d.created_at,
  updatedAt: d.updated_at,
});

/** For tests and the memory backend. */
export const openMemoryConsumerGroupStore = (): ConsumerGroupStore => {
  const groups = new Map<string, GroupDocument>();
  const key = (workspaceId: string, name: string) => `${workspaceId}/${name}`;
  const byName = (a: StoredGroup, b: StoredGroup) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);
  const read = (d: GroupDocument) => decodeDocument({ workspaceId: d.workspace_id, name: d.name }, d);
  return {
    async get(workspaceId, name) {
      const d = groups.get(key(workspaceId, name));
      return d ? read(d) : null;
    },
    async list(workspaceId) {
      return [...groups.values()]
        .filter((d) => d.workspace_id === workspaceId)
        .map(read)
        .sort(byName);
    },
    async listAll() {
      return [...groups.values()].map(read);
    },
    async insert(group) {
      const k = key(group.workspaceId, group.name);
      if (groups.has(k)) return false;
      groups.set(k, toDocument(group));
      return true;
    },
    async update(group, expectedRevision) {
      const k = key(group.workspaceId, group.name);
      if (groups.get(k)?.revision !== expectedRevision) return false;
      groups.set(k, toDocument(group));
      return true;
    },
    async delete(workspaceId, name) {
      return groups.delete(key(workspaceId, name));
    },
    async close() {},
  };
};
