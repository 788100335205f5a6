/**
 * W3C Trace Context as litejobs reads and writes it: the `traceparent` rules
 * of the spec (version, field count, all-zero ids), `tracestate` kept whole
 * or dropped, and a job's stored context read back without ever throwing.
 */
import { describe, expect, it } from 'vitest';
import { formatTraceparent, parseTraceparent, readStoredContext, storedContext } from '../../src/telemetry/trace-context.js';

const TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';
const SPAN = '00f067aa0ba902b7';

describe('traceparent', () => {
  it('reads a version 00 header, sampled or not, and writes it back the same', () => {
    for (const flags of ['01', '00']) {
      const value = `00-${TRACE}-${SPAN}-${flags}`;
      const parsed = parseTraceparent(value);
      expect(parsed).toEqual({ traceId: TRACE, spanId: SPAN, traceFlags: Number.parseInt(flags, 16) });
      expect(formatTraceparent(parsed!)).toBe(value);
    }
  });

  it('refuses what the spec calls invalid', () => {
    const invalid = [
      `ff-${TRACE}-${SPAN}-01`, // version ff
      `00-${TRACE}-${SPAN}-01-extra`, // version 00 has four fields
      `00-${'0'.repeat(32)}-${SPAN}-01`,
      `00-${TRACE}-${'0'.repeat(16)}-01`,
      `00-${TRACE.toUpperCase()}-${SPAN}-01`, // lower-case hex only
      `00-${TRACE.slice(1)}-${SPAN}-01`,
      'garbage',
      '',
      42,
      undefined,
      `00-${TRACE}-${SPAN}-01${' '.repeat(600)}`,
    ];
    for (const value of invalid) expect(parseTraceparent(value), String(value)).toBeUndefined();
  });

  it('reads a later version with fields of its own as its first four', () => {
    expect(parseTraceparent(`01-${TRACE}-${SPAN}-01-what-comes-next`)).toEqual({ traceId: TRACE, spanId: SPAN, traceFlags: 1 });
  });

  it('keeps tracestate whole, and drops one too long to be valid rather than cutting it', () => {
    expect(parseTraceparent(`00-${TRACE}-${SPAN}-01`, ' a=1,b=2 ')?.traceState).toBe('a=1,b=2');
    expect(parseTraceparent(`00-${TRACE}-${SPAN}-01`, 'x'.repeat(10_000))?.traceState).toBeUndefined();
    expect(parseTraceparent(`00-${TRACE}-${SPAN}-01`, ['a=1'])?.traceState).toBeUndefined();
  });
});

describe('a stored context', () => {
  it('round-trips through the JSON a job keeps', () => {
    const c = { traceId: TRACE, spanId: SPAN, traceFlags: 1, traceState: 'a=1' };
    const text = storedContext(c);
    expect(JSON.parse(text)).toEqual({ traceparent: `00-${TRACE}-${SPAN}-01`, tracestate: 'a=1' });
    expect(readStoredContext(text)).toEqual(c);
  });

  it('is undefined, never an exception, for a row without one or with anything else', () => {
    for (const text of [null, undefined, '', 'not json', 'null', '42', '{"traceparent":"x"}', '[]']) expect(readStoredContext(text)).toBeUndefined();
  });
});
