import { randomBytes } from 'node:crypto';
import { Webhook as StandardWebhook } from 'standardwebhooks';
import { signsAt, type SigningSecret } from './webhook';

/**
 * Signatures as the Standard Webhooks specification defines them, made by its own package, so
 * any of its verifiers (and `new Webhook(secret).verify(body, headers)`) accepts them. The
 * `webhook-id` is the event id, the same on every retry, so a receiver can drop a duplicate.
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

export const signer = (secrets: SigningSecret[]): Sign => {
  const keys = secrets.map((s) => ({ expiresAt: s.expiresAt, key: new StandardWebhook(s.secret) }));
  return (eventId, at, body) => {
    // A replaced secret stops signing once its overlap has passed, even between two reloads of the webhook.
    const live = keys.filter((k) => signsAt(k, at));
    return {
      'webhook-id': eventId,
      'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
      'webhook-signature': live.map((k) => k.key.sign(eventId, at, body)).join(' '),
    };
  };
};
