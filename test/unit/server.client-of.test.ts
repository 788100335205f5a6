/** The per-client connection bound counts an IPv4 address as itself and an IPv6 address by its /64, which one client holds whole. */
import { describe, expect, it } from 'vitest';
import { clientOf } from '../../src/http/server.js';

describe('clientOf', () => {
  it('an IPv4 address, written as IPv6 or not, is its own client', () => {
    expect([clientOf('10.1.2.3'), clientOf('::ffff:10.1.2.3'), clientOf('::FFFF:10.1.2.3')]).toEqual(['10.1.2.3', '10.1.2.3', '10.1.2.3']);
    expect(clientOf('10.1.2.4')).not.toBe(clientOf('10.1.2.3'));
  });

  it('every address of one IPv6 /64 is one client, however it is written; another /64 is another', () => {
    const one = ['2001:db8:1:2:3:4:5:6', '2001:db8:1:2::9', '2001:DB8:0001:0002:ffff::1', '2001:db8:1:2:0:0:0:0'].map(clientOf);
    expect(new Set(one).size).toBe(1);
    expect(clientOf('2001:db8:1:3::1')).not.toBe(one[0]);
    expect(clientOf('::1')).toBe(clientOf('::2'));
  });
});
