import { addressRefusal, parseWebhookUrl } from '#src/webhooks/addresses';

describe('addressRefusal: only public unicast addresses may be reached', () => {
  it.each([
    ['127.0.0.1', /loopback/],
    ['127.255.0.9', /loopback/],
    ['::1', /loopback/],
    ['10.1.2.3', /private/],
    ['172.16.0.1', /private/],
    ['192.168.1.1', /private/],
    ['fc00::1', /unique-local/],
    ['169.254.1.1', /link-local/],
    ['fe80::1', /link-local/],
    ['169.254.169.254', /cloud metadata/],
    ['fd00:ec2::254', /cloud metadata/],
    ['100.100.100.200', /cloud metadata/],
    ['100.64.0.1', /carrier-grade NAT/],
    ['0.0.0.0', /unspecified/],
    ['::', /unspecified/],
    ['224.0.0.1', /multicast/],
    ['ff02::1', /multicast/],
    ['255.255.255.255', /broadcast/],
    ['240.0.0.1', /reserved/],
    // IPv4 inside IPv6: the mapped form is judged as IPv4; NAT64 and 6to4 can carry any IPv4 address.
    ['::ffff:127.0.0.1', /127\.0\.0\.1 is a loopback/],
    ['::ffff:10.0.0.1', /10\.0\.0\.1 is a private/],
    ['64:ff9b::7f00:1', /rfc6052/],
    ['2002:7f00:1::', /6to4/],
    // The whole ::/96 (IPv4-compatible) and every other form that carries an IPv4 address is judged by it.
    ['::7f00:1', /embeds 127\.0\.0\.1 .*loopback/],
    ['::127.0.0.1', /127\.0\.0\.1 is a loopback/],
    ['::a9fe:a9fe', /embeds 169\.254\.169\.254 .*cloud metadata/],
    ['::a00:1', /embeds 10\.0\.0\.1 .*private/],
    ['::c0a8:1', /embeds 192\.168\.0\.1 .*private/],
    ['::ffff:0:7f00:1', /rfc6145|embeds 127\.0\.0\.1/],
    ['fe80::5efe:a00:1', /link-local|embeds 10\.0\.0\.1/],
    ['2606:4700::5efe:a00:1', /embeds 10\.0\.0\.1 \(ISATAP\)/],
  ])('refuses %s', (address, reason) => {
    expect(addressRefusal(address)).toMatch(reason);
  });

  it.each(['8.8.8.8', '1.1.1.1', '93.184.215.14', '2606:4700:4700::1111', '::ffff:8.8.8.8'])('allows %s', (address) => {
    expect(addressRefusal(address)).toBeNull();
  });
});

describe('parseWebhookUrl', () => {
  it('takes http and https URLs, with the host to resolve or the literal address to check', () => {
    expect(parseWebhookUrl('https://hooks.example.com/in?x=1')).toMatchObject({ ok: true, host: 'hooks.example.com', literal: false });
    expect(parseWebhookUrl('http://[::1]:8080/x')).toMatchObject({ ok: true, host: '::1', literal: true });
  });

  it.each([
    // The URL parser normalises every spelling of an IPv4 address, so none slips past the check as a name.
    ['http://2130706433/', '127.0.0.1'],
    ['http://0x7f.1/', '127.0.0.1'],
    ['http://0177.0.0.1/', '127.0.0.1'],
    ['http://[::ffff:7f00:1]/', '::ffff:7f00:1'],
  ])('reads %s as the literal %s', (raw, host) => {
    expect(parseWebhookUrl(raw)).toMatchObject({ ok: true, host, literal: true });
  });

  it.each([
    ['ftp://example.com/', /http or https, not ftp/],
    ['file:///etc/passwd', /http or https, not file/],
    ['example.com/hook', /absolute URL/],
    ['https://user:secret@example.com/', /user name or password/],
    ['https://example.com/#x', /fragment/],
  ])('refuses %s', (raw, problem) => {
    const parsed = parseWebhookUrl(raw);
    expect(parsed.ok).toBe(false);
    if (!parsed.ok) expect(parsed.problem).toMatch(problem);
  });

  it('refuses a URL longer than 2048 characters', () => {
    expect(parseWebhookUrl(`https://example.com/${'a'.repeat(2048)}`)).toEqual({ ok: false, problem: 'must be at most 2048 characters' });
  });
});
