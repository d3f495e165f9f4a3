import { v3 as murmur3 } from 'murmurhash';
import type { FormatName } from '../formats';

/**
 * Picking one version of a split label (a rollout), as one pure function shared by the resolve
 * route and `presets/client`, so both pick the same version for the same key.
 *
 * A key is hashed with MurmurHash3 (x86, 32 bits), seeded by the hash of (workspace, slug, label),
 * to a point in [0, 2^32); the versions' weights are laid out in ascending version order over that
 * range, each over its share. The same key lands on the same version for as long as the weights are
 * the same; when one weight grows, the range of its version grows on both sides and never loses a
 * point, so keys only move toward it (its bounds `C(i-1)/T` and `C(i)/T` fall and rise as `T` and
 * `C(i)` grow by the same amount). Integer arithmetic throughout: a point times the total stays
 * below 2^53 (2^32 × 10 × 10,000).
 */
export interface SplitShareView {
  version: number;
  weight: number;
}

/** A split label and what names it: the hash covers all four. */
export interface SplitTarget {
  workspaceId: string;
  slug: string;
  label: string;
  /** Its shares; any order (laid out ascending by version). */
  split: readonly SplitShareView[];
}

/** Where a resolution's split key came from (`random`: none was given). */
export type SplitKeySource = 'header' | 'user' | 'metadata.user_id' | 'safety_identifier' | 'random';

const RANGE = 2 ** 32;

interface Layout {
  identity: string;
  seed: number;
  versions: number[];
  /** Cumulative weight up to and including each version, times 2^32. */
  bounds: number[];
  total: number;
}

/**
 * The layout of a split, kept with its shares array: documents are parsed once and shared (the read
 * model's cache, the client's copy), so a hot split is laid out once. The identity is compared, so
 * a shares array used under another name is laid out again rather than picked wrongly.
 */
const layouts = new WeakMap<readonly SplitShareView[], Layout>();

const layoutOf = (target: SplitTarget): Layout => {
  const identity = `${target.workspaceId}\n${target.slug}\n${target.label}`;
  const kept = layouts.get(target.split);
  if (kept && kept.identity === identity) return kept;
  const ordered = [...target.split].sort((a, b) => a.version - b.version);
  let cumulative = 0;
  const bounds: number[] = [];
  for (const share of ordered) {
    cumulative += share.weight;
    bounds.push(cumulative * RANGE);
  }
  const layout: Layout = {
    identity,
    seed: murmur3(Buffer.from(identity, 'utf8'), 0),
    versions: ordered.map((share) => share.version),
    bounds,
    total: cumulative,
  };
  layouts.set(target.split, layout);
  return layout;
};

/** The version at a point in [0, 2^32). */
const versionAt = (layout: Layout, point: number): number => {
  const scaled = point * layout.total;
  const { bounds, versions } = layout;
  for (let i = 0; i < bounds.length - 1; i++) if (scaled < bounds[i]!) return versions[i]!;
  return versions[versions.length - 1]!;
};

/** The point a key hashes to for this split label, in [0, 2^32). */
export const splitPoint = (target: SplitTarget, key: string): number => murmur3(Buffer.from(key, 'utf8'), layoutOf(target).seed);

/** The version a key gets: the same for the same key while the weights stay the same. */
export const pickSplitVersion = (target: SplitTarget, key: string): number => {
  const layout = layoutOf(target);
  return versionAt(layout, murmur3(Buffer.from(key, 'utf8'), layout.seed));
};

/** A version drawn at random by weight, for a request that gives no key. */
export const randomSplitVersion = (target: SplitTarget, random: () => number = Math.random): number =>
  versionAt(layoutOf(target), Math.floor(random() * RANGE));

const nonEmpty = (value: unknown): value is string => typeof value === 'string' && value !== '';

/**
 * The split key of a request, in order: the `Preset-Split-Key` header, then the body's own caller
 * id (chat-completions `user`; messages `metadata.user_id`; responses `user`, then
 * `safety_identifier`). Undefined when there is none (an empty string is none).
 */
export const splitKeyOf = (
  format: FormatName,
  body: Record<string, unknown>,
  header: string | undefined,
): { key: string; source: Exclude<SplitKeySource, 'random'> } | undefined => {
  if (nonEmpty(header)) return { key: header, source: 'header' };
  if (format === 'messages') {
    const metadata = body.metadata;
    const userId = typeof metadata === 'object' && metadata !== null ? (metadata as Record<string, unknown>).user_id : undefined;
    return nonEmpty(userId) ? { key: userId, source: 'metadata.user_id' } : undefined;
  }
  if (nonEmpty(body.user)) return { key: body.user, source: 'user' };
  if (format === 'responses' && nonEmpty(body.safety_identifier)) return { key: body.safety_identifier, source: 'safety_identifier' };
  return undefined;
};
