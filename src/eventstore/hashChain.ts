import { createHash, hash } from 'node:crypto';
import { canonicalJson } from './canonicalJson';

/**
 * The hash chain of the log, pure: every event's link is
 *
 *   hash = SHA-256( previous hash (32 bytes) ‖ UTF-8 of the body )
 *   body = {"data":D,"metadata":M,"revision":"r","stream":S,"type":T}
 *
 * where the previous hash is that of the event before it in the same stream (the first event of a
 * stream chains from GENESIS_HASH), `revision` is the stream revision as a decimal string, S and T
 * are JSON strings, and D and M are the event's data and metadata (without `hash`) as the store
 * keeps them: their JSON text as JSON.stringify writes it, keys in the order the client sent them
 * (linkBody). Such an event says so in its metadata, `"hashed":"as_stored"`, so a verify knows
 * the order is covered: changing the order of its keys breaks its link.
 *
 * Events appended before that (no `hashed` member) were linked over the RFC 8785 form of D and M
 * (canonicalBody: keys sorted, canonicalJson.ts), which the embedded store also stored: their links
 * are checked the same way as before, by either text (linksTo). Hashes are lowercase hex. The stores
 * compute the link when they append, inside their transaction (sqlite/writer.ts, memory.ts,
 * eventstoredb/store.ts), and keep it in the event's metadata as `hash`; events stored before the
 * chain existed keep theirs beside them (audit:seal). docs/events.md describes the format.
 */
export const GENESIS_HASH = '0'.repeat(64);
export const HASH_KEY = 'hash';
/** The metadata member that says an event's link covers its text as stored (its keys' order included). */
export const HASHED_KEY = 'hashed';
export const AS_STORED = 'as_stored';

type JsonObject = Record<string, unknown>;
export const isJsonObject = (u: unknown): u is JsonObject => typeof u === 'object' && u !== null && !Array.isArray(u);

/** The metadata the chain covers: all of it but the link itself. */
export const metadataWithoutHash = (metadata: unknown): unknown => {
  if (!isJsonObject(metadata) || !(HASH_KEY in metadata)) return metadata;
  const { [HASH_KEY]: _hash, ...rest } = metadata;
  return rest;
};

export interface Chained {
  type: string;
  data: unknown;
  metadata: unknown;
  stream: string;
  revision: bigint;
}

/** The RFC 8785 body, which the links of events appended before `hashed` cover (metadata is taken without its `hash`). */
export const canonicalBody = ({ type, data, metadata, stream, revision }: Chained): string =>
  canonicalJson({ type, data, metadata: metadataWithoutHash(metadata), stream, revision: revision.toString() });

/**
 * The body a link covers, from the JSON text of data and metadata (without `hash`) as stored. For
 * events the embedded store wrote before `hashed`, those texts were RFC 8785 and this is their
 * canonical body too (JCS of an object whose members are canonical is its keys in order and those
 * texts as they are).
 */
export const linkBody = (type: string, dataJson: string, metadataJson: string, stream: string, revision: bigint): string =>
  `{"data":${dataJson},"metadata":${metadataJson},"revision":"${revision}","stream":${JSON.stringify(stream)},"type":${JSON.stringify(type)}}`;

/**
 * The body of a parsed event as stored: JSON.stringify gives back the text a store wrote with it
 * (JSON.parse keeps the keys' order, and serializing the parse of such a text is that text).
 */
export const storedBody = (e: Chained): string =>
  linkBody(e.type, JSON.stringify(e.data), JSON.stringify(metadataWithoutHash(e.metadata)), e.stream, e.revision);

/** Whether the event's link covers its text as stored (`"hashed":"as_stored"` in its metadata). */
export const hashedAsStored = (metadata: unknown): boolean => isJsonObject(metadata) && metadata[HASHED_KEY] === AS_STORED;

