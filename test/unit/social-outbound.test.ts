import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  checkUrl,
  checkUrlShape,
  isForbiddenAddress,
  OutboundError,
  type OutboundPolicy,
  outboundFetch,
} from '../../shared/social/outbound';

const cloud: OutboundPolicy = {
  runtime: 'aws',
  socialLogin: { allowedHosts: [], callTimeoutMs: 5000, redirectsPerMinute: 30 },
};
const local = (...allowedHosts: string[]): OutboundPolicy => ({
  runtime: 'local',
  socialLogin: { allowedHosts, callTimeoutMs: 5000, redirectsPerMinute: 30 },
});

describe('isForbiddenAddress', () => {
  it.each([
    '127.0.0.1',
    '10.1.2.3',
    '172.16.0.1',
    '192.168.1.1',
    '169.254.169.254',
    '100.64.0.1',
    '0.0.0.0',
    '224.0.0.1',
    '::1',
    '::',
    'fd00:ec2::254',
    'fe80::1',
    '::ffff:127.0.0.1',
    '::ffff:169.254.169.254',
    'not-an-address',
  ])('refuses %s', (address) => {
    expect(isForbiddenAddress(address)).toBe(true);
  });

  it.each(['93.184.216.34', '8.8.8.8', '2606:4700:4700::1111'])('lets %s through', (address) => {
    expect(isForbiddenAddress(address)).toBe(false);
  });
});

describe('isForbiddenAddress judges an IPv6 address that carries an IPv4 address by the address it carries', () => {
  // [address, what it is, forbidden]
  const table: [string, string, boolean][] = [
    ['::7f00:1', 'IPv4-compatible 127.0.0.1', true],
    ['::127.0.0.1', 'IPv4-compatible 127.0.0.1, dotted', true],
    ['::a9fe:a9fe', 'IPv4-compatible 169.254.169.254', true],
    ['::a00:1', 'IPv4-compatible 10.0.0.1', true],
    ['::808:808', 'IPv4-compatible 8.8.8.8', false],
    ['::ffff:7f00:1', 'IPv4-mapped 127.0.0.1, hexadecimal', true],
    ['::ffff:a9fe:a9fe', 'IPv4-mapped 169.254.169.254', true],
    ['::ffff:808:808', 'IPv4-mapped 8.8.8.8', false],
    ['::ffff:0:7f00:1', 'SIIT 127.0.0.1', true],
    ['::ffff:0:c0a8:101', 'SIIT 192.168.1.1', true],
    ['::ffff:0:808:808', 'SIIT 8.8.8.8', false],
    ['2002:7f00:1::', '6to4 of 127.0.0.1', true],
    ['2002:a9fe:a9fe::1', '6to4 of 169.254.169.254', true],
    ['2002:a00:1:1::1', '6to4 of 10.0.0.1', true],
    ['2002:808:808::1', '6to4 of 8.8.8.8', false],
    ['64:ff9b::7f00:1', 'NAT64 of 127.0.0.1', true],
    ['64:ff9b::a9fe:a9fe', 'NAT64 of 169.254.169.254', true],
    ['64:ff9b::808:808', 'NAT64 of 8.8.8.8', false],
    ['64:ff9b:1::808:808', 'NAT64 local-use prefix', true],
    ['2001:0:7f00:1::1', 'Teredo with server 127.0.0.1', true],
    ['2001:0:808:808:0:0:80ff:fffe', 'Teredo with client 127.0.0.1 (inverted)', true],
    ['2001:0:808:808:0:0:f5ff:fffe', 'Teredo with client 10.0.0.1 (inverted)', true],
    ['2001:0:808:808:0:0:f7f7:f7f7', 'Teredo with server and client 8.8.8.8', false],
    ['2001:db8::1', 'documentation', true],
    ['100::1', 'discard', true],
    ['fec0::1', 'deprecated site-local', true],
    ['255.255.255.255', 'broadcast', true],
    ['198.18.0.1', 'benchmarking', true],
  ];
  it.each(table)('%s (%s): forbidden %s', (address, _what, forbidden) => {
    expect(isForbiddenAddress(address)).toBe(forbidden);
  });
});

describe('checkUrlShape', () => {
  it('wants https in the cloud, even for an allowlisted host', () => {
    const allowlisted: OutboundPolicy = {
      runtime: 'aws',
      socialLogin: { allowedHosts: ['127.0.0.1'], callTimeoutMs: 5000, redirectsPerMinute: 30 },
    };
    expect(() => checkUrlShape('http://127.0.0.1/x', allowlisted)).toThrow('must use https');
    expect(() => checkUrlShape('http://93.184.216.34/x', cloud)).toThrow('must use https');
  });

  it('lets http reach an allowlisted host locally, and only that host and port', () => {
    expect(checkUrlShape('http://127.0.0.1:8080/x', local('127.0.0.1:8080')).host).toBe('127.0.0.1:8080');
    expect(() => checkUrlShape('http://127.0.0.1:8081/x', local('127.0.0.1:8080'))).toThrow(OutboundError);
  });

  it('refuses credentials, non-URLs and local names', () => {
    expect(() => checkUrlShape('https://a:b@93.184.216.34/', cloud)).toThrow('credentials');
    expect(() => checkUrlShape('not a url', cloud)).toThrow('not a valid URL');
    expect(() => checkUrlShape('https://metadata.google.internal/', cloud)).toThrow('local host');
  });

  it.each([
    'https://localhost/x',
    'https://localhost./x',
    'https://LOCALHOST./x',
    'https://a.localhost./x',
    'https://metadata.google.internal./x',
    'https://A.Internal/x',
  ])('refuses the local name of %s before any lookup', (url) => {
    expect(() => checkUrlShape(url, cloud)).toThrow('local host');
  });

  it.each(['https://[::7f00:1]/x', 'https://[2002:7f00:1::]/x', 'https://[::ffff:0:7f00:1]/x'])(
    'refuses the literal %s, which carries 127.0.0.1',
    (url) => {
      expect(() => checkUrlShape(url, cloud)).toThrow('loopback');
    },
  );
});

describe('checkUrl', () => {
  it('refuses a host that does not resolve', async () => {
    await expect(checkUrl('https://no-such-host.invalid/x', cloud)).rejects.toThrow('does not resolve');
  });

  it('refuses a name under .localhost', async () => {
    await expect(checkUrl('https://localtest.localhost/x', cloud)).rejects.toThrow(OutboundError);
  });
});

describe('outboundFetch', () => {
  let port = 0;
  const server = createServer((req, res) => {
    if (req.url === '/redirect') return res.writeHead(302, { location: '/json' }).end();
    if (req.url === '/big') return res.end('x'.repeat(600 * 1024));
    res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
  });
  beforeAll(async () => {
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('reaches an allowlisted local host', async () => {
    const response = await outboundFetch(`http://127.0.0.1:${port}/json`, local(`127.0.0.1:${port}`));
    expect(response).toMatchObject({ status: 200, text: '{"ok":true}' });
  });

  it('refuses the same host without the allowlist, before connecting', async () => {
    await expect(outboundFetch(`https://127.0.0.1:${port}/json`, local())).rejects.toThrow('loopback');
  });

  it('does not follow redirects', async () => {
    await expect(
      outboundFetch(`http://127.0.0.1:${port}/redirect`, local(`127.0.0.1:${port}`)),
    ).rejects.toThrow('redirect');
  });

  it('stops reading at the size cap', async () => {
    await expect(outboundFetch(`http://127.0.0.1:${port}/big`, local(`127.0.0.1:${port}`))).rejects.toThrow(
      'size limit',
    );
  });
});
