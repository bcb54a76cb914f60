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
