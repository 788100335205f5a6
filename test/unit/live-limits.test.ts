/**
 * The limits in force while the queue runs (engine/core/live-limits.ts):
 * stored changes over the definitions', a limit turned off, and a
 * snapshot replaced on each change, whoever read it first (each consumer
 * compares it with the one it built its own settings from).
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

  it('replaces its snapshot on each change, whichever read learns it, and never changes one a claim or a consumer holds', () => {
    const live = createLiveLimits(defined);
    const built = live.current();
    const rows = [{ name: 'mail', rule: limitChangesText('mail', { globalConcurrency: 5 }) }];
    // Another reader (queue.limits(), setLimits, the limits loop) learns it first ...
    expect(live.learn(rows)).toBe(true);
    // ... a later read finds nothing new, but a consumer built from the old snapshot sees it is another.
    expect(live.learn(rows)).toBe(false);
    expect(live.current()).not.toBe(built);
    expect(live.current().get('mail')).toEqual({ globalConcurrency: 5 });
    expect(built.get('mail')).toEqual({ globalConcurrency: 2 });
    const changed = live.current();
    expect(live.learn([])).toBe(true);
    expect(live.current().get('mail')).toEqual({ globalConcurrency: 2 });
    expect(changed.get('mail')).toEqual({ globalConcurrency: 5 });
    // The same limits again (stored rows differ, the limits in force do not): the snapshot stays.
    const same = live.current();
    expect(live.learn([{ name: 'other', rule: limitChangesText('other', { globalConcurrency: null }) }])).toBe(false);
    expect(live.current()).toBe(same);
  });
});
