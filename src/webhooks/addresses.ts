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
 * multicast, unspecified, reserved, and the IPv6 ranges that embed an IPv4 address); an IPv6
 * address that carries an IPv4 address is also judged by that address. The same rule runs at
 * registration and on every connection (destination.ts).
 */
export const addressRefusal = (address: string): string | null => {
  if (!ipaddr.isValid(address)) return `${address} is not an IP address`;
  // An IPv4-mapped IPv6 address (::ffff:127.0.0.1) is judged as the IPv4 address it is.
  const ip = ipaddr.process(address);
  const normal = ip.toString();
  if (METADATA.has(normal)) return `${normal} is a cloud metadata address`;
  const range = ip.range();
  if (range !== 'unicast') return `${normal} is a ${RANGE_NAMES[range] ?? `${range} address`}`;
  // So is every other IPv6 form that carries an IPv4 address (the whole ::/96 among them, which
  // ipaddr.js calls unicast): a dual stack or a gateway would reach the IPv4 address.
  if (ip.kind() === 'ipv6') {
    for (const [form, v4] of embeddedIPv4(ip as ipaddr.IPv6)) {
      const refusal = addressRefusal(v4.toString());
      if (refusal) return `${normal} embeds ${v4.toString()} (${form}): ${refusal}`;
    }
  }
  return null;
};

/** The IPv4 addresses an IPv6 address carries, by the form that carries them. */
const embeddedIPv4 = (ip: ipaddr.IPv6): Array<[string, ipaddr.IPv4]> => {
  const p = ip.parts;
  const v4 = (high: number, low: number) => new ipaddr.IPv4([high >> 8, high & 0xff, low >> 8, low & 0xff]);
  const zero = (from: number, to: number) => p.slice(from, to).every((x) => x === 0);
  const found: Array<[string, ipaddr.IPv4]> = [];
  // ::a.b.c.d (IPv4-compatible, the whole ::/96) and ::ffff:0:a.b.c.d (IPv4-translated)
  if (zero(0, 6) || (zero(0, 4) && p[4] === 0xffff && p[5] === 0)) found.push(['IPv4-compatible', v4(p[6]!, p[7]!)]);
  // 64:ff9b::a.b.c.d and 64:ff9b:1::/48 (NAT64)
  if (p[0] === 0x64 && p[1] === 0xff9b) found.push(['NAT64', v4(p[6]!, p[7]!)]);
  // 2002:AABB:CCDD::/48 (6to4)
  if (p[0] === 0x2002) found.push(['6to4', v4(p[1]!, p[2]!)]);
  // 2001:0::/32 (Teredo): the server's address, and the client's, inverted
  if (p[0] === 0x2001 && p[1] === 0)
    found.push(['Teredo server', v4(p[2]!, p[3]!)], ['Teredo client', v4(~p[6]! & 0xffff, ~p[7]! & 0xffff)]);
  // an ISATAP interface identifier: …:0:5efe:a.b.c.d or …:200:5efe:a.b.c.d
  if ((p[4] === 0 || p[4] === 0x200) && p[5] === 0x5efe) found.push(['ISATAP', v4(p[6]!, p[7]!)]);
  return found;
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
