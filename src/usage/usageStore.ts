/**
 * Usage: how many resolutions were answered per (workspace, preset, label, version), by hour.
 * Counts are metrics, not events: they never enter the event log, and live in a store of their own
 * behind this port (embedded: `usage.db`; with MONGODB_URL, a collection beside the read model).
 * Counters in each process (counters.ts) add to it; the usage route sums what it holds.
 */
export interface UsageCount {
  workspaceId: string;
  presetId: string;
  /** The label the resolution named (`latest` included); null when it named a version number or none. */
  label: string | null;
  version: number;
  /** The start of the hour the resolutions were answered in, as an ISO timestamp (`2026-11-24T13:00:00.000Z`). */
  hour: string;
  count: number;
}

export interface UsageStore {
  /** Adds the counts to what is held (a count of the same workspace, preset, label, version and hour adds up). */
  add(counts: readonly UsageCount[]): Promise<void>;
  /** The counts of one preset for the hours that start in [from, to), by hour, then label (null first), then version. */
  query(workspaceId: string, presetId: string, from: Date, to: Date): Promise<UsageCount[]>;
  close(): Promise<void>;
}

const HOUR_MS = 3_600_000;

/** The start of the hour `at` is in, as the store keeps it. */
export const hourOf = (at: Date): string => new Date(Math.floor(at.getTime() / HOUR_MS) * HOUR_MS).toISOString();

const byCodeUnits = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** The order `query` answers in: hour, label (none first; binary, as SQLite orders), version. */
export const compareCounts = (a: UsageCount, b: UsageCount): number =>
  byCodeUnits(a.hour, b.hour) || byCodeUnits(a.label ?? '', b.label ?? '') || a.version - b.version;
