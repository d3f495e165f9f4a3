import ipaddr from 'ipaddr.js';

/**
 * Which addresses a webhook may reach, and which URLs it may have: pure, so every rule is tested
 * without a network. A webhook is a request the service makes on a client's behalf, so without
 * these rules it would let any API key probe the service's own network (SSRF).
 */

/** Cloud instance-metadata endpoints, named in refusals: they are inside the ranges refused anyway. */
const METADATA = new Set(['169.254.169.254', 'fd00:ec2::254', '100.100.100.200']);

/**
 * Why an address may not be reached, or null when it may. Only public unicast passes: ipaddr.js
 * names every other range (loopback, private, link-local, unique-local, carrier-grade NAT,
 * multicast, unspecified, reserved, and the IPv6 ranges that embed an IPv4 address).
 */
export const addressRefusal = (address: string): string | null => {
  if (!ipaddr.isValid(address)) return `${address} is not an IP address`;
  // An IPv4-mapped IPv6 address (::ffff:127.0.0.1) is judged as the IPv4 address it is.
  const ip = ipaddr.process(address);
  const normal = ip.toString();
  if (METADATA.has(normal)) return `${normal} is a cloud metadata address`;
  const range = ip.range();
  return range === 'unicast' ? null : `${normal} is a ${RANGE_NAMES[range] ?? `${range} address`}`;
};

const RANGE_NAMES: Record<string, string> = {
  loopback: 'loopback address',
  private: 'private address',
  uniqueLocal: 'unique-local (private) address',
  linkLocal: 'link-local address',
  carrierGradeNat: 'carrier-grade NAT (shared) address',
  unspecified: 'unspecified address',
  multicast: 'multicast address',
  broadcast: 'broadcast address',
  reserved: 'reserved address',
};

export const MAX_URL_LENGTH = 2048;

export type ParsedUrl = { ok: true; url: URL; host: string; literal: boolean } | { ok: false; problem: string };

/**
 * A webhook URL: absolute http or https, no credentials (they would be shown by every read and
 * logged by proxies; the signature authenticates a delivery), no fragment. `host` is the name
 * to resolve, or the IP literal without brackets.
 */
export const parseWebhookUrl = (raw: string): ParsedUrl => {
  if (raw.length > MAX_URL_LENGTH) return { ok: false, problem: `must be at most ${MAX_URL_LENGTH} characters` };
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return { ok: false, problem: 'must be an absolute URL such as https://example.com/hooks' };
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    return { ok: false, problem: `must be http or https, not ${url.protocol.slice(0, -1)}` };
  if (url.username !== '' || url.password !== '')
    return { ok: false, problem: 'must not contain a user name or password; deliveries are authenticated by their signature' };
  if (url.hash !== '') return { ok: false, problem: 'must not have a fragment (#…)' };
  const host = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
  if (host === '') return { ok: false, problem: 'must name a host' };
  return { ok: true, url, host, literal: ipaddr.isValid(host) };
};
