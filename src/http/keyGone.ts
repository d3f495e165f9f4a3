import type { Caller, KeyGone, KeyRing } from '../auth/apiKeys';
import { ApiError, envelope, type ErrorEnvelope } from './errors';
import { CHALLENGE } from './middleware/auth';

/**
 * What a request that stays open (a live event stream, a consumer group's long poll) does when the
 * key that opened it stops being honoured: the key ring tells it (src/keys/keyRing.ts, on every
 * replica within its look, and at the expiry), and it ends with a 401 saying why, as the next
 * request with that key would be refused.
 */
const MESSAGES: Record<KeyGone, string> = {
  key_revoked: 'this API key was revoked: what it had open is ended, and it is refused from now on',
  key_expired: 'this API key has expired: what it had open is ended, and it is refused from now on',
  keys_unavailable: 'this replica cannot read the keys streams, so it cannot tell whether this API key was revoked: retry later',
};

export const keyGoneEnvelope = (gone: KeyGone): ErrorEnvelope => envelope(401, MESSAGES[gone], { reason: gone });
export const keyGoneError = (gone: KeyGone): ApiError => new ApiError(401, MESSAGES[gone], { reason: gone }, CHALLENGE);

/** Watches the caller's key while a request is open; what stops watching. A ring without `watch` never changes its keys. */
export const watchKey = (ring: Pick<KeyRing, 'watch'> | undefined, caller: Caller, onGone: (gone: KeyGone) => void): (() => void) =>
  ring?.watch?.(caller, onGone) ?? (() => undefined);
