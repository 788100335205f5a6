/**
 * Where the webhook job may send: the operator decides, never the payload.
 *
 * - `allowTargets`: URL prefixes (`https://client.example.com/hooks/`). A
 *   payload's URL must have the same origin as one of them and a path under
 *   its path, segment by segment. Absent: any URL passes this check.
 * - Addresses only the operator's own network reaches (loopback, private,
 *   link-local, unique-local, carrier-grade NAT, multicast, unspecified) are
 *   refused unless `allowPrivate`: otherwise anyone who can enqueue a
 *   webhook job could make the server fetch its internal pages and read the
 *   answer back in the job's result. The address is checked where the
 *   connection is made (the resolver's answer for a name, the literal for
 *   an IP), so a name that resolves to 127.0.0.1 later than it was checked
 *   is caught too.
 */
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { BlockList, isIP } from 'node:net';
import { UnrecoverableError, ValidationError } from '../errors.js';

export interface TargetPolicy {
  /** URL prefixes the job may send to; absent: any. */
  allowTargets?: readonly string[];
  /** Send to loopback and private addresses too. Default false. */
  allowPrivate?: boolean;
}

const PRIVATE = new BlockList();
for (const [net, bits] of [
  ['0.0.0.0', 8], ['10.0.0.0', 8], ['100.64.0.0', 10], ['127.0.0.0', 8], ['169.254.0.0', 16], ['172.16.0.0', 12],
  ['192.0.0.0', 24], ['192.0.2.0', 24], ['192.88.99.0', 24], ['192.168.0.0', 16], ['198.18.0.0', 15], ['198.51.100.0', 24],
  ['203.0.113.0', 24], ['224.0.0.0', 4], ['240.0.0.0', 4],
] as const) {
  PRIVATE.addSubnet(net, bits, 'ipv4');
}
// IPv6: unspecified, loopback and IPv4-compatible (::/96), IPv4-translated (::ffff:0:0:0/96, SIIT), NAT64 (which
// reaches IPv4 addresses, private ones too), discard-only, Teredo and 6to4 (an IPv4 address inside), benchmarking,
// ORCHID, documentation (2001:db8::/32, 3fff::/20), SRv6 segment ids, unique-local, site-local (deprecated, still
// routed inside some sites), link-local, multicast.
for (const [net, bits] of [
  ['::', 96], ['::ffff:0:0:0', 96], ['64:ff9b::', 96], ['64:ff9b:1::', 48], ['100::', 64], ['2001::', 32], ['2002::', 16], ['2001:2::', 48],
  ['2001:10::', 28], ['2001:db8::', 32], ['3fff::', 20], ['5f00::', 16], ['fc00::', 7], ['fec0::', 10], ['fe80::', 10], ['ff00::', 8],
] as const) {
  PRIVATE.addSubnet(net, bits, 'ipv6');
}

/** True for an address only the operator's own network (or this machine) reaches. */
export function isPrivateAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 0) return false;
  if (family === 6) {
    // An IPv4 address written as IPv6 (::ffff:127.0.0.1) is that IPv4 address.
    const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
    if (mapped) return PRIVATE.check(mapped[1]!, 'ipv4');
    return PRIVATE.check(address, 'ipv6');
  }
  return PRIVATE.check(address, 'ipv4');
}

/** The prefixes, checked once at definition: each an http(s) URL with no credentials, query or fragment. */
export function checkTargets(what: string, targets: readonly string[]): URL[] {
  // Empty: the job may send nowhere (a server whose operator named no target).
  if (!Array.isArray(targets)) throw new ValidationError(`${what} must be an array of URL prefixes`);
  return targets.map((t) => {
    let url: URL;
    try {
      url = new URL(t);
    } catch {
      throw new ValidationError(`${what}: ${JSON.stringify(String(t).slice(0, 200))} is not a URL`);
    }
    if ((url.protocol !== 'http:' && url.protocol !== 'https:') || url.username || url.password || url.search || url.hash) {
      throw new ValidationError(`${what}: ${t} must be an http(s) URL prefix without credentials, query or fragment`);
    }
    return url;
  });
}

/**
 * The URL is under the prefix: the same origin, and the prefix's path, whole
 * segments of it (`/recv` takes `/recv` and `/recv/…`, not `/recvX`). Paths a
 * receiver may read as another one are refused outright: an encoded `/` or
 * `\\` (`/recv/..%2fadmin`), an encoded `%` (decoded twice, `%252e%252e` is
 * `..`), and a dot segment with parameters (`/recv/..;/admin`, which Java
 * servers resolve as `..`).
 */
export function isUnder(url: URL, prefix: URL): boolean {
  if (prefix.origin !== url.origin) return false;
  if (/%2f|%5c|%25/i.test(url.pathname) || /\/(?:\.|%2e)+;/i.test(url.pathname)) return false;
  const path = prefix.pathname;
  return url.pathname === path || url.pathname.startsWith(path.endsWith('/') ? path : `${path}/`);
}

/** Whether the URL names a loopback or private host: a literal private address, or localhost. */
export function isPrivateTarget(url: URL): boolean {
  // A fully qualified name (`localhost.`) is the same name.
  const host = url.hostname.replace(/^\[|\]$/g, '').replace(/\.$/, '');
  return isPrivateAddress(host) || host === 'localhost' || host.endsWith('.localhost');
}

/** Refuses (UnrecoverableError) a URL outside the prefixes, or a literal private address when those are not allowed. */
export function checkTarget(url: URL, allowed: readonly URL[] | undefined, allowPrivate: boolean): void {
  if (allowed && !allowed.some((prefix) => isUnder(url, prefix))) {
    throw new UnrecoverableError(`webhook target ${url.origin}${url.pathname} is not one this job may send to (allowTargets)`);
  }
  if (!allowPrivate && isPrivateTarget(url)) {
    throw new UnrecoverableError(`webhook target ${url.origin} is a private or loopback address: allowPrivate lets the job send there (litejobs serve --allow-private-targets)`);
  }
}

/** The error a connection to a private address fails with (the resolver answered one). */
export class PrivateAddressError extends Error {
  readonly code = 'LJ_PRIVATE_ADDRESS';
}

type LookupCallback = (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/** A `lookup` for the connection: resolves the name and refuses every answer that is a private address. */
export function publicLookup(hostname: string, options: { all?: boolean }, callback: LookupCallback): void {
  dnsLookup(hostname, { ...options, all: true }, (err, addresses) => {
    if (err) return callback(err, []);
    const usable = addresses.filter((a) => !isPrivateAddress(a.address));
    if (usable.length === 0) return callback(new PrivateAddressError(`${hostname} resolves to a private or loopback address (${addresses.map((a) => a.address).join(', ')})`), []);
    if (options.all) return callback(null, usable);
    return callback(null, usable[0]!.address, usable[0]!.family);
  });
}
