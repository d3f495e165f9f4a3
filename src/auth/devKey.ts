import { randomUUID } from 'node:crypto';
import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import { newKey, writeFileAtomic } from './keyStore';

export const DEFAULT_KEYS_FILE_NAME = 'api-keys.json';

export const KEYS_CREATE_USAGE =
  'npm run keys:create -- --workspace <uuid> --user <id> [--scopes presets:read,presets:write,webhooks:manage,audit:read] [--file path]';

/**
 * Returns the path of the keys file to load. An explicit file must exist: silently creating a
 * fresh key where the operator named their own file would hide a typo. Without one, a fresh
 * checkout gets `<dataDir>/api-keys.json` with one development key, printed this once only
 * (the file keeps just its SHA-256). An empty `apiKeysFile` counts as unset (`API_KEYS_FILE=`).
 */
export const ensureKeysFile = async (opts: { apiKeysFile?: string; dataDir: string; print: (line: string) => void }): Promise<string> => {
  if (opts.apiKeysFile !== undefined && opts.apiKeysFile !== '') {
    const path = opts.apiKeysFile;
    const info = await stat(path).catch((err: NodeJS.ErrnoException) => {
      if (err.code === 'ENOENT') throw new Error(`API keys file ${path} (API_KEYS_FILE) does not exist`);
      throw new Error(`Cannot read API keys file ${path} (API_KEYS_FILE): ${err.message}`);
    });
    if (!info.isFile()) throw new Error(`API keys file ${path} (API_KEYS_FILE) is not a file`);
    return path;
  }

  const path = join(opts.dataDir, DEFAULT_KEYS_FILE_NAME);
  const exists = await stat(path).then(
    () => true,
    (err: NodeJS.ErrnoException) => {
      if (err.code === 'ENOENT') return false;
      throw new Error(`Cannot read API keys file ${path}: ${err.message}`);
    },
  );
  if (exists) return path;

  const { key, entry } = newKey({ userId: `user_${randomUUID()}`, workspaceId: randomUUID() });
  const created = await writeFileAtomic(path, `${JSON.stringify({ keys: [entry] }, null, 2)}\n`, { overwrite: false });
  // Another process created it between our check and our write: theirs stands, nothing to print.
  if (!created) return path;

  opts.print(`No API keys file was configured, so ${path} was created with one development key:`);
  opts.print(`  ${key}`);
  opts.print(`  (user_id ${entry.user_id}, workspace_id ${entry.workspace_id}, scopes ${entry.scopes.join(',')})`);
  opts.print('Send it as "Authorization: Bearer <key>". It is shown only now; the file stores only its SHA-256.');
  opts.print(`Create more keys with: ${KEYS_CREATE_USAGE}`);
  return path;
};
