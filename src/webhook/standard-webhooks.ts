/**
 * Standard Webhooks (standardwebhooks.com) signatures, both ways:
 *
 *   webhook-id: msg_…                 the message's id, the same on every retry
 *   webhook-timestamp: 1733000000     seconds since the epoch, when signed
 *   webhook-signature: v1,<base64>    HMAC-SHA256 of `${id}.${timestamp}.${body}`
 *
 * under a secret `whsec_<base64 key>` (the key is the base64 part). A
 * receiver checks the signature over the exact body bytes and refuses a
 * timestamp too far from its own clock, so a captured delivery cannot be
 * replayed later. Several signatures may be sent, space-separated, while a
 * secret is being rotated: any one matching is enough.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { ValidationError } from '../errors.js';

/** How far a webhook's timestamp may be from the receiver's clock, ms. */
export const DEFAULT_TOLERANCE_MS = 5 * 60 * 1000;

/** The HMAC key of a `whsec_…` secret (a secret without the prefix is taken as base64 as it is). */
export function secretKey(secret: string): Buffer {
  const key = Buffer.from(secret.replace(/^whsec_/, ''), 'base64');
  if (key.length < 16) throw new ValidationError('a Standard Webhooks secret is whsec_ followed by at least 16 bytes in base64');
  return key;
}

function sign(key: Buffer, id: string, timestamp: string, body: Buffer | string): Buffer {
  return createHmac('sha256', key).update(`${id}.${timestamp}.`).update(body).digest();
}

/** The three headers of a signed delivery. */
export function signatureHeaders(key: Buffer, id: string, timestampSeconds: number, body: string): Record<string, string> {
  const timestamp = String(timestampSeconds);
  return { 'webhook-id': id, 'webhook-timestamp': timestamp, 'webhook-signature': `v1,${sign(key, id, timestamp, body).toString('base64')}` };
}

export type Verdict = { ok: true; id: string } | { ok: false; why: string };

/** Checks a received delivery's headers against its exact body bytes. */
export function verify(key: Buffer, headers: Record<string, string | string[] | undefined>, body: Buffer, nowMs: number, toleranceMs = DEFAULT_TOLERANCE_MS): Verdict {
  const one = (name: string) => {
    const v = headers[name];
    return typeof v === 'string' ? v : undefined;
  };
  const id = one('webhook-id');
  const timestamp = one('webhook-timestamp');
  const signatures = one('webhook-signature');
  if (!id || !timestamp || !signatures) return { ok: false, why: 'webhook-id, webhook-timestamp and webhook-signature are required' };
  if (!/^\d{1,12}$/.test(timestamp)) return { ok: false, why: 'webhook-timestamp is not seconds since the epoch' };
  if (Math.abs(Number(timestamp) * 1000 - nowMs) > toleranceMs) return { ok: false, why: `webhook-timestamp is more than ${toleranceMs / 1000} s from this server's clock` };
  const expected = sign(key, id, timestamp, body);
  for (const entry of signatures.split(' ')) {
    const [version, value] = entry.split(',', 2);
    if (version !== 'v1' || !value) continue;
    const given = Buffer.from(value, 'base64');
    if (given.length === expected.length && timingSafeEqual(given, expected)) return { ok: true, id };
  }
  return { ok: false, why: 'no v1 signature in webhook-signature matches the body' };
}
