import fc from 'fast-check';
import { Webhook as StandardWebhook } from 'standardwebhooks';
import { signer, newSecret } from '#src/webhooks/signing';
import { liveSecrets, newWebhook, patchWebhook, rewound, rotateSecret, ROTATION_OVERLAP_MS, wants } from '#src/webhooks/webhook';

const t0 = new Date('2026-05-01T00:00:00.000Z');
const later = (ms: number) => new Date(t0.getTime() + ms);
const base = () =>
  newWebhook({ url: 'https://a.example/h' }, { id: 'w1', workspaceId: 'ws', secret: 'whsec_AAAA', now: t0, checkpoint: 7n });

describe("a webhook's changes", () => {
  it('starts active, for every event type, after the checkpoint it is given, with one secret', () => {
    const { webhook, progress } = base();
    expect(webhook).toMatchObject({
      status: 'active',
      events: null,
      description: null,
      statusReason: null,
      secrets: [{ secret: 'whsec_AAAA', expiresAt: null }],
      revision: 0,
    });
    expect(progress).toEqual({
      checkpoint: 7n,
      epoch: 0,
      failingSince: null,
      failingEventId: null,
      failingAttempts: 0,
      nextAttemptAt: null,
    });
    expect(wants(webhook.events, 'AnyTypeAddedLater')).toBe(true);
    expect(wants(['PresetCreated'], 'PresetVersionAdded')).toBe(false);
  });

  it('a PATCH that changes nothing is no change; one that does moves the revision and updated_at', () => {
    const w = base().webhook;
    expect(patchWebhook(w, { url: w.url, events: null }, later(5))).toBeNull();
    const next = patchWebhook(w, { events: ['PresetCreated'] }, later(5))!;
    expect(next).toEqual({
      webhook: { ...w, events: ['PresetCreated'], updatedAt: later(5).toISOString(), revision: 1 },
      reactivated: false,
    });
  });

  it('setting a disabled webhook active again clears its reason and says it was reactivated', () => {
    const w = { ...base().webhook, status: 'disabled' as const, statusReason: 'the endpoint answered 410 Gone' };
    expect(patchWebhook(w, { status: 'active' }, later(1))).toMatchObject({
      webhook: { status: 'active', statusReason: null },
      reactivated: true,
    });
    expect(patchWebhook(w, { description: 'x' }, later(1))).toMatchObject({
      webhook: { status: 'disabled', statusReason: 'the endpoint answered 410 Gone' },
      reactivated: false,
    });
  });

  it('a rotation keeps the replaced secret for 24 hours, and at most two replaced ones', () => {
    let w = base().webhook;
    w = rotateSecret(w, 'whsec_BBBB', later(0));
    expect(w.secrets).toEqual([
      { secret: 'whsec_BBBB', expiresAt: null },
      { secret: 'whsec_AAAA', expiresAt: later(ROTATION_OVERLAP_MS).toISOString() },
    ]);
    expect(liveSecrets(w.secrets, later(ROTATION_OVERLAP_MS - 1)).map((s) => s.secret)).toEqual(['whsec_BBBB', 'whsec_AAAA']);
    expect(liveSecrets(w.secrets, later(ROTATION_OVERLAP_MS)).map((s) => s.secret)).toEqual(['whsec_BBBB']);
    w = rotateSecret(w, 'whsec_CCCC', later(1000));
    w = rotateSecret(w, 'whsec_DDDD', later(2000));
    expect(w.secrets.map((s) => s.secret)).toEqual(['whsec_DDDD', 'whsec_CCCC', 'whsec_BBBB']);
    // A secret whose overlap has passed is dropped at the next rotation.
    w = rotateSecret(w, 'whsec_EEEE', later(ROTATION_OVERLAP_MS + 2500));
    expect(w.secrets.map((s) => s.secret)).toEqual(['whsec_EEEE', 'whsec_DDDD']);
  });

  it('a replay moves the checkpoint back, never forward, and starts a new epoch with a fresh attempt count', () => {
    const p = {
      checkpoint: 100n,
      epoch: 3,
      failingSince: t0.toISOString(),
      failingEventId: 'e',
      failingAttempts: 9,
      nextAttemptAt: later(9).toISOString(),
    };
    expect(rewound(p, 10n)).toEqual({
      checkpoint: 10n,
      epoch: 4,
      failingSince: t0.toISOString(),
      failingEventId: null,
      failingAttempts: 0,
      nextAttemptAt: null,
    });
    expect(rewound(p, 1000n).checkpoint).toBe(100n);
    expect(rewound({ ...p, checkpoint: null }, 5n).checkpoint).toBe(5n);
  });
});

describe('signing', () => {
  it('makes whsec_ secrets that standardwebhooks accepts, and signs so its verify passes under each live secret', () => {
    const [a, b] = [newSecret(), newSecret()];
    expect(a).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(a).not.toBe(b);
    const now = new Date(); // verify checks the timestamp against the clock
    const sign = signer([
      { secret: b, expiresAt: null },
      { secret: a, expiresAt: new Date(now.getTime() + 1000).toISOString() },
    ]);
    const body = '{"id":"e1"}';
    const headers = sign('e1', now, body);
    expect(headers['webhook-id']).toBe('e1');
    expect(headers['webhook-timestamp']).toBe(String(Math.floor(now.getTime() / 1000)));
    for (const secret of [a, b]) expect(new StandardWebhook(secret).verify(body, { ...headers })).toEqual({ id: 'e1' });
    expect(() => new StandardWebhook(newSecret()).verify(body, { ...headers })).toThrow('No matching signature found');
    expect(() => new StandardWebhook(b).verify('{"id":"e2"}', { ...headers })).toThrow();
  });

  it('signs any body, id and moment exactly as the standardwebhooks package does, and its verifier accepts it', () => {
    fc.assert(
      fc.property(
        fc.uint8Array({ minLength: 1, maxLength: 64 }),
        fc.string({ minLength: 1, maxLength: 40 }).filter((id) => !id.includes(' ')),
        fc.string({ unit: 'binary', maxLength: 300 }),
        fc.integer({ min: 0, max: 4_000_000_000_000 }),
        (bytes, id, body, ms) => {
          const secret = `whsec_${Buffer.from(bytes).toString('base64')}`;
          const at = new Date(ms);
          const headers = signer([{ secret, expiresAt: null }])(id, at, body);
          expect(headers['webhook-signature']).toBe(new StandardWebhook(secret).sign(id, at, body));
        },
      ),
    );
    const now = new Date();
    const secret = newSecret();
    const body = JSON.stringify({ id: 'e', text: 'naïve ☃ 😀' });
    const headers = signer([{ secret, expiresAt: null }])('e', now, body);
    expect(new StandardWebhook(secret).verify(body, { ...headers })).toEqual({ id: 'e', text: 'naïve ☃ 😀' });
  });

  it('leaves out a replaced secret once its overlap has passed', () => {
    const sign = signer([
      { secret: 'whsec_QkJCQg==', expiresAt: null },
      { secret: 'whsec_QUFBQQ==', expiresAt: later(1000).toISOString() },
    ]);
    expect(sign('e', later(999), '{}')['webhook-signature'].split(' ')).toHaveLength(2);
    expect(sign('e', later(1000), '{}')['webhook-signature'].split(' ')).toHaveLength(1);
  });
});
