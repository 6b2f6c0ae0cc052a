import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isBlockedAddress, isBlockedHostname } from '../../../infra/http/addressPolicy.ts';
import { createOutboundHttp, OutboundRequestError } from '../../../infra/http/outboundHttp.ts';

describe('isBlockedAddress', () => {
  it.each([
    '127.0.0.1',
    '127.255.255.254',
    '0.0.0.0',
    '10.0.0.1',
    '172.16.0.1',
    '172.31.255.255',
    '192.168.0.1',
    '169.254.169.254',
    '100.64.0.1',
    '224.0.0.1',
    '255.255.255.255',
    '::',
    '::1',
    '[::1]',
    'fe80::1',
    'fc00::1',
    'fd00:ec2::254',
    'ff02::1',
    '::ffff:127.0.0.1',
    '::ffff:7f00:1',
    '::ffff:169.254.169.254',
    '64:ff9b::a9fe:a9fe',
    '2002:7f00:1::',
    // NAT64 local-use prefix (RFC 8215) carrying 127.0.0.1, Teredo (2001::/32, which tunnels to an
    // address it hides), SIIT-translated IPv4, benchmarking, ORCHID and the new documentation range.
    '64:ff9b:1::7f00:1',
    '[64:ff9b:1::7f00:1]',
    '64:ff9b:1:ffff::1',
    '2001:0:4136:e378:8000:63bf:3fff:fdd2',
    '2001::1',
    '::ffff:0:7f00:1',
    '::ffff:0:127.0.0.1',
    '2001:2::1',
    '2001:10::1',
    '2001:20::1',
    '3fff::1',
    'not-an-ip',
  ])('blocks %s', (address) => {
    expect(isBlockedAddress(address)).toBe(true);
  });

  it.each(['93.184.216.34', '8.8.8.8', '172.32.0.1', '192.169.0.1', '2606:4700:4700::1111', '::ffff:8.8.8.8', '2002:0808:0808::', '2001:4860:4860::8888', '64:ff9b::808:808'])('allows %s', (address) => {
    expect(isBlockedAddress(address)).toBe(false);
  });

  it('blocks names that mean this host or a metadata service', () => {
    for (const name of ['localhost', 'LOCALHOST.', 'api.localhost', 'metadata.google.internal', 'metadata', 'whatever.internal']) {
      expect(isBlockedHostname(name), name).toBe(true);
    }
    expect(isBlockedHostname('hooks.example.com')).toBe(false);
  });
});

describe('outbound HTTP guard', () => {
  let server: http.Server;
  let port = 0;
  const hits: string[] = [];
  beforeAll(async () => {
    server = http.createServer((request, response) => {
      hits.push(request.url ?? '');
      if (request.url === '/redirect') response.writeHead(302, { location: `http://127.0.0.1:${port}/target` }).end();
      else response.writeHead(200).end('fine');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  const resolveTo = (address: string) => async () => [{ address, family: address.includes(':') ? 6 : 4 }];

  it('refuses literal private addresses before connecting', async () => {
    const guarded = createOutboundHttp({ allowPrivate: false });
    await expect(guarded.send({ url: `http://127.0.0.1:${port}/x`, timeoutMs: 1_000 })).rejects.toMatchObject({ code: 'BLOCKED_ADDRESS' });
    await expect(guarded.send({ url: 'http://[::1]/x', timeoutMs: 1_000 })).rejects.toBeInstanceOf(OutboundRequestError);
    await expect(guarded.checkUrl('http://169.254.169.254/latest')).rejects.toMatchObject({ code: 'BLOCKED_ADDRESS' });
    await expect(guarded.checkUrl('file:///etc/passwd')).rejects.toMatchObject({ code: 'INVALID_URL' });
    await expect(guarded.checkUrl('http://user:pass@example.com/')).rejects.toMatchObject({ code: 'INVALID_URL' });
    expect(hits).toEqual([]);
    guarded.close();
  });

  it('refuses a public-looking name that resolves to a private address, at check and at connect', async () => {
    const guarded = createOutboundHttp({ allowPrivate: false, resolve: resolveTo('127.0.0.1') });
    await expect(guarded.checkUrl(`http://rebind.example.com:${port}/x`)).rejects.toMatchObject({ code: 'BLOCKED_ADDRESS' });
    await expect(guarded.send({ url: `http://rebind.example.com:${port}/x`, timeoutMs: 1_000 })).rejects.toMatchObject({ code: 'BLOCKED_ADDRESS' });
    const mapped = createOutboundHttp({ allowPrivate: false, resolve: resolveTo('::ffff:10.0.0.5') });
    await expect(mapped.send({ url: 'http://mapped.example.com/x', timeoutMs: 1_000 })).rejects.toMatchObject({ code: 'BLOCKED_ADDRESS' });
    expect(hits).toEqual([]);
    guarded.close();
    mapped.close();
  });

  it('never follows a redirect: the 3xx comes back as is', async () => {
    const open = createOutboundHttp({ allowPrivate: true });
    const response = await open.send({ url: `http://127.0.0.1:${port}/redirect`, method: 'POST', body: '{}', timeoutMs: 1_000 });
    expect(response.status).toBe(302);
    expect(hits).toEqual(['/redirect']);
    open.close();
  });

  it('gives up after the timeout', async () => {
    const silent = http.createServer(() => undefined);
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', () => resolve()));
    const open = createOutboundHttp({ allowPrivate: true });
    const started = Date.now();
    await expect(open.send({ url: `http://127.0.0.1:${(silent.address() as AddressInfo).port}/`, timeoutMs: 200 })).rejects.toMatchObject({ code: 'TIMEOUT' });
    expect(Date.now() - started).toBeLessThan(2_000);
    open.close();
    silent.closeAllConnections();
    await new Promise<void>((resolve) => silent.close(() => resolve()));
  });
});
