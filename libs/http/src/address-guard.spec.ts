import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { CallbackAddressRefusedError, assertPublicHost, forbiddenAddressReason, guardedLookup, type Resolve } from './address-guard';

describe('forbiddenAddressReason', () => {
  it.each([
    ['127.0.0.1', 'loopback'],
    ['127.255.255.254', 'loopback'],
    ['10.0.0.1', 'private'],
    ['10.255.255.255', 'private'],
    ['172.16.0.1', 'private'],
    ['172.31.255.255', 'private'],
    ['192.168.1.10', 'private'],
    ['169.254.169.254', 'link-local'],
    ['169.254.0.1', 'link-local'],
    ['100.64.0.1', 'CGNAT'],
    ['100.127.255.255', 'CGNAT'],
    ['100.100.100.200', 'CGNAT'],
    ['0.0.0.0', 'this-network'],
    ['0.1.2.3', 'this-network'],
    ['168.63.129.16', 'metadata'],
    ['192.0.0.192', 'IETF'],
    ['192.0.2.1', 'documentation'],
    ['198.18.0.1', 'benchmarking'],
    ['224.0.0.1', 'multicast'],
    ['240.0.0.1', 'reserved'],
    ['255.255.255.255', 'reserved'],
  ])('refuses the IPv4 address %s (%s)', (address, reason) => {
    expect(forbiddenAddressReason(address)).toContain(reason);
  });

  it.each([
    ['::1', 'loopback'],
    ['[::1]', 'loopback'],
    ['0:0:0:0:0:0:0:1', 'loopback'],
    ['::', 'unspecified'],
    ['fe80::1', 'link-local'],
    ['fe80::1%eth0', 'link-local'],
    ['febf:ffff::1', 'link-local'],
    ['fc00::1', 'unique local'],
    ['fd12:3456:789a::1', 'unique local'],
    ['fd00:ec2::254', 'unique local'],
    ['ff02::1', 'multicast'],
    ['2001:db8::1', 'documentation'],
    ['fec0::1', 'site-local'],
    ['::127.0.0.1', 'IPv4-compatible'],
    ['::8.8.8.8', 'IPv4-compatible'],
    ['::2', 'IPv4-compatible'],
    ['64:ff9b:1::1', 'local-use NAT64'],
    ['100::1', 'discard-only'],
    ['2001::1', 'IETF'],
    ['3fff::1', 'documentation'],
  ])('refuses the IPv6 address %s (%s)', (address, reason) => {
    expect(forbiddenAddressReason(address)).toContain(reason);
  });

  it.each([
    ['::ffff:127.0.0.1', 'loopback'],
    ['::ffff:7f00:1', 'loopback'],
    ['0:0:0:0:0:ffff:c0a8:0101', 'private'],
    ['::ffff:10.0.0.1', 'private'],
    ['::FFFF:169.254.169.254', 'link-local'],
    ['::ffff:100.64.0.1', 'CGNAT'],
    ['::ffff:0:127.0.0.1', 'loopback'],
    ['64:ff9b::a00:1', 'private'],
    ['64:ff9b::127.0.0.1', 'loopback'],
    ['2002:7f00:1::1', 'loopback'],
    ['2002:c0a8:0101::1', 'private'],
    ['[::ffff:127.0.0.1]', 'loopback'],
    ['::ffff:0.0.0.0', 'this-network'],
    ['::ffff:0:0', 'this-network'],
    ['::ffff:192.168.0.1', 'private'],
    ['::ffff:172.16.0.1', 'private'],
    ['::ffff:224.0.0.1', 'multicast'],
    ['::ffff:168.63.129.16', 'metadata'],
    ['::ffff:0:169.254.169.254', 'link-local'],
    ['64:ff9b::169.254.169.254', 'link-local'],
    ['2002:a9fe:a9fe::', 'link-local'],
  ])('refuses %s, which embeds a forbidden IPv4 address (%s)', (address, reason) => {
    const refused = forbiddenAddressReason(address);
    expect(refused).toContain(reason);
  });

  it.each([
    ['::ffff:127.0.0.1', 'IPv4-mapped address of a loopback address'],
    ['::ffff:0:10.1.2.3', 'IPv4-translated address of a private address'],
    ['64:ff9b::100.64.0.1', 'NAT64 address of a shared address space (CGNAT)'],
    ['2002:7f00:1::1', '6to4 address of a loopback address'],
    ['0.0.0.0', 'this-network address'],
    ['::', 'unspecified address'],
  ])('names why %s is refused: %s', (address, reason) => {
    expect(forbiddenAddressReason(address)).toBe(reason);
  });

  it.each([
    '8.8.8.8',
    '1.1.1.1',
    '93.184.215.14',
    '172.15.255.255',
    '172.32.0.1',
    '192.169.0.1',
    '100.63.255.255',
    '100.128.0.1',
    '169.253.255.255',
    '11.0.0.1',
    '223.255.255.255',
    '2606:4700:4700::1111',
    '2001:4860:4860::8888',
    '2a00:1450:4001:80b::200e',
    '::ffff:8.8.8.8',
    '64:ff9b::808:808',
    '2002:0808:0808::1',
    '::ffff:0:8.8.8.8',
    '[2606:4700:4700::1111]',
  ])('allows the public address %s', (address) => {
    expect(forbiddenAddressReason(address)).toBeUndefined();
  });

  it.each(['example.org', '999.1.1.1', '1.2.3', '', 'fe80::zz', '1:2:3:4:5:6:7:8:9', '[1.2.3.4]', '1.2.3.4%eth0', '::ffff:1.2.3.256'])(
    'refuses %j, which is not an IP address',
    (text) => {
      expect(forbiddenAddressReason(text)).toBe('not an IP address');
    },
  );
});

