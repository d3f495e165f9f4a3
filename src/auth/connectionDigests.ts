import { timingSafeEqual } from 'node:crypto';
import { tokenDigest } from './apiKeys';

/**
 * A token's digest (`tokenDigest`), remembered per connection: a client sends the same key with
 * every request of a keep-alive connection, and hashing it (a SHA-256 through OpenSSL for every
 * request) was the largest single cost of a read after the socket's write (docs/performance.md).
 * Only the digest is kept, never a caller: the key ring still decides on every request, so a
 * revoked or expired key is refused as before.
 *
 * The request's token is compared with the connection's last one by `timingSafeEqual`, whatever
 * they hold: a connection that a proxy shares among clients learns from the timing only whether a
 * token is the one sent last on it, which it can know only by holding it. Tokens of another length
 * are told apart at once (their lengths are the key format's, not a secret). A connection holds one
 * entry, which goes with it; a request without one is hashed.
 */
export type ConnectionDigests = (connection: object | null | undefined, token: string) => Buffer;

export const connectionDigests = (): ConnectionDigests => {
  const last = new WeakMap<object, { token: Buffer; digest: Buffer }>();
  return (connection, token) => {
    if (connection === null || connection === undefined) return tokenDigest(token);
    // Visible ASCII (parseBearer), so latin1 is its bytes.
    const bytes = Buffer.from(token, 'latin1');
    const seen = last.get(connection);
    if (seen !== undefined && seen.token.length === bytes.length && timingSafeEqual(seen.token, bytes)) return seen.digest;
    const digest = tokenDigest(token);
    // Not from Buffer's shared pool: a kept slice would keep its whole 8 KiB slab alive.
    const kept = Buffer.allocUnsafeSlow(bytes.length);
    bytes.copy(kept);
    last.set(connection, { token: kept, digest });
    return digest;
  };
};
