import { createHash } from 'node:crypto';
import { canonicalize } from 'json-canonicalize';
import { linksTo } from '../eventstore/hashChain';
import { verifySignature } from './signing';

/**
 * Checks a signed export (export.ts) with nothing but the service's public key: the signature
 * over the closing line, the SHA-256 of the lines it seals, each event's chain link, each stream's
 * revisions following on, and the count. Reads line by line: memory holds one line and one link
 * per stream. Used by `npx presets-audit verify` (scripts/presets-audit.ts), with no service and
 * no network.
 */
export interface ExportSummary {
  events: number;
  presets: string[];
  eventsByType: Record<string, number>;
  actors: string[];
  range: { from: string | null; to: string | null; firstRecordedAt: string | null; lastRecordedAt: string | null };
  workspaceId: string;
  keyId: string;
  lastCheckpoint: unknown;
  /** Lines that leave a secret out (`redacted`): their hash is taken as given, not recomputed (docs/audit.md). */
  redacted: number;
}

export type ExportVerdict = { ok: true; summary: ExportSummary } | { ok: false; line: number; message: string };

class Refused {
  constructor(
    readonly line: number,
    readonly message: string,
  ) {}
}

const isRecord = (u: unknown): u is Record<string, unknown> => typeof u === 'object' && u !== null && !Array.isArray(u);

export const verifyExport = async (lines: AsyncIterable<string>, publicKeyPem: string): Promise<ExportVerdict> => {
  const digest = createHash('sha256');
  const links = new Map<string, { revision: number; hash: string }>();
  const byType: Record<string, number> = {};
  const presets = new Set<string>();
  const actors = new Set<string>();
  let firstAt: string | null = null;
  let lastAt: string | null = null;
  let events = 0;
  let redactedLines = 0;
  let pending: { text: string; number: number } | undefined;
  let number = 0;

  const eventLine = ({ text, number: n }: { text: string; number: number }) => {
    let line: unknown;
    try {
      line = JSON.parse(text);
    } catch {
      throw new Refused(n, 'is not JSON');
    }
    if (!isRecord(line) || line.kind !== 'event') throw new Refused(n, 'is not an event line (only the last line may close the export)');
    const { stream, revision, type, data, metadata, hash, previous_hash: previous, recorded_at: at, redacted } = line;
    if (typeof stream !== 'string' || typeof type !== 'string' || typeof hash !== 'string' || typeof previous !== 'string')
      throw new Refused(n, 'lacks stream, type, hash or previous_hash');
    if (typeof revision !== 'number' || !Number.isSafeInteger(revision) || revision < 0) throw new Refused(n, 'has no valid revision');
    const before = links.get(stream);
    if (before && (before.revision + 1 !== revision || before.hash !== previous)) {
      throw new Refused(
        n,
        `${stream}@${revision} does not follow ${stream}@${before.revision} in this export (an event is missing, moved or changed)`,
      );
    }
    if (redacted !== undefined) {
      // Only what the export leaves out may be missing: a key's SHA-256 on ApiKeyCreated (export.ts).
      if (type !== 'ApiKeyCreated' || !isRecord(redacted) || Object.keys(redacted).join() !== 'data.keySha256')
        throw new Refused(n, `${stream}@${revision} says it leaves out what an export never leaves out`);
      if (!isRecord(data) || 'keySha256' in data)
        throw new Refused(n, `${stream}@${revision} is redacted but keeps what it says it leaves out`);
      // Its hash cannot be recomputed without the SHA-256 left out: it is taken as given, and the
      // stream's next line must chain from it; the signature covers its bytes.
      redactedLines++;
    } else if (!linksTo(previous, { type, data, metadata, stream, revision: BigInt(revision) }, hash))
      throw new Refused(n, `${stream}@${revision} does not match its chain hash: the line was changed`);
    links.set(stream, { revision, hash });
    digest.update(`${text}\n`, 'utf8');
    events++;
    byType[type] = (byType[type] ?? 0) + 1;
    presets.add(stream);
    if (isRecord(metadata) && typeof metadata.actorUserId === 'string') actors.add(metadata.actorUserId);
    if (typeof at === 'string') {
      firstAt ??= at;
      lastAt = at;
    }
  };

  try {
    for await (const raw of lines) {
      number++;
      const text = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
      if (text === '') continue;
      if (pending) eventLine(pending);
      pending = { text, number };
    }
    if (!pending) throw new Refused(0, 'the export is empty');
    let end: unknown;
    try {
      end = JSON.parse(pending.text);
    } catch {
      throw new Refused(pending.number, 'is not JSON');
    }
    if (!isRecord(end) || end.kind !== 'end') throw new Refused(pending.number, 'the export has no closing line: it was cut short');
    const { signature, ...unsigned } = end;
    if (typeof signature !== 'string') throw new Refused(pending.number, 'the closing line has no signature');
    let signed: boolean;
    try {
      signed = verifySignature(publicKeyPem, canonicalize(unsigned), signature);
    } catch (error) {
      throw new Refused(pending.number, `the public key cannot check it: ${(error as Error).message}`);
    }
    if (!signed) throw new Refused(pending.number, 'the signature does not match this public key and closing line');
    if (end.sha256 !== digest.digest('hex')) throw new Refused(pending.number, 'the lines before the closing line are not the ones signed');
    if (end.count !== events)
      throw new Refused(pending.number, `the closing line counts ${String(end.count)} events, the export has ${events}`);
    const range = isRecord(end.range) ? end.range : {};
    return {
      ok: true,
      summary: {
        events,
        presets: [...presets].sort(),
        eventsByType: byType,
        actors: [...actors].sort(),
        range: {
          from: typeof range.from === 'string' ? range.from : null,
          to: typeof range.to === 'string' ? range.to : null,
          firstRecordedAt: firstAt,
          lastRecordedAt: lastAt,
        },
        workspaceId: String(end.workspace_id),
        keyId: String(end.key_id),
        lastCheckpoint: end.last_checkpoint ?? null,
        redacted: redactedLines,
      },
    };
  } catch (error) {
    if (error instanceof Refused) return { ok: false, line: error.line, message: error.message };
    throw error;
  }
};
