/**
 * `npm run keys:create -- --workspace <uuid> --user <id> [--scopes presets:read,presets:write,webhooks:manage,audit:read] [--file path]`
 * Generates an API key, appends its hash to the keys file and prints the key, once.
 * The key alone goes to stdout (so `KEY=$(npm run -s keys:create -- ...)` works); the rest to stderr.
 */
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { SCOPES, isScope, isUuid, type Scope } from '../src/auth/keysFile';
import { appendKeyEntry, newKey } from '../src/auth/keyStore';
import { DEFAULT_KEYS_FILE_NAME, KEYS_CREATE_USAGE } from '../src/auth/devKey';

export interface Io {
  out: (line: string) => void;
  err: (line: string) => void;
  env: Record<string, string | undefined>;
}

/** Runs the command; returns the exit code (0 done, 1 failed, 2 bad usage). */
export const main = async (argv: string[], io: Io): Promise<number> => {
  let values;
  try {
    ({ values } = parseArgs({
      args: argv,
      options: {
        workspace: { type: 'string' },
        user: { type: 'string' },
        scopes: { type: 'string', default: SCOPES.join(',') },
        file: { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
      strict: true,
      allowPositionals: false,
    }));
  } catch (err) {
    io.err(`${(err as Error).message}\nUsage: ${KEYS_CREATE_USAGE}`);
    return 2;
  }
  if (values.help) {
    io.out(`Usage: ${KEYS_CREATE_USAGE}`);
    io.out(`--file defaults to $API_KEYS_FILE, else $DATA_DIR/${DEFAULT_KEYS_FILE_NAME} (DATA_DIR defaults to ./data).`);
    return 0;
  }

  const problems: string[] = [];
  const user = values.user?.trim() ?? '';
  if (user === '') problems.push('--user is required');
  if (values.workspace !== undefined && !isUuid(values.workspace)) problems.push('--workspace must be a UUID');
  const scopes = values.scopes
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
  const unknown = scopes.filter((s) => !isScope(s));
  if (unknown.length > 0) problems.push(`unknown scope(s) ${unknown.join(', ')} (known: ${SCOPES.join(', ')})`);
  else if (scopes.length === 0) problems.push('--scopes must list at least one scope');
  if (problems.length > 0) {
    io.err(`${problems.join('; ')}\nUsage: ${KEYS_CREATE_USAGE}`);
    return 2;
  }

  const file = values.file || io.env.API_KEYS_FILE || join(io.env.DATA_DIR || 'data', DEFAULT_KEYS_FILE_NAME);
  const { key, keyId, entry } = newKey({ userId: user, workspaceId: values.workspace, scopes: scopes as Scope[] });
  try {
    await appendKeyEntry(file, entry);
  } catch (err) {
    io.err((err as Error).message);
    return 1;
  }
  io.out(key);
  io.err(`Added key ${keyId} to ${file} (the key is shown only now; the file stores only its SHA-256):`);
  io.err(JSON.stringify(entry, null, 2));
  return 0;
};

if (require.main === module) {
  void main(process.argv.slice(2), {
    out: (line) => process.stdout.write(`${line}\n`),
    err: (line) => process.stderr.write(`${line}\n`),
    env: process.env,
  }).then((code) => {
    process.exitCode = code;
  });
}
