import { createHmac, randomBytes } from 'node:crypto';
import { signsAt, type SigningSecret } from './webhook';

/**
 * Signatures as the Standard Webhooks specification defines them: `v1,` and the base64 HMAC-SHA256,
 * keyed with the secret's bytes (base64 after `whsec_`), of `<webhook-id>.<webhook-timestamp>.<body>`.
 * Made with node:crypto's HMAC (OpenSSL) rather than the `standardwebhooks` package's JavaScript
 * SHA-256, which was a tenth of a delivery's CPU; the package's own verifier stays the reference in
 * the tests (test/unit/webhooks/webhook.test.ts), so any of its verifiers accepts what is made here.
 * The `webhook-id` is the event id, the same on every retry, so a receiver can drop a duplicate.
 */

/** `whsec_` and 32 random bytes in base64: the form the specification's libraries take. */
export const newSecret = (): string => `whsec_${randomBytes(32).toString('base64')}`;

export interface DeliveryHeaders {
  'webhook-id': string;
  'webhook-timestamp': string;
  'webhook-signature': string;
}

/** Signs with every secret given, in turn; the header lists them space-separated, as the specification allows. */
export type Sign = (eventId: string, at: Date, body: string) => DeliveryHeaders;

const SECRET_PREFIX = 'whsec_';
const keyOf = (secret: string): Buffer => {
  const key = Buffer.from(secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret, 'base64');
  if (key.length === 0) throw new Error("a webhook secret can't be empty");
  return key;
};

export const signer = (secrets: SigningSecret[]): Sign => {
  const keys = secrets.map((s) => ({ expiresAt: s.expiresAt, key: keyOf(s.secret) }));
  return (eventId, at, body) => {
    const timestamp = String(Math.floor(at.getTime() / 1000));
    // A replaced secret stops signing once its overlap has passed, even between two reloads of the webhook.
    const live = keys.filter((k) => signsAt(k, at));
    return {
      'webhook-id': eventId,
      'webhook-timestamp': timestamp,
      'webhook-signature': live
        .map((k) => `v1,${createHmac('sha256', k.key).update(`${eventId}.${timestamp}.`).update(body).digest('base64')}`)
        .join(' '),
    };
  };
};
