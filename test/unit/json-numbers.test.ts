import { describe, expect, it } from 'vitest';
import { changedNumber } from '../../src/lib/json-numbers.js';

describe('changedNumber', () => {
  it('finds the numbers a JavaScript number would change, and only those', () => {
    expect(changedNumber('{"n":12345678901234567891}')).toBe('12345678901234567891');
    expect(changedNumber('[1e999]')).toBe('1e999');
    expect(changedNumber('[-1e999]')).toBe('-1e999');
    expect(changedNumber('[1.00000000000000000001]')).toBe('1.00000000000000000001');
    // More than 15 significant digits with the dot among them.
    for (const n of ['123456789.123456789', '1234567.1234567891', '12345678901.2345678', '-123456789.123456789']) expect(changedNumber(`{"a":${n}}`)).toBe(n);
    // As many digits that a double keeps: fine.
    for (const n of ['123456789.1234567', '0.1234567890123456', '1234567890.12345']) expect([n, changedNumber(`[${n}]`)]).toEqual([n, null]);
    for (const fine of ['{"n":9007199254740991}', '[0.1, 1.0, 1.50e2, -0, 1e308, 1E-7, 100]', '{"s":"12345678901234567891 and 1e999 in a string"}', '{"s":"a\\"12345678901234567891"}', '"x"', '[]']) {
      expect([fine, changedNumber(fine)]).toEqual([fine, null]);
    }
  });
});
