import { describe, expect, it } from 'vitest';
import { parseWhere } from '../../src/store/where.js';

describe('parseWhere (the dashboard payload search)', () => {
  it('reads clauses with or without spaces around the operator, joined by and', () => {
    expect(parseWhere('payload.customer = 42')).toEqual([{ path: ['customer'], op: '=', value: 42 }]);
    expect(parseWhere('payload.a.b>=5 AND payload.plan ~ pro')).toEqual([
      { path: ['a', 'b'], op: '>=', value: 5 },
      { path: ['plan'], op: '~', value: 'pro' },
    ]);
    expect(parseWhere('payload.x="a b" and payload.y != null')).toEqual([
      { path: ['x'], op: '=', value: 'a b' },
      { path: ['y'], op: '!=', value: null },
    ]);
    expect(parseWhere('payload.ok = true and payload.n < -1.5e3')).toEqual([
      { path: ['ok'], op: '=', value: true },
      { path: ['n'], op: '<', value: -1500 },
    ]);
  });

  it('takes a bare word or a quoted string as text, and an operator character inside a value as text', () => {
    expect(parseWhere('payload.html ~ <b>')).toEqual([{ path: ['html'], op: '~', value: '<b>' }]);
    expect(parseWhere('payload.id = "42"')).toEqual([{ path: ['id'], op: '=', value: '42' }]);
    expect(parseWhere('payload.q = "say \\"hi\\""')).toEqual([{ path: ['q'], op: '=', value: 'say "hi"' }]);
  });

  it('is no search when blank', () => {
    expect(parseWhere('')).toEqual([]);
    expect(parseWhere('   ')).toEqual([]);
  });

  it.each([
    ['customer = 4', /not a payload field/],
    ['payload = 4', /not a payload field/],
    ['payload.a 5', /expected an operator/],
    ['payload.a =', /value is missing/],
    ['payload.a = 1 or payload.b = 2', /expected "and"/],
    ['payload.a = 1 and', /missing after "and"/],
    ['payload.a = "open', /not closed/],
    ['payload.t < true', /only be compared with = or !=/],
    ['payload.n ~ 5', /contains\) takes a string/],
    ['payload.a;drop = 1', /not a field name/],
    [`payload.a = ${'x'.repeat(1001)}`, /longer than 1000/],
    [Array.from({ length: 9 }, (_, i) => `payload.a${i} = 1`).join(' and '), /at most 8 clauses/],
  ])('refuses %j', (text, message) => {
    expect(() => parseWhere(text)).toThrow(message);
    try {
      parseWhere(text);
    } catch (err) {
      expect((err as { code: string }).code).toBe('LJ_ERR_VALIDATION');
    }
  });
});
