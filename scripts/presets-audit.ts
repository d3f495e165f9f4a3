#!/usr/bin/env node
import { createReadStream } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { createInterface } from 'node:readline';
import { parseArgs } from 'node:util';
import { verifyExport } from '../src/audit/exportVerifier';

/**
 * `npx presets-audit verify export.ndjson --public-key key.pem`: checks a signed export of the
 * service (GET /api/v1/audit/export) with its public key alone, with no service and no network:
 * the signature, the SHA-256 of the lines, every event's chain link and revision order, the count.
 * Prints a summary (presets, events by type, actors, the range) and exits 0, or the first fault
 * and exits 1; 2 for bad usage or an unreadable file.
 */
const USAGE = `Usage: presets-audit verify <export.ndjson> --public-key <key.pem>
Checks a signed export of the presets service offline. Exit 0: valid; 1: the first fault is printed; 2: bad usage.`;

const main = async (argv: string[]): Promise<number> => {
  let file: string;
  let keyFile: string;
  try {
    const { positionals, values } = parseArgs({
      args: argv,
      options: { 'public-key': { type: 'string' }, help: { type: 'boolean' } },
      allowPositionals: true,
      strict: true,
    });
    if (values.help) {
      process.stdout.write(`${USAGE}\n`);
      return 0;
    }
    if (positionals[0] !== 'verify' || positionals.length !== 2 || !values['public-key'])
      throw new Error('verify needs a file and --public-key');
    file = positionals[1]!;
    keyFile = values['public-key'];
  } catch (error) {
    process.stderr.write(`${(error as Error).message}\n${USAGE}\n`);
    return 2;
  }
  let publicKey: string;
  try {
    publicKey = await readFile(keyFile, 'utf8');
  } catch (error) {
    process.stderr.write(`presets-audit: cannot read the public key ${keyFile}: ${(error as Error).message}\n`);
    return 2;
  }
  const input = createReadStream(file, { encoding: 'utf8' });
  const opened = new Promise<void>((resolve, reject) => input.once('open', () => resolve()).once('error', reject));
  try {
    await opened;
  } catch (error) {
    process.stderr.write(`presets-audit: cannot read ${file}: ${(error as Error).message}\n`);
    return 2;
  }
  const verdict = await verifyExport(createInterface({ input, crlfDelay: Infinity }), publicKey);
  if (!verdict.ok) {
    process.stdout.write(`INVALID: line ${verdict.line}: ${verdict.message}\n`);
    return 1;
  }
  const s = verdict.summary;
  const lines = [
    `VALID: signed by key ${s.keyId} (Ed25519); ${s.events} events of workspace ${s.workspaceId}`,
    `range: ${s.range.from ?? 'the start'} to ${s.range.to ?? 'the export'}; events recorded ${s.range.firstRecordedAt ?? '-'} … ${s.range.lastRecordedAt ?? '-'}`,
    `presets (${s.presets.length}): ${s.presets.join(', ') || '-'}`,
    `events by type: ${
      Object.entries(s.eventsByType)
        .sort(([a], [b]) => a.localeCompare(b))
        .map(([type, n]) => `${type} ${n}`)
        .join(', ') || '-'
    }`,
    `actors (${s.actors.length}): ${s.actors.join(', ') || '-'}`,
    `last checkpoint: ${s.lastCheckpoint ? JSON.stringify(s.lastCheckpoint) : 'none'}`,
    ...(s.redacted > 0 ? [`redacted: ${s.redacted} line(s) leave a key's SHA-256 out; their hashes are as signed, not recomputed`] : []),
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
  return 0;
};

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    process.stderr.write(`${(error as Error)?.stack ?? String(error)}\n`);
    process.exitCode = 2;
  },
);
