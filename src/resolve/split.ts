import type { FormatName } from '../formats';
import { murmur3, murmur3Ascii, murmur3OfWord, NOT_ASCII } from './murmur3';

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
  /** 1/weight: a bound is a product, not a quotient. */
  inverseWeights: number[];
  /** Scratch: each version's point u for the key being picked. */
  points: Float64Array;
}

/**
 * The layout of a split, kept with its shares array: documents are parsed once and shared (the read
 * model's cache, the client's copy), so a hot split is laid out once. What names it is compared, so
 * a shares array used under another name is laid out again rather than picked wrongly.
 */
const layouts = new WeakMap<readonly SplitShareView[], Layout>();

/** Scratch space for a non-ASCII key's UTF-8 bytes (less garbage than a buffer per resolve). */
const SCRATCH = 1024;
const scratch = new Uint8Array(SCRATCH);
const utf8 = new TextEncoder();

/** MurmurHash3 of the key's UTF-8 bytes: an ASCII key (the usual user id) is read from the string itself. */
const hashKey = (key: string, seed: number): number => {
  const ascii = murmur3Ascii(key, seed);
  if (ascii !== NOT_ASCII) return ascii >>> 0;
  // 3 bytes a UTF-16 unit at most.
  if (key.length * 3 <= SCRATCH) return murmur3(scratch, utf8.encodeInto(key, scratch).written, seed);
  const bytes = utf8.encode(key);
  return murmur3(bytes, bytes.length, seed);
};

const names = (layout: Layout, target: SplitTarget) =>
  layout.workspaceId === target.workspaceId && layout.slug === target.slug && layout.label === target.label;

const layoutOf = (target: SplitTarget): Layout => {
  const kept = layouts.get(target.split);
  if (kept && names(kept, target)) return kept;
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
    inverseWeights: ordered.map((s) => 1 / s.weight),
    points: new Float64Array(ordered.length),
  };
  layouts.set(target.split, layout);
  return layout;
};

/**
 * Bounds on a score -ln(u)/w that cost no logarithm: for u in (0, 1), 1 - u ≤ -ln(u) ≤ (1 - u)/u.
 * When the lowest upper bound is below every other version's lower bound, with a margin far wider
 * than the rounding of either computation, that version has the lowest score: the same pick as
 * the logarithms', without them (about 19 keys in 20 at 95/5). Otherwise the scores are computed.
 */
const MARGIN = 1 + 1e-9;

/** The version a key gets: the same for the same key while the weights stay the same. */
export const pickSplitVersion = (target: SplitTarget, key: string): number => {
  const layout = layoutOf(target);
  const h = hashKey(key, layout.seed);
  const { versions, inverseWeights, points } = layout;
  const n = versions.length;
  // A point u in (0, 1), never 0 (-ln stays finite); the candidate has the lowest upper bound.
  let candidate = 0;
  let candidateHigh = Infinity;
  for (let i = 0; i < n; i++) {
    const u = (murmur3OfWord(h, versions[i]!) + 0.5) / RANGE;
    points[i] = u;
    const high = ((1 - u) / u) * inverseWeights[i]!;
    if (high < candidateHigh) {
      candidateHigh = high;
      candidate = i;
    }
  }
  const bar = candidateHigh * MARGIN;
  let decided = true;
  for (let i = 0; i < n; i++) {
    if (i !== candidate && !(bar < (1 - points[i]!) * inverseWeights[i]!)) {
      decided = false;
      break;
    }
  }
  if (decided) return versions[candidate]!;
  let best = 0;
  let bestScore = Infinity;
  for (let i = 0; i < n; i++) {
    const score = -Math.log(points[i]!) / layout.weights[i]!;
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
