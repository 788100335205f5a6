/**
 * The addresses a webhook job refuses unless `allowPrivate`: every IPv4 and
 * IPv6 range that reaches the operator's own network or this machine, or
 * that carries an IPv4 address inside an IPv6 one (so a private IPv4 address
 * cannot be reached by writing it another way). Public addresses pass.
 */
import { describe, expect, it } from 'vitest';
import { checkTarget, isPrivateAddress } from '../../src/webhook/targets.js';

describe('isPrivateAddress', () => {
  it.each([
    ['loopback', '127.0.0.1'],
    ['a private network', '10.1.2.3'],
    ['the cloud metadata address', '169.254.169.254'],
    ['IPv6 loopback', '::1'],
    ['IPv4-mapped, dotted', '::ffff:127.0.0.1'],
    ['IPv4-mapped, in hex', '::ffff:7f00:1'],
    ['IPv4-translated (SIIT)', '::ffff:0:7f00:1'],
    ['IPv4-translated, dotted', '::ffff:0:10.0.0.1'],
    ['NAT64', '64:ff9b::7f00:1'],
    ['Teredo', '2001:0:4136:e378:8000:63bf:3fff:fdd2'],
    ['6to4', '2002:7f00:1::1'],
    ['IPv6 documentation', '2001:db8::1'],
    ['IPv6 documentation (2024)', '3fff::1'],
    ['benchmarking', '2001:2::1'],
    ['ORCHID', '2001:10::1'],
    ['SRv6 segment ids', '5f00::1'],
    ['unique-local', 'fd12:3456::1'],
    ['site-local', 'fec0::1'],
    ['link-local', 'fe80::1'],
    ['multicast', 'ff02::1'],
  ])('refuses %s (%s)', (_what, address) => {
    expect(isPrivateAddress(address)).toBe(true);
  });

  it.each([['8.8.8.8'], ['::ffff:8.8.8.8'], ['2606:4700:4700::1111'], ['2a00:1450:4001:80b::200e']])('lets a public address through (%s)', (address) => {
    expect(isPrivateAddress(address)).toBe(false);
  });

  it('refuses localhost written as a fully qualified name, as it refuses localhost', () => {
    for (const url of ['http://localhost./x', 'http://api.localhost./x', 'http://localhost/x']) expect(() => checkTarget(new URL(url), undefined, false)).toThrow(/private or loopback/);
    expect(() => checkTarget(new URL('http://example.com./x'), undefined, false)).not.toThrow();
  });
});
