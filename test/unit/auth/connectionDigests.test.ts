import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { connectionDigests } from '#src/auth/connectionDigests';

/** The reference: SHA-256 of the token as node:crypto computes it, not through our code. */
const sha256 = (token: string) => createHash('sha256').update(token, 'utf8').digest();

// Tokens as parseBearer passes them (visible ASCII), short enough that lengths collide often.
const token = fc.string({ unit: fc.integer({ min: 0x21, max: 0x7e }).map((c) => String.fromCharCode(c)), minLength: 1, maxLength: 6 });

describe('connectionDigests', () => {
  it('answers each request with the SHA-256 of its own token, whatever each connection sent before', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.integer({ min: 0, max: 3 }), token), { maxLength: 60 }), (requests) => {
        const digestOf = connectionDigests();
        const connections = [{}, {}, {}, {}];
        for (const [c, t] of requests) expect(digestOf(connections[c], t).equals(sha256(t))).toBe(true);
      }),
    );
  });

  it('hashes a connection’s token once while it sends the same one, and again when it changes', () => {
    const digestOf = connectionDigests();
    const a = {};
    const b = {};
    const first = digestOf(a, 'pk_one');
    expect(digestOf(a, 'pk_one')).toBe(first); // the remembered digest, not a new one
    expect(digestOf(b, 'pk_one')).not.toBe(first); // another connection remembers its own
    expect(digestOf(a, 'pk_two').equals(sha256('pk_two'))).toBe(true);
    expect(digestOf(a, 'pk_one')).not.toBe(first); // pk_two replaced it
  });

  it('hashes a request that has no connection', () => {
    const digestOf = connectionDigests();
    expect(digestOf(undefined, 'pk_one').equals(sha256('pk_one'))).toBe(true);
    expect(digestOf(null, 'pk_one').equals(sha256('pk_one'))).toBe(true);
  });
});
