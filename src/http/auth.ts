/**
 * Bearer tokens and webhook signatures, both compared in constant time:
 * each side is first hashed (tokens) or decoded to a fixed length
 * (signatures), so neither the length nor a shared prefix leaks through
 * timing.
 */
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import { isIP } from 'node:net';

const digest = (text: string): Buffer => createHash('sha256').update(text).digest();

/** A check of `Authorization: Bearer <token>` against the configured token. */
export function bearerCheck(token: string): (header: string | undefined) => boolean {
  const expected = digest(token);
  return (header) => {
    if (typeof header !== 'string') return false;
    const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
    // Hash even a malformed header: a missing token then costs what a wrong one does.
    return timingSafeEqual(digest(match?.[1] ?? ''), expected) && match !== null;
  };
}

/**
 * True when `signature` is the hex HMAC-SHA256 of `body` under `secret`.
 * Accepts the `sha256=` prefix providers put in front (GitHub and others).
 */
export function signatureMatches(secret: string, body: Buffer | string, signature: string | undefined): boolean {
  if (typeof signature !== 'string') return false;
  const hex = signature.trim().replace(/^sha256=/i, '');
  if (!/^[0-9a-f]{64}$/i.test(hex)) return false;
  const expected = createHmac('sha256', secret).update(body).digest(); // a string is hashed as UTF-8
  return timingSafeEqual(Buffer.from(hex, 'hex'), expected);
}

/** True for addresses only this machine can reach: 127.0.0.0/8, ::1, localhost. */
export function isLoopback(host: string): boolean {
  const h = host.replace(/^\[|\]$/g, '');
  if (h === 'localhost') return true;
  if (isIP(h) === 4) return h.startsWith('127.');
  if (isIP(h) === 6) return h === '::1' || h.toLowerCase() === '::ffff:127.0.0.1';
  return false;
}
