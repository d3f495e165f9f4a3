import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

/** The built offline verifier an auditor runs (`npx presets-audit verify`). */
export const VERIFIER = join(__dirname, '..', '..', 'dist', 'scripts', 'presets-audit.js');

/** Runs the offline verifier on a signed export with the service's public key, as an auditor would; its output. */
export const verifyOffline = async (exported: string, publicKeyPem: string): Promise<string> => {
  const dir = mkdtempSync(join(tmpdir(), 'presets-export-'));
  try {
    const [file, pem] = [join(dir, 'export.ndjson'), join(dir, 'public.pem')];
    writeFileSync(file, exported);
    writeFileSync(pem, publicKeyPem);
    return (await promisify(execFile)(process.execPath, [VERIFIER, 'verify', file, '--public-key', pem])).stdout;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
};
