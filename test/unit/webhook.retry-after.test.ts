import { describe, expect, it } from 'vitest';
import { parseRetryAfter } from '../../src/index.js';

const NOW = Date.parse('2024-03-01T12:00:00Z');

describe('parseRetryAfter', () => {
  it.each([
    ['0', 0],
    ['1', 1000],
    ['120', 120_000],
    [' 30 ', 30_000],
  ])('reads delay-seconds %j as %d ms', (value, ms) => {
    expect(parseRetryAfter(value, NOW)).toBe(ms);
  });

  it('keeps an enormous number of seconds finite', () => {
    expect(parseRetryAfter('9'.repeat(400), NOW)).toBe(Number.MAX_SAFE_INTEGER);
  });

  it.each([
    ['IMF-fixdate', 'Fri, 01 Mar 2024 12:01:30 GMT'],
    ['RFC 850', 'Friday, 01-Mar-24 12:01:30 GMT'],
    ['asctime', 'Fri Mar  1 12:01:30 2024'],
  ])('reads a future %s date as the time until it', (_form, value) => {
    expect(parseRetryAfter(value, NOW)).toBe(90_000);
  });

  it('reads a date in the past as 0', () => {
    expect(parseRetryAfter('Wed, 21 Oct 2015 07:28:00 GMT', NOW)).toBe(0);
  });

  it('reads a two-digit RFC 850 year more than 50 years ahead as last century', () => {
    expect(parseRetryAfter('Sunday, 06-Nov-94 08:49:37 GMT', NOW)).toBe(0);
  });

  it.each([
    '',
    'soon',
    '-5',
    '1.5',
    '1e3',
    '0x10',
    '2024-03-01T12:01:30Z',
    'Fri, 31 Feb 2024 12:00:00 GMT',
    'Fri, 01 Mar 2024 25:00:00 GMT',
    'Fri, 01 Mar 2024 12:01:30 PST',
    'Fri, 01 Foo 2024 12:01:30 GMT',
  ])('gives undefined for %j', (value) => {
    expect(parseRetryAfter(value, NOW)).toBeUndefined();
  });
});
