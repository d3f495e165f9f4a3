import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { canonicalize } from 'json-canonicalize';
import {
  GENESIS_HASH,
  canonicalBody,
  linkBody,
  linkHash,
  linksTo,
  metadataJsonWithHash,
  metadataToStore,
  splitStoredMetadata,
  storedBody,
} from '#src/eventstore/hashChain';
import { storedJson } from '#src/eventstore/canonicalJson';

/**
 * The chain's pure parts against the formula written out here with node:crypto (and, for events
 * appended before `hashed`, the RFC 8785 library), over any JSON.
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
  it('hashes the text as stored, keys in the order sent, of an event that says so (`"hashed":"as_stored"`)', () => {
    const metadata = metadataToStore({ requestId: 'r', hash: 'f'.repeat(64), actorUserId: 'u' }, 'e');
    expect(Object.keys(metadata)).toEqual(['requestId', 'actorUserId', 'hashed']); // no hash; the marker last
    const e = event({ b: [1, 2.5, 'é'], a: { z: null, y: 'ü' } }, metadata);
    const body =
      '{"data":{"b":[1,2.5,"é"],"a":{"z":null,"y":"ü"}},"metadata":{"requestId":"r","actorUserId":"u","hashed":"as_stored"},' +
      '"revision":"3","stream":"preset-x-y","type":"PresetVersionAdded"}';
    expect(storedBody(e)).toBe(body);
    expect(linksTo(GENESIS_HASH, e, link(GENESIS_HASH, body))).toBe(true);
    // The same values in another order (here the sorted one, which an older event's link covers) do not link.
    const sorted = event({ a: { y: 'ü', z: null }, b: [1, 2.5, 'é'] }, metadata);
    expect(linksTo(GENESIS_HASH, sorted, link(GENESIS_HASH, body))).toBe(false);
  });

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
    expect(storedBody(event({}, stored))).toBe(canonicalBody(event({}, stored)));
  });

  it('verifies any JSON stored as its text, and refuses it with the keys of one object in another order (property)', () => {
    const key = fc.string().filter((k) => !/^(0|[1-9]\d*)$/.test(k)); // integer-like keys: JavaScript orders those
    const object = fc.dictionary(key, fc.jsonValue(), { minKeys: 2 }).filter((o) => new Set(Object.keys(o)).size >= 2);
    fc.assert(
      fc.property(object, fc.dictionary(fc.string(), fc.jsonValue()), (data, sent) => {
        const [dataJson, metadataJson] = [storedJson(data), storedJson(metadataToStore(sent, 'e'))];
        const e = event(data, JSON.parse(metadataJson));
        const hash = link(GENESIS_HASH, linkBody(e.type, dataJson, metadataJson, e.stream, e.revision));
        // What a store that parses gives back (EventStoreDB, memory, an export): the same text again.
        const read = event(JSON.parse(dataJson), { ...JSON.parse(metadataJson), hash });
        expect(linksTo(GENESIS_HASH, read, hash)).toBe(true);
        const reversed = Object.fromEntries(Object.entries(data).reverse());
        expect(linksTo(GENESIS_HASH, { ...read, data: reversed }, hash)).toBe(false);
        const sorted = JSON.parse(canonicalize(data));
        if (JSON.stringify(sorted) !== dataJson) expect(linksTo(GENESIS_HASH, { ...read, data: sorted }, hash)).toBe(false);
      }),
      { numRuns: 300 },
    );
  });

  it('verifies any JSON an older release stored as canonical text, by its text or by the canonical form (property)', () => {
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

  it("reads an older event's canonical text back as that text, but for integer-like keys, which JavaScript puts first", () => {
    const data = JSON.parse(canonicalize({ z: 1, a: { y: [true, { c: 'x', b: -0.5 }] } }));
    expect(storedBody(event(data))).toBe(canonicalBody(event(data)));
    const numeric = JSON.parse(canonicalize({ '10': 'a', '9': 'b' }));
    expect(storedBody(event(numeric))).not.toBe(canonicalBody(event(numeric))); // the canonical form's reason to be
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
        expect(linkBody(e.type, canonicalize(data), unlinked, e.stream, e.revision)).toBe(canonicalBody(e));
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
