import type { FormatName } from '../formats';
import { murmur3, murmur3OfWord } from './murmur3';

/**
 * Picking one version of a split label (a rollout), as one pure function shared by the resolve
 * route and `presets/client`, so both pick the same version for the same key.
 *
 * Weighted rendezvous hashing: the key is hashed with MurmurHash3 (x86, 32 bits), seeded by the hash
 * of (workspace, slug, label); that hash is hashed again once per version, seeded by the version's
 * number, to a point u in (0, 1); each version scores -ln(u) / weight, and the lowest score wins.
 * Each score is an exponential variable of rate `weight`, so a version wins a share of keys equal to
 * its share of the weights. A key keeps its version while the weights stay the same; when one weight
 * grows, only that version's scores fall, so a key can only move to it, and none leaves it (and a
 * version added or removed moves only the keys that go to it or came from it).
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
  /** Its shares; any order. */
  split: readonly SplitShareView[];
}

/** Where a resolution's split key came from (`random`: none was given). */
export type SplitKeySource = 'header' | 'user' | 'metadata.user_id' | 'safety_identifier' | 'random';

const RANGE = 2 ** 32;

interface Layout {
  workspaceId: string;
  slug: string;
  label: string;
  /** The hash of (workspace, slug, label): the seed of the key's hash. */
  seed: number;
  /** Ascending by version. */
  versions: number[];
  weights: number[];
  /** Cumulative weights, for a draw at random. */
  cumulative: number[];
}

/**
 * The layout of a split, kept with its shares array: documents are parsed once and shared (the read
 * model's cache, the client's copy), so a hot split is laid out once. What names it is compared, so
 * a shares array used under another name is laid out again rather than picked wrongly.
 */
const layouts = new WeakMap<readonly SplitShareView[], Layout>();

/**
 * Scratch space for a key's UTF-8 bytes: the key's bytes are written there, not into a buffer of
 * their own per resolve (less garbage on the hot path). An ASCII key (the usual user id) is copied
 * code unit by code unit, which costs less than the encoder's call for a short key.
 */
const SCRATCH = 1024;
const scratch = new Uint8Array(SCRATCH);
const utf8 = new TextEncoder();

/** MurmurHash3 of the key's UTF-8 bytes. */
const hashKey = (key: string, seed: number): number => {
  const n = key.length;
  if (n <= SCRATCH) {
    let ascii = true;
    for (let i = 0; i < n; i++) {
      const c = key.charCodeAt(i);
      if (c > 0x7f) {
        ascii = false;
        break;
      }
      scratch[i] = c;
    }
    if (ascii) return murmur3(scratch, n, seed);
    // 3 bytes a UTF-16 unit at most.
    if (n * 3 <= SCRATCH) return murmur3(scratch, utf8.encodeInto(key, scratch).written, seed);
  }
  const bytes = utf8.encode(key);
  return murmur3(bytes, bytes.length, seed);
};

const layoutOf = (target: SplitTarget): Layout => {
  const kept = layouts.get(target.split);
  if (kept && kept.workspaceId === target.workspaceId && kept.slug === target.slug && kept.label === target.label) return kept;
  const ordered = [...target.split].sort((a, b) => a.version - b.version);
  let total = 0;
  const layout: Layout = {
    workspaceId: target.workspaceId,
    slug: target.slug,
    label: target.label,
    seed: hashKey(`${target.workspaceId}\n${target.slug}\n${target.label}`, 0),
    versions: ordered.map((s) => s.version),
    weights: ordered.map((s) => s.weight),
    cumulative: ordered.map((s) => (total += s.weight)),
  };
  layouts.set(target.split, layout);
  return layout;
};

/** The version a key gets: the same for the same key while the weights stay the same. */
export const pickSplitVersion = (target: SplitTarget, key: string): number => {
  const layout = layoutOf(target);
  const h = hashKey(key, layout.seed);
  const { versions, weights } = layout;
  let best = 0;
  let bestScore = Infinity;
  for (let i = 0; i < versions.length; i++) {
    // A point in (0, 1), never 0: -ln stays finite.
    const u = (murmur3OfWord(h, versions[i]!) + 0.5) / RANGE;
    const score = -Math.log(u) / weights[i]!;
    if (score < bestScore) {
      bestScore = score;
      best = i;
    }
  }
  return versions[best]!;
};

/** A version drawn at random by weight, for a request that gives no key. */
export const randomSplitVersion = (target: SplitTarget, random: () => number = Math.random): number => {
  const { versions, cumulative } = layoutOf(target);
  const point = random() * cumulative[cumulative.length - 1]!;
  for (let i = 0; i < versions.length - 1; i++) if (point < cumulative[i]!) return versions[i]!;
  return versions[versions.length - 1]!;
};

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
