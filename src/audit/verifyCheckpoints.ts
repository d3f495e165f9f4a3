import type { RecordedEvent } from '../eventstore/eventStore';
import type { StoredEvent } from '../eventstore/streamReader';
import { isJsonObject } from '../eventstore/hashChain';
import { headsDigest, headsTextDigest } from './checkpoint';
import { AUDIT_STREAM_PREFIX, LOG_CHECKPOINTED, decodeCheckpoint, type StreamHead } from './events';
import { fault } from './verifyFaults';
import { eventAt, parsed, type Head, type VerifiableStore } from './verifyLinks';

/**
 * The checkpoints as a verify checks them (src/audit/verify.ts): which are due in a slice of the
 * log, and each one's digest and heads against the links the read has just computed.
 */

/** Checkpoints read at a time to find where they are due (one can be ~140 KB). */
const CHECKPOINTS_PER_PAGE = 4;

/**
 * The checkpoints on the audit streams among `prefixes` whose heads were read through a position
 * in (after, through], by that position: where this share checks them (each checkpoint is due in
 * exactly one share). Memory holds two positions per checkpoint, not its heads. One that does not
 * decode is due where it is stored, after its own chain is checked, and fails there.
 */
export const checkpointsDue = async (
  store: VerifiableStore,
  prefixes: readonly string[],
  after: bigint,
  through: bigint,
): Promise<{ through: bigint; position: bigint }[]> => {
  const audits = prefixes.includes('') ? [AUDIT_STREAM_PREFIX] : prefixes.filter((p) => p.startsWith(AUDIT_STREAM_PREFIX));
  const due: { through: bigint; position: bigint }[] = [];
  for (const streamPrefix of audits) {
    for (let from = after; ;) {
      const options = { after: from, limit: CHECKPOINTS_PER_PAGE, streamPrefix, types: [LOG_CHECKPOINTED] };
      const page = store.readLogStored
        ? (await store.readLogStored(options)).map((e) => ({ position: e.position, read: storedThrough(e) }))
        : (await store.readAll(options)).map((e) => ({ position: e.position, read: readThrough(e) }));
      for (const { position, read } of page) if (read > after && read <= through) due.push({ through: read, position });
      if (page.length < CHECKPOINTS_PER_PAGE) break;
      from = page[page.length - 1]!.position;
    }
  }
  return due.sort((a, b) => (a.through < b.through ? -1 : a.through > b.through ? 1 : a.position < b.position ? -1 : 1));
};

/**
 * Where a checkpoint stored as canonical JSON (checkpoint.ts writes its data so) read its heads through: the member before its last
 * (`through`, then `workspaceId`, sort last), without parsing its heads. Text of another shape is
 * parsed. A checkpoint whose text was changed fails its own chain, which the verdict names before
 * any checkpoint's fault.
 */
const storedThrough = (e: StoredEvent): bigint => {
  const last = THROUGH_LAST.exec(e.data);
  if (last) return BigInt(last[1]!);
  const [data, metadata] = [parsed(e.data), parsed(e.metadata)];
  return !data.ok || !metadata.ok
    ? e.position
    : readThrough({ ...e, id: '', recordedAt: new Date(0), data: data.value, metadata: metadata.value });
};
const THROUGH_LAST = /,"through":"(\d{1,19})","workspaceId":"[^"\\]*"\}$/;

const readThrough = (recorded: RecordedEvent): bigint => {
  try {
    return BigInt(decodeCheckpoint(recorded).data.through);
  } catch {
    return recorded.position;
  }
};

/** A checkpoint as its check needs it: where it is, its heads, and whether they hash to its digest. */
interface Checkpoint {
  recorded: Pick<RecordedEvent, 'stream' | 'revision' | 'position'>;
  heads: readonly StreamHead[];
  digestMatches: boolean;
}

/**
 * The checkpoint stored at `position`. Stored as canonical JSON, its heads are the text between
 * its `digest` and its `occurredAt` (members sort so): their digest is that text's SHA-256, and
 * only the heads are parsed. Text of another shape, or whose heads do not hash to its digest, is
 * decoded whole and its heads canonicalized again, as for a store that parses.
 */
export const checkpointAt = async (store: VerifiableStore, position: bigint): Promise<Checkpoint> => {
  if (store.readLogStored) {
    const [e] = await store.readLogStored({ after: position - 1n, limit: 1 });
    const quick = e && quickCheckpoint(e);
    if (quick) return quick;
  }
  const [recorded] = await store.readAll({ after: position - 1n, limit: 1 });
  const { data } = decodeCheckpoint(recorded!);
  return { recorded: recorded!, heads: data.heads, digestMatches: headsDigest(data.heads) === data.digest };
};

const HEADS_AT = '{"after":"'.length;
const quickCheckpoint = (e: StoredEvent): Checkpoint | undefined => {
  const digestAt = e.data.indexOf('","digest":"', HEADS_AT);
  const headsAt = digestAt + '","digest":"'.length + 64;
  const end = e.data.lastIndexOf(',"occurredAt":"');
  if (e.type !== LOG_CHECKPOINTED || !e.data.startsWith('{"after":"') || digestAt < 0 || end < headsAt) return undefined;
  if (!e.data.startsWith('","heads":', headsAt)) return undefined;
  const text = e.data.slice(headsAt + '","heads":'.length, end);
  if (headsTextDigest(text) !== e.data.slice(digestAt + '","digest":"'.length, headsAt)) return undefined;
  const heads = parsed(text);
  if (!heads.ok || !Array.isArray(heads.value) || !heads.value.every(isStreamHead)) return undefined;
  return { recorded: e, heads: heads.value, digestMatches: true };
};

const isStreamHead = (u: unknown): u is StreamHead =>
  isJsonObject(u) && typeof u.stream === 'string' && Number.isSafeInteger(u.revision) && typeof u.hash === 'string';

/**
 * A checkpoint's digest, and the link of each head it recorded: the one kept for the stream when
 * it is at that revision (its link computed in this pass), else the event's as stored, looked up.
 */
export const checkCheckpoint = async (store: VerifiableStore, checkpoint: Checkpoint, kept: ReadonlyMap<string, Head>) => {
  const { recorded, heads, digestMatches } = checkpoint;
  if (!digestMatches) {
    throw fault('checkpoint_digest', recorded, `the checkpoint ${recorded.stream}@${recorded.revision} does not match its digest`);
  }
  for (const head of heads) {
    const known = kept.get(head.stream);
    if (known && known.link === head.hash && known.revision === BigInt(head.revision)) continue;
    const event = await eventAt(store, head.stream, BigInt(head.revision));
    if (!event) {
      const [last] = await store.readAllBackwards({ streamPrefix: head.stream, limit: 1 });
      throw fault(
        'checkpoint_head_missing',
        { stream: head.stream, revision: head.revision },
        `${head.stream} ends ${last && last.stream === head.stream ? `at revision ${last.revision}` : 'with no event'}, but the checkpoint ${recorded.stream}@${recorded.revision} recorded its revision ${head.revision}: its tail was removed`,
      );
    }
    if (event.link !== head.hash) {
      throw fault(
        'checkpoint_head_mismatch',
        event,
        `${head.stream}@${head.revision} does not have the link the checkpoint ${recorded.stream}@${recorded.revision} recorded`,
      );
    }
  }
};
