import { hash, timingSafeEqual } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { decodeKeysFile, entryHash, parseKeysJson, type KeyEntry, type Scope } from './keysFile';

export { SCOPES, KeysFile, decodeKeysFile, hashApiKey, parseKeysJson } from './keysFile';
export type { KeyEntry, Scope } from './keysFile';

export interface Caller {
  userId: string;
  /** The workspaces the key may act in; the first is where it acts when a request names none. */
  workspaces: readonly string[];
  scopes: ReadonlySet<Scope>;
  /** First 12 hex chars of the key's SHA-256: identifies the key in logs without revealing it. */
  keyId: string;
  /** The id of a key made through the API (src/keys/); absent for a key of the keys file. */
  apiKeyId?: string;
  /** Whether keys it makes may belong to other users: a keys file entry's `act_for_others`, never an API key's. */
  actForOthers?: boolean;
  /**
   * The users of the keys that made this key, nearest first (its maker's, its maker's maker's, …):
   * release control counts a key as each of them too (src/presets/proposals.ts). Empty for a key of the keys file.
   */
  makers?: readonly string[];
}

/** Why a key that authenticated a request open now (a live stream, a long poll) is no longer honoured. */
export type KeyGone = 'key_revoked' | 'key_expired' | 'keys_unavailable';

export interface KeyRing {
  authenticate(token: string): Caller | null;
  /** The same, for a token already reduced to its digest (`tokenDigest`): a ring that holds other keys too hashes once, a connection's memo not at all. */
  byDigest(digest: Buffer): Caller | null;
  size: number;
  /**
   * Tells `onGone`, once, when the caller's key stops being honoured: revoked, expired, or the
   * ring can no longer tell (src/keys/keyRing.ts). Returns what stops watching. A ring whose keys
   * never change while it runs (the keys file's) has none: its keys stay good.
   */
  watch?(caller: Caller, onGone: (gone: KeyGone) => void): () => void;
}

/** A token's SHA-256, the one digest every ring looks a key up by. */
export const tokenDigest = (token: string): Buffer => hash('sha256', token, 'buffer');

/** A ring's `authenticate` from its `byDigest`: one SHA-256 of the token; an empty token is no key. */
export const byToken =
  (byDigest: KeyRing['byDigest']): KeyRing['authenticate'] =>
  (token) =>
    token.length === 0 ? null : byDigest(tokenDigest(token));

/**
 * Every workspace of a keys-file entry: `workspace_id` first, then any `workspaces` not already
 * named, in any letter case (a workspace id is a UUID: `ABC…` and `abc…` are one workspace).
 */
export const entryWorkspaces = (e: KeyEntry): string[] => {
  const seen = new Set<string>();
  return [e.workspace_id, ...(e.workspaces ?? [])].filter((w) => !seen.has(w.toLowerCase()) && seen.add(w.toLowerCase()));
};

/** Entries are expected to be validated (decodeKeysFile); an empty ring rejects everything. */
export const createKeyRing = (entries: readonly KeyEntry[]): KeyRing => {
  const seen = new Set<string>();
  const stored = entries.map((e, i) => {
    const hex = entryHash(e);
    // Re-checked here for entries built in code: with a duplicate, which caller wins is arbitrary.
    if (seen.has(hex)) throw new Error(`key entry ${i} repeats an earlier key`);
    seen.add(hex);
    const caller: Caller = Object.freeze({
      userId: e.user_id,
      workspaces: Object.freeze(entryWorkspaces(e)),
      scopes: new Set(e.scopes),
      keyId: hex.slice(0, 12),
      ...(e.act_for_others === true ? { actForOthers: true } : {}),
    });
    return { digest: Buffer.from(hex, 'hex'), caller };
  });
  // Constant time in the key's content: the token is reduced to a fixed-size digest, and it is
  // compared with EVERY stored digest by timingSafeEqual, without stopping at a match, so timing
  // reveals neither which key matched nor how much of a guess was right.
  const byDigest = (digest: Buffer): Caller | null => {
    let found: Caller | null = null;
    for (const s of stored) {
      const equal = timingSafeEqual(digest, s.digest);
      found = equal ? s.caller : found;
    }
    return found;
  };
  return {
    size: stored.length,
    authenticate: byToken(byDigest),
    byDigest,
  };
};

/** `Bearer <token>`: scheme case-insensitive, one space, one token of visible ASCII. */
export const parseBearer = (header: string | undefined): string | null => {
  if (header === undefined) return null;
  const m = /^Bearer ([\x21-\x7e]+)$/i.exec(header);
  return m ? m[1]! : null;
};

export const loadKeyRing = async (path: string): Promise<KeyRing> => {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (err) {
    throw new Error(`Cannot read API keys file ${path}: ${(err as Error).message}`, { cause: err });
  }
  return createKeyRing(decodeKeysFile(parseKeysJson(text, path), path));
};
