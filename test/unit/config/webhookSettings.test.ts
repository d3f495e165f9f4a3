import * as E from 'fp-ts/Either';
import { loadConfig } from '#src/config';

/** The webhook settings: their defaults, and a clear refusal of a bad value. */
describe('webhook settings', () => {
  it('default to delivering, 10 s timeouts, retries up to 10 min, disabling after 3 days, no private networks', () => {
    const config = loadConfig({});
    expect(E.isRight(config) && config.right).toMatchObject({
      webhooks: true,
      webhookTimeoutMs: 10_000,
      webhookRetryMaxMs: 600_000,
      webhookDisableAfterMs: 259_200_000,
      webhookAllowPrivateNetworks: false,
    });
  });

  it('take what is set', () => {
    const config = loadConfig({
      WEBHOOKS: 'off',
      WEBHOOK_TIMEOUT_MS: '2500',
      WEBHOOK_RETRY_MAX_MS: '50',
      WEBHOOK_DISABLE_AFTER_MS: '60000',
      WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
    });
    expect(E.isRight(config) && config.right).toMatchObject({
      webhooks: false,
      webhookTimeoutMs: 2500,
      webhookRetryMaxMs: 50,
      webhookDisableAfterMs: 60_000,
      webhookAllowPrivateNetworks: true,
    });
  });

  it('refuse bad values, each named', () => {
    const config = loadConfig({
      WEBHOOKS: 'yes',
      WEBHOOK_TIMEOUT_MS: '10s',
      WEBHOOK_RETRY_MAX_MS: '0',
      WEBHOOK_DISABLE_AFTER_MS: '999',
      WEBHOOK_ALLOW_PRIVATE_NETWORKS: '1',
    });
    expect(E.isLeft(config) && config.left).toEqual([
      'WEBHOOKS must be one of on, off, got "yes"',
      'WEBHOOK_TIMEOUT_MS must be a whole number from 100 to 120000, got "10s"',
      'WEBHOOK_RETRY_MAX_MS must be a whole number from 10 to 86400000, got "0"',
      'WEBHOOK_DISABLE_AFTER_MS must be a whole number from 1000 to 31536000000, got "999"',
      'WEBHOOK_ALLOW_PRIVATE_NETWORKS must be one of true, false, got "1"',
    ]);
  });
});
