import { filterFromJson, filterJson, type ConsumerGroup, type ConsumerGroupFilterJson } from './group';

/**
 * Where consumer groups and their positions are kept: beside the webhooks' delivery progress
 * (SQLite's webhooks.db with `synchronous=FULL`, or MongoDB), so an acknowledged position survives
 * a kill -9. Not events: a consumer's progress is not part of the presets' history.
 * One contract suite (test/contract/consumerGroupStoreContract.ts) holds every implementation.
 */
export interface ConsumerGroupStore {
  get(workspaceId: string, name: string): Promise<ConsumerGroup | null>;
  /** The workspace's groups, by name. */
  list(workspaceId: string): Promise<ConsumerGroup[]>;
  /** Every workspace's groups (the operators' metrics). */
  listAll(): Promise<ConsumerGroup[]>;
  /** Adds a group; false when the workspace has one of that name already. */
  insert(group: ConsumerGroup): Promise<boolean>;
  /** Replaces the group if it is still at `expectedRevision`; false otherwise or when it is gone. */
  update(group: ConsumerGroup, expectedRevision: number): Promise<boolean>;
  /** False when there was none. */
  delete(workspaceId: string, name: string): Promise<boolean>;
  close(): Promise<void>;
}

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
  const byName = (a: ConsumerGroup, b: ConsumerGroup) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);
  return {
    async get(workspaceId, name) {
      const d = groups.get(key(workspaceId, name));
      return d ? fromDocument(d) : null;
    },
    async list(workspaceId) {
      return [...groups.values()]
        .filter((d) => d.workspace_id === workspaceId)
        .map(fromDocument)
        .sort(byName);
    },
    async listAll() {
      return [...groups.values()].map(fromDocument);
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
