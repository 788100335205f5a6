/**
 * The limits in force while the queue runs (engine/core/live-limits.ts):
 * stored changes over the definitions', a limit turned off, and a version
 * that counts changes whoever read them first (each consumer compares it
 * with the one it built its own settings from).
 */
import { describe, expect, it } from 'vitest';
import { createLiveLimits, limitChangesText, withChanges } from '../../src/engine/core/live-limits.js';

const defined = new Map([['mail', { globalConcurrency: 2 }]]);

describe('live limits', () => {
  it('lays stored changes over the definitions; false turns a limit off; an emptied name is no longer limited', () => {
    expect(withChanges({ globalConcurrency: 2 }, { rateLimit: { max: 5, perMs: 1000, perGroup: false } })).toEqual({ globalConcurrency: 2, rateLimit: { max: 5, perMs: 1000, perGroup: false } });
    expect(withChanges({ globalConcurrency: 2 }, { globalConcurrency: false })).toBeUndefined();
    expect(JSON.parse(limitChangesText('mail', { globalConcurrency: null, rateLimit: { max: 3, per: '2s' } }))).toEqual({ globalConcurrency: false, rateLimit: { max: 3, perMs: 2000, perGroup: false } });
  });

  it('counts each change of the limits in force once, whichever read learns it; the same rows again change nothing', () => {
    const live = createLiveLimits(defined);
    const built = live.version();
    const rows = [{ name: 'mail', rule: limitChangesText('mail', { globalConcurrency: 5 }) }];
    // Another reader (queue.limits(), setLimits, another pool) learns it first ...
    expect(live.learn(rows)).toBe(true);
    // ... and a consumer's own read finds nothing new, but the version says its settings are stale.
    expect(live.learn(rows)).toBe(false);
    expect(live.version()).toBe(built + 1);
    expect(live.current.get('mail')).toEqual({ globalConcurrency: 5 });
    expect(live.learn([])).toBe(true);
    expect(live.current.get('mail')).toEqual({ globalConcurrency: 2 });
    expect(live.version()).toBe(built + 2);
  });
});
