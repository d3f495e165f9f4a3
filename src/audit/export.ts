import { createHash } from 'node:crypto';
import { canonicalJson } from '../eventstore/canonicalJson';
import type { EventFeed } from '../eventstore/eventFeed';
import type { EventStore, RecordedEvent } from '../eventstore/eventStore';
import { presetStreamName } from '../presets/streamName';
import { GENESIS_HASH } from '../eventstore/hashChain';
import { lastCheckpoint, linksOf } from './checkpoint';
import type { SealedLinks } from '../eventstore/sealedLinks';
import { SIGNATURE_ALGORITHM, type SigningKey } from './signing';
import { workspaceStreamPrefix } from '../events/workspaceStreams';

/**
 * A signed export of a workspace's events (GET /api/v1/audit/export), as NDJSON:
 *
 * - one `{"kind":"event", …}` line per event in the range, in feed order, with its chain link
 *   (`hash`) and the link it chains from (`previous_hash`);
 * - a closing `{"kind":"end", …}` line: the range, the count, the workspace's last checkpoint,
 *   `sha256` (hex) of every byte before this line, and `signature`, Ed25519 (base64) over the
 *   RFC 8785 JSON of the closing line without `signature`.
 *
 * Read from the feed a page at a time and yielded line by line: memory holds one page and one link
 * per stream exported, never the range. `npx presets-audit verify` checks an export offline.
 */
export type ExportStore = EventStore & EventFeed & SealedLinks;

export interface ExportRange {
  workspaceId: string;
  /** recorded at or after (inclusive) */
  from?: Date;
  /** recorded before (exclusive) */
  to?: Date;
  /** Only this preset's stream. */
  slug?: string;
}

export interface ExportEventLine {
  kind: 'event';
  id: string;
  stream: string;
  revision: number;
  position: string;
  type: string;
  recorded_at: string;
  data: unknown;
  metadata: unknown;
  hash: string;
  previous_hash: string;
  /**
   * What was left out of the line, by its path in the event, with what is kept of it: an
   * `ApiKeyCreated` line leaves out `data.keySha256` and keeps its first 12 hex digits (the key id
   * of logs and of `metadata.keyId`). Such a line's `hash` cannot be recomputed from it.
   */
  redacted?: Record<string, string>;
}

export interface ExportEndLine {
  kind: 'end';
  workspace_id: string;
  range: { from: string | null; to: string | null; stream: string | null };
  count: number;
  first_position: string | null;
  last_position: string | null;
  last_checkpoint: { stream: string; revision: number; hash: string; through: string; digest: string } | null;
  sha256: string;
  algorithm: typeof SIGNATURE_ALGORITHM;
  key_id: string;
  signature: string;
}

const PAGE = 1000;

export async function* exportLines(store: ExportStore, range: ExportRange, key: SigningKey): AsyncGenerator<string> {
  const only = range.slug === undefined ? undefined : presetStreamName(range.workspaceId, range.slug);
  const prefix = only ?? workspaceStreamPrefix(range.workspaceId);
  // The checkpoint first: every event it covers is in the store when the export reads on.
  const checkpoint = await lastCheckpoint(store, range.workspaceId);
  const until = await store.headPosition({ streamPrefix: prefix });
  const digest = createHash('sha256');
  const lastLink = new Map<string, string>();
  let count = 0;
  let first: bigint | null = null;
  let last: bigint | null = null;
  const inRange = (e: RecordedEvent) =>
    (only === undefined || e.stream === only) &&
    (range.from === undefined || e.recordedAt >= range.from) &&
    (range.to === undefined || e.recordedAt < range.to);

  for (let after = 0n; until !== null && after < until;) {
    const page = (await store.readAll({ after, limit: PAGE, streamPrefix: prefix })).filter((e) => e.position <= until);
    const wanted = page.filter(inRange);
    const links = await linksOf(store, wanted);
    for (const [i, e] of wanted.entries()) {
      const previous = lastLink.get(e.stream) ?? (await linkBefore(store, e));
      const line: ExportEventLine = {
        kind: 'event',
        id: e.id,
        stream: e.stream,
        revision: Number(e.revision),
        position: e.position.toString(),
        type: e.type,
        recorded_at: e.recordedAt.toISOString(),
        ...withoutSecrets(e),
        metadata: e.metadata,
        hash: links[i] ?? '',
        previous_hash: previous,
      };
      lastLink.set(e.stream, line.hash);
      const text = `${JSON.stringify(line)}\n`;
      digest.update(text, 'utf8');
      count++;
      first ??= e.position;
      last = e.position;
      yield text;
    }
    if (page.length < PAGE) break;
    after = page[page.length - 1]!.position;
  }

  const unsigned: Omit<ExportEndLine, 'signature'> = {
    kind: 'end',
    workspace_id: range.workspaceId,
    range: { from: range.from?.toISOString() ?? null, to: range.to?.toISOString() ?? null, stream: only ?? null },
    count,
    first_position: first?.toString() ?? null,
    last_position: last?.toString() ?? null,
    last_checkpoint: checkpoint && {
      stream: checkpoint.stream,
      revision: Number(checkpoint.revision),
      hash: checkpoint.metadata.hash ?? '',
      through: checkpoint.data.through,
      digest: checkpoint.data.digest,
    },
    sha256: digest.digest('hex'),
    algorithm: SIGNATURE_ALGORITHM,
    key_id: key.keyId,
  };
  const end: ExportEndLine = { ...unsigned, signature: key.sign(canonicalJson(unsigned)) };
  yield `${JSON.stringify(end)}\n`;
}

const isObject = (u: unknown): u is Record<string, unknown> => typeof u === 'object' && u !== null && !Array.isArray(u);

/**
 * An event's data as an export shows it: a key's SHA-256 (ApiKeyCreated's `keySha256`) is left
 * out, as every other answer leaves it out, and only its first 12 hex digits are kept.
 */
export const withoutSecrets = (e: Pick<RecordedEvent, 'type' | 'data'>): Pick<ExportEventLine, 'data' | 'redacted'> => {
  if (e.type !== 'ApiKeyCreated' || !isObject(e.data) || typeof e.data.keySha256 !== 'string') return { data: e.data };
  const { keySha256, ...data } = e.data;
  return { data, redacted: { 'data.keySha256': keySha256.slice(0, 12).toLowerCase() } };
};

/** The link the event chains from: its stream's previous event's (GENESIS_HASH for a first event). */
const linkBefore = async (store: ExportStore, e: RecordedEvent): Promise<string> => {
  if (e.revision === 0n) return GENESIS_HASH;
  const [before] = await store.read(e.stream, { fromRevision: e.revision - 1n, limit: 1 });
  const [link] = before ? await linksOf(store, [before]) : [undefined];
  return link ?? '';
};
