/**
 * A finishing move with retention 0 asks the store to delete the job, with
 * the database's time its throttle window is judged at; when that time
 * cannot be read (a first measure during an outage) it asks for a move
 * instead, so the outcome still lands and the job is deleted later.
 */
import { describe, expect, it } from 'vitest';
import { JobEventType } from '../../machines/job.machine.js';
import { createMachineRegistry } from '../../src/engine/core/machine-registry.js';
import { createApplyEvent } from '../../src/engine/move/apply-event.js';
import { createVirtualClock } from '../../src/lib/virtual-clock.js';
import type { TransitionRequest } from '../../src/store/store.js';

function apply(now: () => Promise<{ lo: number; hi: number }>) {
  const sent: TransitionRequest[] = [];
  const run = createApplyEvent({
    registry: createMachineRegistry(new Map()),
    deletesAtOnce: () => true,
    commit: async (request) => {
      sent.push(request);
      return { committed: true, parentMoves: [] };
    },
    read: async () => undefined,
    clock: createVirtualClock(1000),
    time: { now },
    onTransition: () => undefined,
  });
  const job = { id: 1, name: 'j', state: 'processing', version: 1, attempts: 1, lastError: null, ctx: null, retry: null, leaseToken: 't', parentId: null };
  return { sent, done: run(job, { type: JobEventType.complete }) };
}

describe('a finishing move under retention 0', () => {
  it('asks for a delete judged at the database time', async () => {
    const a = apply(async () => ({ lo: 990, hi: 1010 }));
    await a.done;
    expect(a.sent.map((r) => [r.to, r.purge, r.throttleAt])).toEqual([['completed', true, 990]]);
  });

  it('asks for a move when the database time cannot be read', async () => {
    const a = apply(async () => {
      throw new Error('connection refused');
    });
    expect(await a.done).toMatchObject({ accepted: true, committed: true });
    expect(a.sent.map((r) => [r.to, r.purge, r.throttleAt])).toEqual([['completed', undefined, undefined]]);
  });
});
