/**
 * Worker pools of one process (createQueue pools): each pool runs its own
 * names with its own slots, the names no pool lists share `concurrency`;
 * each pool registers as a worker process with its names and slots, its
 * workers say their pool, and /metrics counts its slots. Bad pools are
 * refused at createQueue.
 */
import { describe, expect, it } from 'vitest';
import { createQueueMetrics } from '../../src/http/metrics.js';
import { defineJob, type HandlerContext, type Queue } from '../../src/index.js';
import { useQueues } from '../helpers/queue-fixture.js';
import { waitFor } from '../helpers/wait.js';

const fx = useQueues();

/** Handlers whose runs wait until the test ends them (or they are told to stop), counted by job name. */
function gated() {
  const running = new Map<string, Array<() => void>>();
  const started = new Map<string, number>();
  /** Once ending, runs return at once: the pools go on claiming the rest while the queue stops. */
  let ending = false;
  const handler = (name: string) => (_: unknown, ctx: HandlerContext) =>
    new Promise<void>((done) => {
      if (ending) return done();
      started.set(name, (started.get(name) ?? 0) + 1);
      running.set(name, [...(running.get(name) ?? []), done]);
      ctx.signal.addEventListener('abort', () => done());
    });
  const count = (name: string) => running.get(name)?.length ?? 0;
  const starts = (name: string) => started.get(name) ?? 0;
  const endAll = () => {
    ending = true;
    for (const list of running.values()) for (const done of list.splice(0)) done();
  };
  return { handler, count, starts, endAll };
}

const NAMES = ['send-email', 'build-report', 'resize'] as const;

function openPooled(g: ReturnType<typeof gated>): Queue {
  return fx.open({
    concurrency: 2,
    jobs: NAMES.map((name) => defineJob({ name, handler: g.handler(name) })),
    pools: { emails: { jobs: ['send-email'], concurrency: 3 }, reports: { jobs: ['build-report'], concurrency: 1 } },
  });
}

describe('worker pools', () => {
  it('each pool runs its names with its own slots; the rest share the queue concurrency', async () => {
    const g = gated();
    const q = openPooled(g);
    for (const name of NAMES) await q.enqueueMany(Array.from({ length: 6 }, (_, i) => ({ name, payload: i })));
    await q.start();
    await waitFor(() => g.count('send-email') === 3 && g.count('build-report') === 1 && g.count('resize') === 2);
    // Held there: a busy pool leaves the others their slots, and takes none of theirs.
    await new Promise((r) => setTimeout(r, 200));
    expect([g.count('send-email'), g.count('build-report'), g.count('resize')]).toEqual([3, 1, 2]);

    const workers = q.workers();
    expect(Object.fromEntries(['default', 'emails', 'reports'].map((pool) => [pool, workers.filter((w) => w.pool === pool && w.jobId !== null).length]))).toEqual({ default: 2, emails: 3, reports: 1 });
    expect(workers.filter((w) => w.pool === 'emails').every((w) => /\/emails\/w\d+$/.test(w.workerId))).toBe(true);

    // Each pool is a worker process of its own in the registry, with its names and slots.
    const store = fx.store();
    const processes = await store.processes!(Date.now());
    await store.close();
    const byPool = processes.map((p) => [p.owner.split('/')[1] ?? 'default', p.names, p.concurrency]).sort();
    expect(byPool).toEqual([
      ['default', ['resize'], 2],
      ['emails', ['send-email'], 3],
      ['reports', ['build-report'], 1],
    ]);

    // /metrics: each pool's slots and busy workers.
    const metrics = createQueueMetrics(q);
    const text = await metrics.registry.metrics();
    metrics.stop();
    expect(text).toContain('litejobs_pool_workers{pool="emails"} 3');
    expect(text).toContain('litejobs_pool_busy{pool="reports"} 1');
    expect(text).toContain('litejobs_pool_workers{pool="default"} 2');

    // A cancel reaches the run in whichever pool runs it: stopped, it frees the pool's one slot for the next report.
    const [running] = await q.listJobs({ state: 'processing', name: 'build-report' });
    await q.cancel(running!.id);
    await waitFor(() => g.starts('build-report') === 2);
    g.endAll();
    await q.stop();
  });

  it.each([
    ['a job the queue does not define', { x: { jobs: ['nope'], concurrency: 1 } }, 'LJ_ERR_VALIDATION', /not a job this queue defines/],
    ['a job in two pools', { a: { jobs: ['resize'], concurrency: 1 }, b: { jobs: ['resize'], concurrency: 1 } }, 'LJ_ERR_VALIDATION', /in pool "a" already/],
    ['the name default', { default: { jobs: ['resize'], concurrency: 1 } }, 'LJ_ERR_VALIDATION', /not "default"/],
    ['a name with a space', { 'my pool': { jobs: ['resize'], concurrency: 1 } }, 'LJ_ERR_VALIDATION', /letters, digits/],
    ["a worker's name", { w1: { jobs: ['resize'], concurrency: 1 } }, 'LJ_ERR_VALIDATION', /choose another pool name/],
    ["take()'s name", { manual: { jobs: ['resize'], concurrency: 1 } }, 'LJ_ERR_VALIDATION', /choose another pool name/],
    ['a concurrency of 0', { a: { jobs: ['resize'], concurrency: 0 } }, 'LJ_ERR_VALIDATION', /concurrency/],
    ['no jobs', { a: { jobs: [], concurrency: 1 } }, 'LJ_ERR_VALIDATION', /jobs must name/],
    ['an unknown field', { a: { jobs: ['resize'], concurrency: 1, limiter: 5 } }, 'LJ_ERR_UNKNOWN_OPTION', /limiter/],
  ])('refuses %s at createQueue', (_what, pools, code, message) => {
    const g = gated();
    const open = () => fx.open({ jobs: NAMES.map((name) => defineJob({ name, handler: g.handler(name) })), pools: pools as never });
    expect(open).toThrow(expect.objectContaining({ code, message: expect.stringMatching(message) }));
  });
});
