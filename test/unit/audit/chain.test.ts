import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { canonicalize } from 'json-canonicalize';
import {
  GENESIS_HASH,
  bodyOfCanonical,
  canonicalBody,
  linkHash,
  linksTo,
  metadataJsonWithHash,
  quickBody,
  splitStoredMetadata,
} from '../../../src/audit/chain';

/**
 * The chain's pure parts against the formula written from the issue with the RFC 8785 library and
 * node:crypto, and the quick path verify takes (quickBody) against the canonical one, over any JSON.
 */
const link = (previous: string, body: string) => createHash('sha256').update(Buffer.from(previous, 'hex')).update(body).digest('hex');
const event = (data: unknown, metadata: Record<string, unknown> = { requestId: 'r' }) => ({
  type: 'PresetVersionAdded',
  data,
  metadata,
  stream: 'preset-x-y',
  revision: 3n,
});

describe('the chain', () => {
  it('hashes the RFC 8785 JSON of type, data, metadata without its hash, stream and the revision as a string', () => {
    const e = event({ b: [1, 2.5, 'é'], a: null }, { requestId: 'r', hash: 'f'.repeat(64), actorUserId: 'u' });
    const body =
      '{"data":{"a":null,"b":[1,2.5,"é"]},"metadata":{"actorUserId":"u","requestId":"r"},"revision":"3","stream":"preset-x-y","type":"PresetVersionAdded"}';
    expect(canonicalBody(e)).toBe(body);
    expect(linksTo(GENESIS_HASH, e, link(GENESIS_HASH, body))).toBe(true);
    expect(linksTo(GENESIS_HASH, { ...e, revision: 4n }, link(GENESIS_HASH, body))).toBe(false);
  });

  it("links as SHA-256 of the previous hash's bytes then the body's UTF-8, call after call, for bodies of any size and text (property)", () => {
    const hex = fc.string({ unit: fc.constantFrom(...'0123456789abcdef'), minLength: 64, maxLength: 64 });
    const body = fc.oneof(
      fc.string({ unit: 'grapheme', maxLength: 3000 }),
      fc.string({ unit: 'binary', maxLength: 200 }), // lone surrogates too: UTF-8 writes them as U+FFFD, as update() does
      fc.constantFrom('é'.repeat(90_000), 'x'.repeat(300_000)), // past the buffer the links are written in
    );
    fc.assert(
      fc.property(fc.array(fc.tuple(hex, body), { minLength: 1, maxLength: 4 }), (calls) => {
        for (const [previous, text] of calls) expect(linkHash(previous, text)).toBe(link(previous, text));
      }),
    );
    // A long body, then a short one: nothing of the first is hashed with the second.
    expect(linkHash(GENESIS_HASH, '{}')).toBe(link(GENESIS_HASH, '{}'));
  });

  it('adds the hash to stored metadata JSON as the last member, and takes it off again', () => {
    expect(metadataJsonWithHash('{}', 'a'.repeat(64))).toBe(`{"hash":"${'a'.repeat(64)}"}`);
    const stored = JSON.parse(metadataJsonWithHash('{"actorUserId":"u","requestId":"r"}', 'a'.repeat(64)));
    expect(stored).toEqual({ actorUserId: 'u', requestId: 'r', hash: 'a'.repeat(64) });
    expect(quickBody(event({}, stored))).toBe(canonicalBody(event({}, stored)));
  });

  it('verifies any JSON stored as canonical text, by the quick path or by the canonical one (property)', () => {
    fc.assert(
      fc.property(fc.jsonValue(), fc.dictionary(fc.string(), fc.jsonValue()), (data, metadata) => {
        // What the embedded store keeps (canonical text) and what verify reads back (parsed).
        const read = event(JSON.parse(canonicalize(data)), JSON.parse(canonicalize(metadata)));
        const hash = link(GENESIS_HASH, canonicalBody(event(data, metadata)));
        expect(linksTo(GENESIS_HASH, read, hash)).toBe(true);
        // …and one changed value is refused.
        expect(linksTo(GENESIS_HASH, { ...read, data: [read.data] }, hash)).toBe(false);
      }),
      { numRuns: 300 },
    );
  });

  it('takes the quick path for objects without integer-like keys, which keep their order through JSON.parse', () => {
    const data = JSON.parse(canonicalize({ z: 1, a: { y: [true, { c: 'x', b: -0.5 }] } }));
    expect(quickBody(event(data))).toBe(canonicalBody(event(data)));
    const numeric = JSON.parse(canonicalize({ '10': 'a', '9': 'b' }));
    expect(quickBody(event(numeric))).not.toBe(canonicalBody(event(numeric))); // the fallback's reason to be
  });

  it('splits stored metadata into the text the link covers and the link, for any metadata object (property)', () => {
    const hex64 = fc.stringMatching(/^[0-9a-f]{64}$/);
    fc.assert(
      fc.property(fc.dictionary(fc.string(), fc.jsonValue()), hex64, fc.jsonValue(), (metadata, hash, data) => {
        const unlinked = canonicalize(metadata);
        const stored = metadataJsonWithHash(unlinked, hash);
        expect(splitStoredMetadata(stored)).toEqual({ unlinked, hash });
        // The stored text's body is the one the formula hashes, written with the RFC 8785 library.
        const e = event(data, metadata);
        expect(bodyOfCanonical(e.type, canonicalize(data), unlinked, e.stream, e.revision)).toBe(canonicalBody(e));
      }),
      { numRuns: 300 },
    );
  });

  it('finds no link in metadata text that does not end with the member the writer adds', () => {
    const h = 'b'.repeat(64);
    expect(splitStoredMetadata('{}')).toBeUndefined();
    expect(splitStoredMetadata(`{"hash":"${h}","a":1}`)).toBeUndefined(); // not last
    expect(splitStoredMetadata(`{"a":1,"hash":"${'B'.repeat(64)}"}`)).toBeUndefined(); // not lowercase hex
    expect(splitStoredMetadata(`{"a":1 "hash":"${h}"}`)).toBeUndefined(); // no comma before it
    expect(splitStoredMetadata(`{"a":1,"xhash":"${h}"}`)).toBeUndefined();
    expect(splitStoredMetadata(`{"hash":"${h}"}`)).toEqual({ unlinked: '{}', hash: h });
  });
});
