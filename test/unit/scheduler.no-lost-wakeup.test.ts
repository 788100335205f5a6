/**
 * The claim loop must never lose a wake-up: with the idle poll switched off,
 * every job (ready now, delayed, or failed and due for retry) must still be
 * claimed, whatever the interleaving of triggers and slow store calls.
 */
import { systemClock } from '../../src/lib/clock.js';
import fc from 'fast-check';
import { Subject } from 'rxjs';
import { describe, expect, it } from 'vitest';
import { createScheduler } from '../../src/engine/scheduler.js';

interface FakeJob { id: number; dueAt: number; state: 'pending' | 'failed' | 'running' | 'done'; failuresLeft: number }

const pause = (ms: number) => new Promise<void>((r) => (ms === 0 ? setImmediate(r) : setTimeout(r, ms)));

async function runScenario(plan: { slots: number; jobs: Array<{ at: number; delay: number; failures: number; work: number }>; storeLatency: number[] }) {
  const jobs: FakeJob[] = [];
  const freed$ = new Subject<void>();
  let free = plan.slots;
  let lat = 0;
  const latency = () => pause(plan.storeLatency[lat++ % plan.storeLatency.length]!);
  const t0 = Date.now();
  const clock = { ...systemClock, now: () => Date.now() - t0 };
  const scheduler = createScheduler({
    clock,
    freeSlots: () => free,
    async claim(limit) {
      await latency();
      const now = clock.now();
      const ready = jobs.filter((j) => j.state === 'pending' && j.dueAt <= now).slice(0, limit);
      for (const job of ready) {
        job.state = 'running';
        free--;
        const spec = plan.jobs[job.id]!;
        void pause(spec.work).then(() => {
          if (job.failuresLeft > 0) {
            job.failuresLeft--;
            job.state = 'failed';
            job.dueAt = clock.now() + 1 + (spec.delay % 7);
            scheduler.noteDue(job.dueAt);
          } else job.state = 'done';
          free++;
          freed$.next();
        });
      }
      return ready.length;
    },
    async promoteDue(now) {
      await latency();
      for (const j of jobs) if (j.state === 'failed' && j.dueAt <= now) j.state = 'pending';
    },
    async nextDueAt() {
      await latency();
      const waiting = jobs.filter((j) => j.state === 'pending' || j.state === 'failed').map((j) => j.dueAt);
      return waiting.length ? Math.min(...waiting) : null;
    },
    externalChange: () => false,
    freed$,
    onError: (err) => {
      throw err;
    },
    pollMs: 60_000,
    idleMinMs: 10_000_000, // no safety net: only real triggers may claim
    idleMaxMs: 10_000_000,
  });
  scheduler.start();
  for (const [id, spec] of plan.jobs.entries()) {
    await pause(spec.at);
    const dueAt = clock.now() + spec.delay;
    jobs.push({ id, dueAt, state: 'pending', failuresLeft: spec.failures });
    if (spec.delay > 0) scheduler.noteDue(dueAt);
    else scheduler.wake();
  }
  const deadline = Date.now() + 3000;
  while (jobs.some((j) => j.state !== 'done') && Date.now() < deadline) await pause(5);
  await scheduler.stop();
  return jobs;
}

describe('scheduler', () => {
  it('claims every job without the idle poll, whatever the interleaving', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.record({
          slots: fc.integer({ min: 1, max: 4 }),
          jobs: fc.array(
            fc.record({ at: fc.integer({ min: 0, max: 3 }), delay: fc.integer({ min: 0, max: 15 }), failures: fc.integer({ min: 0, max: 2 }), work: fc.integer({ min: 0, max: 3 }) }),
            { minLength: 1, maxLength: 12 },
          ),
          storeLatency: fc.array(fc.integer({ min: 0, max: 2 }), { minLength: 1, maxLength: 5 }),
        }),
        async (plan) => {
          const jobs = await runScenario(plan);
          expect(jobs.filter((j) => j.state !== 'done')).toEqual([]);
        },
      ),
      { numRuns: 40 },
    );
  }, 120_000);
});