describe('assertPublicHost', () => {
  const resolving =
    (table: Record<string, string[]>): Resolve =>
    async (hostname) =>
      (table[hostname] ?? []).map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));

  it('accepts a name whose addresses are all public', async () => {
    await expect(
      assertPublicHost('hooks.example.org', resolving({ 'hooks.example.org': ['93.184.215.14', '2606:2800:21f:cb07:6820:80da:af6b:8b2c'] })),
    ).resolves.toHaveLength(2);
  });

  it('refuses a name when any of its addresses is private', async () => {
    const resolve = resolving({ 'mixed.example.org': ['93.184.215.14', '10.0.0.7'] });
    await expect(assertPublicHost('mixed.example.org', resolve)).rejects.toThrow(CallbackAddressRefusedError);
  });

  it('refuses loopback and bracketed IPv6 literals without asking DNS', async () => {
    const resolve = jest.fn<ReturnType<Resolve>, Parameters<Resolve>>();
    await expect(assertPublicHost('127.0.0.1', resolve)).rejects.toThrow('loopback');
    await expect(assertPublicHost('[::ffff:7f00:1]', resolve)).rejects.toThrow('loopback');
    expect(resolve).not.toHaveBeenCalled();
  });

  it('refuses a name without addresses', async () => {
    await expect(assertPublicHost('nothing.example.org', resolving({}))).rejects.toThrow(CallbackAddressRefusedError);
  });
});

describe('guardedLookup', () => {
  let server: Server;
  let port: number;
  let requests = 0;

  beforeAll(async () => {
    server = createServer((_req, res) => {
      requests += 1;
      res.end('ok');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(() => new Promise((resolve) => server.close(resolve)));

  const get = (resolve: Resolve) =>
    new Promise<number | Error>((done) => {
      const req = request({ host: 'receiver.test', port, path: '/', lookup: guardedLookup(resolve), agent: false }, (res) => {
        res.resume();
        done(res.statusCode ?? 0);
      });
      req.on('error', done);
      req.end();
    });

  it('connects to the checked address only, and refuses a name re-pointed at loopback', async () => {
    const refusal = await get(async () => [{ address: '127.0.0.1', family: 4 }]);

    expect(refusal).toBeInstanceOf(CallbackAddressRefusedError);
    expect(requests).toBe(0);
  });

  it('hands a public address on to the socket unchanged', async () => {
    const seen: string[] = [];
    const lookup = guardedLookup(async () => [{ address: '93.184.215.14', family: 4 }]);
    await new Promise<void>((resolve) =>
      lookup('receiver.test', { all: true }, (error, addresses) => {
        expect(error).toBeNull();
        seen.push(...(addresses as { address: string }[]).map((entry) => entry.address));
        resolve();
      }),
    );
    expect(seen).toEqual(['93.184.215.14']);
  });
});
