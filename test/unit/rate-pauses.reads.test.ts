/** Other processes' pauses are read every RATE_PAUSES_REFRESH_MS while claimed jobs wait, and no timer is armed while none do. */
import { describe, expect, it } from 'vitest';
import { createPauseReads, RATE_PAUSES_REFRESH_MS } from '../../src/engine/claim/rate-pauses.js';
import { createVirtualClock } from '../../src/lib/virtual-clock.js';

function setUp() {
  const clock = createVirtualClock(1_000_000);
  const state = { waiting: 0, reads: 0, failures: [] as unknown[], fail: false };
  const outage = {
    recovered: () => {},
    failed: (_what: string, err: unknown) => {
      state.failures.push(err);
      return false;
    },
  };
  const reads = createPauseReads(clock, outage, () => state.waiting, async () => {
    state.reads++;
    if (state.fail) throw new Error('out of reach');
  });
  return { clock, state, reads };
}

describe('createPauseReads', () => {
  it('arms no timer while the buffer is empty, reads while it holds jobs, and stops arming once it empties', async () => {
    const { clock, state, reads } = setUp();
    reads.start();
    reads.arm();
    expect(clock.pending()).toBe(0);
    await clock.advance(10 * RATE_PAUSES_REFRESH_MS);
    expect(state.reads).toBe(0);

    state.waiting = 3;
    reads.arm();
    reads.arm(); // one timer, however many claims arrive meanwhile
    expect(clock.pending()).toBe(1);
    await clock.advance(RATE_PAUSES_REFRESH_MS);
    expect(state.reads).toBe(1);
    await clock.advance(RATE_PAUSES_REFRESH_MS);
    expect(state.reads).toBe(2);

    state.waiting = 0;
    await clock.advance(RATE_PAUSES_REFRESH_MS);
    expect(state.reads).toBe(3); // the read already armed
    expect(clock.pending()).toBe(0);
    await clock.advance(10 * RATE_PAUSES_REFRESH_MS);
    expect(state.reads).toBe(3);
  });

  it('keeps reading through a failed read, and arms nothing once stopped', async () => {
    const { clock, state, reads } = setUp();
    reads.start();
    state.waiting = 1;
    state.fail = true;
    reads.arm();
    await clock.advance(2 * RATE_PAUSES_REFRESH_MS);
    expect(state.reads).toBe(2);
    expect(state.failures).toHaveLength(2);
    reads.stop();
    expect(clock.pending()).toBe(0);
    reads.arm();
    expect(clock.pending()).toBe(0);
  });
});