/**
 * Whether `link` is the event's link after `previous`: over its text as stored; for an event
 * appended before `hashed`, over its RFC 8785 form as well (that is what was hashed; the stored
 * text, where the store kept canonical text, is the same, save integer-like keys, which JavaScript
 * puts first). An event that says `hashed` is held to its stored text alone, so an order of its
 * keys other than the one hashed is a mismatch, even an order that happens to be sorted.
 */
export const linksTo = (previous: string, e: Chained, link: string): boolean =>
  linkHash(previous, storedBody(e)) === link || (!hashedAsStored(e.metadata) && linkHash(previous, canonicalBody(e)) === link);

/**
 * One link: SHA-256 of the previous hash's bytes, then the body's. Both are written into one
 * buffer kept for it and hashed in one call (`crypto.hash`): a Hash object per link costs about
 * as much as hashing a 2 KB body (docs/performance.md, "The audit").
 */
export const linkHash = (previous: string, body: string): string => {
  if (previous.length / 2 + body.length * 3 > scratch.length)
    return createHash('sha256').update(Buffer.from(previous, 'hex')).update(body, 'utf8').digest('hex');
  const at = scratch.write(previous, 0, 'hex');
  const end = at + scratch.write(body, at, 'utf8');
  return hash('sha256', scratch.subarray(0, end), 'hex');
};

const scratch = Buffer.allocUnsafe(256 * 1024);

/** The link an event carries in its metadata, if any. */
export const storedHash = (metadata: unknown): string | undefined => {
  const hash = isJsonObject(metadata) ? metadata[HASH_KEY] : undefined;
  return typeof hash === 'string' ? hash : undefined;
};

/** Chained events carry their link in metadata, so metadata must be a JSON object. */
export const requireObjectMetadata = (metadata: unknown, what: string): JsonObject => {
  if (!isJsonObject(metadata)) throw new TypeError(`${what}: an event's metadata must be a JSON object (it carries the chain's hash)`);
  return metadata;
};

/**
 * The metadata a store keeps of an event's (before its link): a JSON object without `hash`, saying
 * that the link covers the event's text as stored (`"hashed":"as_stored"`, the last member).
 */
export const metadataToStore = (metadata: unknown, what: string): JsonObject => ({
  ...(metadataWithoutHash(requireObjectMetadata(metadata, what)) as JsonObject),
  [HASHED_KEY]: AS_STORED,
});

/**
 * Adds `"hash":"…"` to metadata serialized by JSON.stringify from an object without one: the
 * writer thread links events without parsing their JSON again.
 */
export const metadataJsonWithHash = (metadataJson: string, hash: string): string =>
  metadataJson === '{}' ? `{"${HASH_KEY}":"${hash}"}` : `${metadataJson.slice(0, -1)},"${HASH_KEY}":"${hash}"}`;

const HASH_MEMBER = `"${HASH_KEY}":"`;
const LINK_TAIL = HASH_MEMBER.length + 64 + 2; // "hash":"<64 hex>"}

/**
 * Undoes metadataJsonWithHash on stored text: the metadata the link covers and the link, or
 * undefined when the text does not end with the member the writer adds (then parse it).
 */
export const splitStoredMetadata = (text: string): { unlinked: string; hash: string } | undefined => {
  const at = text.length - LINK_TAIL;
  if (at < 1 || !text.startsWith(HASH_MEMBER, at) || !text.endsWith('"}')) return undefined;
  const hash = text.slice(at + HASH_MEMBER.length, text.length - 2);
  if (!isHash(hash)) return undefined;
  if (at === 1 && text[0] === '{') return { unlinked: '{}', hash };
  return text[at - 1] === ',' ? { unlinked: `${text.slice(0, at - 1)}}`, hash } : undefined;
};

/** Links a run of events appended together to a stream whose last link is `previous`. */
export const linkAll = (previous: string, bodies: readonly string[]): string[] => {
  const hashes: string[] = [];
  let last = previous;
  for (const body of bodies) hashes.push((last = linkHash(last, body)));
  return hashes;
};

export const isHash = (s: unknown): s is string => typeof s === 'string' && /^[0-9a-f]{64}$/.test(s);
