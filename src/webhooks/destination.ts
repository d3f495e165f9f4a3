import { lookup, promises as dns, type LookupAddress, type LookupOptions } from 'node:dns';
import type { LookupFunction } from 'node:net';
import { addressRefusal, parseWebhookUrl } from './addresses';

/**
 * Where a webhook may send, checked twice: when it is registered (a clear 400) and at every
 * connection (DNS can change after registration). At connection time the check is the resolver
 * the socket itself uses, so the address checked is the address connected to: a name that
 * resolves to a public address for the check and a private one for the connection cannot slip
 * through. `allowPrivateNetworks` (WEBHOOK_ALLOW_PRIVATE_NETWORKS) lifts the address rules.
 */
export interface DestinationPolicy {
  allowPrivateNetworks: boolean;
}

/** A connection refused by the address rules; its message says which address and why. */
export class RefusedDestination extends Error {
  override readonly name = 'RefusedDestination';
  readonly code = 'EWEBHOOKREFUSED';
}

export type Checked = { ok: true; url: URL } | { ok: false; problem: string };

/** For registration: the URL's form, then every address its host resolves to. */
export const checkDestination = async (raw: string, policy: DestinationPolicy): Promise<Checked> => {
  const parsed = parseWebhookUrl(raw);
  if (!parsed.ok) return parsed;
  if (policy.allowPrivateNetworks) return { ok: true, url: parsed.url };
  const addresses = parsed.literal
    ? [parsed.host]
    : await dns.lookup(parsed.host, { all: true, verbatim: true }).then(
        (found) => found.map((a) => a.address),
        (error: NodeJS.ErrnoException) => error,
      );
  if (addresses instanceof Error) return { ok: false, problem: `host ${parsed.host} does not resolve (${addresses.code ?? 'DNS error'})` };
  for (const address of addresses) {
    const refusal = addressRefusal(address);
    if (refusal) return { ok: false, problem: refusalMessage(parsed.host, address, refusal) };
  }
  return { ok: true, url: parsed.url };
};

const refusalMessage = (host: string, address: string, refusal: string) =>
  `${host === address ? '' : `${host} resolves to ${address}: `}${refusal}, which webhooks may not reach (WEBHOOK_ALLOW_PRIVATE_NETWORKS=true allows it)`;

/** The refusal of a literal address in a URL, which no resolver sees; null when it may be reached. */
export const literalRefusal = (host: string, policy: DestinationPolicy): string | null => {
  if (policy.allowPrivateNetworks) return null;
  const refusal = addressRefusal(host);
  return refusal && refusalMessage(host, host, refusal);
};

/**
 * The resolver for a delivery's socket: every address of the name is checked, and one refused
 * address refuses them all (a name that mixes public and private answers is not to be trusted).
 */
export const checkedLookup =
  (policy: DestinationPolicy): LookupFunction =>
  (hostname, options: LookupOptions, callback) => {
    lookup(hostname, { ...options, all: true }, (error, found: LookupAddress[]) => {
      if (error) return callback(error, '', 0);
      if (!policy.allowPrivateNetworks) {
        for (const { address } of found) {
          const refusal = addressRefusal(address);
          if (refusal) return callback(new RefusedDestination(refusalMessage(hostname, address, refusal)), '', 0);
        }
      }
      if (options.all) return callback(null, found);
      const first = found[0];
      if (!first) return callback(Object.assign(new Error(`no address for ${hostname}`), { code: 'ENOTFOUND' }), '', 0);
      callback(null, first.address, first.family);
    });
  };
