import { randomBytes, randomUUID } from 'node:crypto';
import { link, mkdir, open, readFile, rename, rm } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { SCOPES, decodeKeysFile, hashApiKey, parseKeysJson, type KeyEntry, type Scope } from './keysFile';

/** Writing keys files: what the dev-key bootstrap and `npm run keys:create` share. */

/** `pk_` + 32 random bytes, base64url: 256 bits, and only characters a Bearer token allows. */
export const generateApiKey = (): string => `pk_${randomBytes(32).toString('base64url')}`;

/** A hashed entry as stored on disk: the file never holds the plaintext key. */
export type HashedKeyEntry = KeyEntry & { key_sha256: string; key?: never };

export interface NewKey {
  /** The plaintext key: show it once, never store it. */
  key: string;
  /** First 12 hex chars of the key's SHA-256, as in Caller.keyId. */
  keyId: string;
  entry: HashedKeyEntry;
}

export const newKey = (opts: { userId: string; workspaceId?: string; scopes?: readonly Scope[] }): NewKey => {
  const key = generateApiKey();
  const sha = hashApiKey(key);
  const entry: HashedKeyEntry = {
    key_sha256: sha,
    user_id: opts.userId,
    workspace_id: opts.workspaceId ?? randomUUID(),
    scopes: [...(opts.scopes ?? SCOPES)],
  };
  return { key, keyId: sha.slice(0, 12), entry };
};

/**
 * Writes `data` to a temp file (mode 0600) in the same directory and then moves it into place,
 * so a reader never sees a half-written file. With `overwrite: false` the move is a hard link,
 * which fails if `path` exists: two processes racing to create it cannot both win (or both
 * print a key). Returns whether the file was written.
 */
export const writeFileAtomic = async (path: string, data: string, opts: { overwrite: boolean }): Promise<boolean> => {
  await mkdir(dirname(path), { recursive: true });
  const tmp = join(dirname(path), `.${basename(path)}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`);
  const handle = await open(tmp, 'wx', 0o600);
  try {
    try {
      await handle.writeFile(data, 'utf8');
      await handle.sync();
    } finally {
      await handle.close();
    }
    if (opts.overwrite) {
      await rename(tmp, path);
      return true;
    }
    try {
      await link(tmp, path);
      return true;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'EEXIST') return false;
      throw err;
    }
  } finally {
    await rm(tmp, { force: true });
  }
};

const readIfExists = async (path: string): Promise<string | undefined> => {
  try {
    return await readFile(path, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new Error(`Cannot read API keys file ${path}: ${(err as Error).message}`, { cause: err });
  }
};

/**
 * Appends an entry to the keys file, creating it if absent. The whole result is validated
 * before writing, so a bad or duplicate entry (or an already broken file) changes nothing.
 * Other fields of the file are kept. Not safe against concurrent appends (last writer wins).
 */
export const appendKeyEntry = async (path: string, entry: KeyEntry): Promise<void> => {
  const text = await readIfExists(path);
  const file = text === undefined ? { keys: [] } : parseKeysJson(text, path);
  if (typeof file !== 'object' || file === null || Array.isArray(file) || !Array.isArray((file as { keys?: unknown }).keys)) {
    throw new Error(`Invalid API keys file ${path}: the file must be an object with a "keys" list`);
  }
  const next = { ...file, keys: [...(file as { keys: unknown[] }).keys, entry] };
  decodeKeysFile(next, path);
  await writeFileAtomic(path, `${JSON.stringify(next, null, 2)}\n`, { overwrite: true });
};
