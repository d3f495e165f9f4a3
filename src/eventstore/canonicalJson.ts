import { configure } from 'safe-stable-stringify';

/**
 * RFC 8785 (JCS) canonical JSON, as the hash chain, the checkpoints and the signed exports need it:
 * object keys sorted by their UTF-16 code units, numbers and strings written as JSON.stringify
 * writes them (which is what RFC 8785 specifies), no whitespace. safe-stable-stringify in its
 * deterministic, strict mode does exactly that, and refuses what JSON cannot hold (NaN, Infinity, a
 * BigInt, a cycle) by throwing. It gives the same text as json-canonicalize, the RFC's reading the
 * project used before (test/unit/eventstore/canonicalJson.test.ts holds the two to each other over
 * arbitrary JSON), at about a third of its cost: every append canonicalizes its events' data and
 * metadata on the thread that serves HTTP.
 */
const stringify = configure({ deterministic: true, strict: true, circularValue: Error, bigint: false });

export const canonicalJson = (value: unknown): string => {
  const text = stringify(value);
  if (text === undefined) throw new TypeError('canonical JSON: the value has no JSON text (undefined or a function)');
  return text;
};

/** The same value with the keys of every object in RFC 8785's order (a copy). */
export const inCanonicalOrder = <T>(value: T): T => JSON.parse(canonicalJson(value)) as T;

const ordered = configure({ deterministic: false, strict: true, circularValue: Error, bigint: false });

/**
 * The JSON text a store keeps of an event's data and metadata: what JSON.stringify writes (keys in
 * their order, so a client's JSON comes back as sent), but refusing what JSON cannot hold, as
 * canonicalJson does, instead of writing NaN as null or leaving a function out. The chain links
 * this text (chain.ts linkBody); JSON.stringify of its parse gives it back, which is how a verify
 * of a parsed event rebuilds it.
 */
export const storedJson = (value: unknown): string => {
  const text = ordered(value);
  if (text === undefined) throw new TypeError('stored JSON: the value has no JSON text (undefined or a function)');
  return text;
};
