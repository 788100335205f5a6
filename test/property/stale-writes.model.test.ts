/**
 * A model check of the engine's write paths across connections: three
 * engines, each on its own connection to one database (a SQLite file, or a
 * PostgreSQL schema in the conformance project), as three processes would
 * hold them, on one virtual clock. In each round every engine runs a few
 * operations in turn, the three at once, and fast-check's scheduler decides
 * the order in which every store call starts and answers, so a read in one
 * engine and its write can be split by any number of another's commits.
 *
 * The operations are the engine's own: enqueue (plain, unique, a flow), a
 * claim whose jobs run on the executor (handlers that complete, fail,
 * throw RetryLaterError, sleep or fail once), a claim whose process then dies,
 * the due sweep, the lease sweep, cancel, retry from dead, and the clock.
 *
 * Invariants, after every step and at the end:
 * - the history replays through the job's machine to exactly the row's
 *   state, attempts, last error and context (no lost update), and its version
 *   counts its moves;
 * - no job spends more runs than its policy's attempts between two retries
 *   from dead, and every run started under a claim the history records;
 * - no retry is claimed before its backoff, on the virtual clock;
 * - no job is ever held under two leases at once;
 * - and, once the clock has run on and the sweeps have had their turn, every
 *   job has finished.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { JobEventType } from '../../machines/job.machine.js';
import { createEngine, type Engine } from '../../src/engine/engine.js';
import { createExecutor, type Executor } from '../../src/engine/executor.js';
import { defineJob } from '../../src/engine/job-definition.js';
import { fromContext } from '../../src/engine/machine-registry.js';
import { expireLeases, promoteDue } from '../../src/engine/sweeps.js';
import { RetryLaterError } from '../../src/errors.js';
import { createVirtualClock } from '../../src/lib/virtual-clock.js';
import type { LeasedJob, NewFlowNode, Store } from '../../src/store/store.js';
import { leaseViolations, type HistoryRow } from '../helpers/lease-history.js';
import { TEST_STORE, useQueues } from '../helpers/queue-fixture.js';
import { propertyRuns } from '../helpers/property-runs.js';
import { silentLogger } from '../helpers/silent-logger.js';
import { machineEvent } from '../../src/engine/apply-event.js';

const fx = useQueues();
const START = Date.parse('2026-06-01T00:00:00Z');
const LEASE_MS = 1000;
const BACKOFF_MS = 300;
const LATER_MS = 200;
const SLEEP_MS = 150;
const ATTEMPTS = 3;
const KINDS = ['fail', 'later', 'sleep', 'ok', 'flaky'] as const;
type Kind = (typeof KINDS)[number];

const JOB = defineJob({
  name: 'm',
  retry: { attempts: ATTEMPTS, backoff: { type: 'fixed', delay: BACKOFF_MS }, maxRetryLater: 2 },
  handler: async (p: { k: Kind }, ctx) => {
    if (p.k === 'fail' || (p.k === 'flaky' && ctx.attempt === 1)) throw new Error('boom');
    if (p.k === 'later') throw new RetryLaterError(LATER_MS);
    if (p.k === 'sleep') await ctx.sleep('nap', SLEEP_MS);
    return p.k;
  },
});

type Op =
  | { type: 'enqueue'; kind: number; unique: boolean }
  | { type: 'flow'; kinds: [number, number]; continueOnFailure: boolean }
  | { type: 'work'; limit: number }
  | { type: 'crash'; limit: number }
  | { type: 'promote' }
  | { type: 'sweep' }
  | { type: 'cancel'; pick: number }
  | { type: 'retry'; pick: number };

const opArb: fc.Arbitrary<Op> = fc.oneof(
  // Failing jobs most: their retries are what a stale promotion would run early or too often.
  { weight: 3, arbitrary: fc.record({ type: fc.constant('enqueue' as const), kind: fc.constantFrom(0, 0, 0, 1, 2, 3, 4), unique: fc.boolean() }) },
  { weight: 1, arbitrary: fc.record({ type: fc.constant('flow' as const), kinds: fc.tuple(fc.nat(KINDS.length - 1), fc.nat(KINDS.length - 1)), continueOnFailure: fc.boolean() }) },
  { weight: 5, arbitrary: fc.record({ type: fc.constant('work' as const), limit: fc.integer({ min: 1, max: 3 }) }) },
  { weight: 1, arbitrary: fc.record({ type: fc.constant('crash' as const), limit: fc.integer({ min: 1, max: 2 }) }) },
  { weight: 4, arbitrary: fc.constant({ type: 'promote' as const }) },
  { weight: 2, arbitrary: fc.constant({ type: 'sweep' as const }) },
  { weight: 1, arbitrary: fc.record({ type: fc.constant('cancel' as const), pick: fc.nat() }) },
  { weight: 1, arbitrary: fc.record({ type: fc.constant('retry' as const), pick: fc.nat() }) },
);
/**
 * A round: each engine runs a few operations one after the other, the three
 * engines at once (so one engine's read and write can straddle several of
 * another's operations), then the clock moves on. In some rounds one engine
 * is late: the answer to one of its store calls (its `call`-th of the round)
 * reaches it only once the other two have run all their operations, the
 * widest window between a read and the write decided on it.
 */
const seqArb = fc.array(opArb, { minLength: 1, maxLength: 4 });
// Ticks about the backoff, so retries come due within a round as often as not.
const stepArb = fc.record({ ops: fc.tuple(seqArb, seqArb, seqArb), late: fc.option(fc.record({ proc: fc.nat(2), call: fc.nat(5) }), { freq: 5 }), tick: fc.oneof(fc.constantFrom(0, BACKOFF_MS, BACKOFF_MS + 1), fc.integer({ min: 1, max: 700 })) });

/**
 * Every store call starts, and answers, when fast-check's scheduler says;
 * then `afterAnswer` may hold the answer back (a late engine: see run).
 */
function scheduled(inner: Store, s: fc.Scheduler, who: string, afterAnswer: () => Promise<void>): Store {
  const out: Record<string, unknown> = { ...inner };
  for (const [key, fn] of Object.entries(inner)) {
    if (typeof fn !== 'function' || key === 'close' || key === 'externalChange' || key === 'watchChanges' || key === 'insertSync') continue;
    out[key] = async (...args: unknown[]) => {
      await s.schedule(Promise.resolve(), `${who} ${key}`);
      const value = await (fn as (...a: unknown[]) => Promise<unknown>)(...args);
      await s.schedule(Promise.resolve(), `${who} ${key} answered`);
      await afterAnswer();
      return value;
    };
  }
  return out as unknown as Store;
}

interface Proc { engine: Engine; executor: Executor; owner: string }
interface JobRow { id: number; name: string; state: string; attempts: number; last_error: string | null; ctx: string | null; version: number | string; parent_id: number | null }
type History = HistoryRow & { at: number | string; candidate: number | null; error: string | null };

/** What breaks an invariant in the database now; `runs` are the lease tokens runs started under, by job. */
async function violations(engine: Engine, runs: ReadonlyMap<number, string[]>, final = false): Promise<string[]> {
  const out: string[] = [];
  const jobs = await fx.sql<JobRow>('SELECT id, name, state, attempts, last_error, ctx, version, parent_id FROM jobs ORDER BY id');
  const rows = await fx.sql<History>('SELECT id, job_id, from_state, to_state, event, candidate, at, worker_id, lease_token, error FROM job_history ORDER BY id');
  // A lease still held is no fault until the end (a claim under way, or a process that died holding it).
  out.push(...leaseViolations(rows).filter((v) => final || !v.endsWith('never released')));
  const byJob = new Map<number, History[]>();
  for (const r of rows) byJob.set(r.job_id, [...(byJob.get(r.job_id) ?? []), r]);
  for (const job of jobs) {
    const history = byJob.get(job.id) ?? [];
    const where = `job ${job.id}`;
    // The table holds moves only (a job's creation is its row): one per version.
    if (Number(job.version) !== history.length) out.push(`${where}: version ${job.version} after ${history.length} moves`);
    // Replay through the machine, as the engine decided each move.
    const machine = engine.registry.forJob(job.name, null);
    let state = history[0]?.from_state ?? job.state;
    let context = machine.initial.context;
    let spent = 0;
    let failedAt: { at: number; wait: number } | null = null;
    for (const h of history) {
      const error = h.error === null ? undefined : (JSON.parse(h.error) as { retryAfter?: number });
      const event: { type: string } & Record<string, unknown> = { type: h.event, random: 0 };
      if (error) event.error = error;
      if (h.event === JobEventType.sleep) event.delay = SLEEP_MS;
      if (h.event === JobEventType.children) event.failed = h.to_state !== 'pending';
      const step = machine.next(state, context, event);
      if (!step || step.state !== h.to_state || (step.candidate ?? null) !== (h.candidate ?? null)) {
        out.push(`${where}: history ${h.from_state}→${h.to_state} by ${h.event} does not follow from ${state}`);
        break;
      }
      if (h.from_state !== state) out.push(`${where}: history row #${h.id} leaves ${h.from_state}, the job was ${state}`);
      if (h.event === JobEventType.claim) {
        spent++;
        if (failedAt && Number(h.at) < failedAt.at + failedAt.wait) out.push(`${where}: claimed at +${Number(h.at) - failedAt.at} ms after its failure, backoff ${failedAt.wait} ms`);
        failedAt = null;
      }
      // An attempt given back: released, parked asleep, or asked to be retried later.
      if (h.from_state === 'processing' && context.attempts > step.context.attempts) spent--;
      if (h.event === JobEventType.retry) spent = 0;
      if (spent > ATTEMPTS) out.push(`${where}: ${spent} attempts spent, the policy allows ${ATTEMPTS}`);
      if (h.to_state === 'failed') failedAt = { at: Number(h.at), wait: error?.retryAfter !== undefined && h.candidate === null ? LATER_MS : BACKOFF_MS };
      state = step.state;
      context = step.context;
    }
    const replayed = fromContext(context);
    const { sleepDelay: _a, ...replayedCtx } = replayed.ctx ?? {};
    const { sleepDelay: _b, ...rowCtx } = job.ctx ? (JSON.parse(job.ctx) as Record<string, unknown>) : {};
    const actual = { state: job.state, attempts: job.attempts, lastError: job.last_error === null ? null : JSON.parse(job.last_error), ctx: rowCtx };
    const expected = { state, attempts: replayed.attempts, lastError: replayed.lastError, ctx: replayedCtx };
    if (JSON.stringify(actual) !== JSON.stringify(expected)) out.push(`${where}: row ${JSON.stringify(actual)}, history replays to ${JSON.stringify(expected)}`);
    const claims = new Set(history.filter((h) => h.event === JobEventType.claim).map((h) => h.lease_token));
    for (const token of runs.get(job.id) ?? []) if (!claims.has(token)) out.push(`${where}: a run under ${token}, which no claim recorded`);
    if (final && !['completed', 'dead', 'cancelled'].includes(job.state)) out.push(`${where}: still ${job.state} at the end`);
  }
  return out;
}

type Step = { ops: ReadonlyArray<readonly Op[]>; late: { proc: number; call: number } | null; tick: number };

async function run(s: fc.Scheduler, steps: readonly Step[]): Promise<string[]> {
  const clock = createVirtualClock(START);
  const first = fx.store();
  await first.ping(); // creates the tables before the others look
  const stores = [first, fx.store(), fx.store()];
  // The round's late engine: which one, after which of its calls, until the others are done.
  let late: { proc: number; call: number; othersDone: Promise<unknown> } | null = null;
  const calls = [0, 0, 0];
  const afterAnswer = (i: number) => async () => {
    const call = calls[i]!;
    calls[i] = call + 1;
    if (late && late.proc === i && call === late.call) await late.othersDone;
  };
  const procs: Proc[] = stores.map((store, i) => {
    const engine = createEngine({ store: scheduled(store, s, `p${i}`, afterAnswer(i)), clock, logger: silentLogger, jobs: [JOB], retention: {}, maxPayloadBytes: 4096 });
    const executor = createExecutor(engine, { leaseMs: LEASE_MS, stuckAfterMs: 60_000, maxBacklog: 1000 });
    return { engine, executor, owner: `p${i}` };
  });
  const ids: number[] = [];
  const runs = new Map<number, string[]>();
  const claim = async (p: Proc, limit: number): Promise<LeasedJob[]> =>
    (await p.engine.store.claim({ names: ['m'], limit, owner: p.owner, leaseMs: LEASE_MS, now: clock.now(), rule: p.engine.registry.claimRule })).jobs;
  const work = async (p: Proc, limit: number) => {
    const jobs = await claim(p, limit);
    await Promise.all(
      jobs.map((job) => {
        runs.set(job.id, [...(runs.get(job.id) ?? []), job.leaseToken]);
        return p.executor.run(job, `${p.owner}/w`);
      }),
    );
    await p.executor.whenDone();
  };
  const userEvent = async (p: Proc, pick: number, type: string) => {
    if (ids.length === 0) return;
    const job = await p.engine.store.get(ids[pick % ids.length]!);
    if (job) await p.engine.apply(job, machineEvent({ type }), { again: () => true });
  };
  const perform = async (p: Proc, op: Op): Promise<void> => {
    const { engine } = p;
    const now = clock.now();
    if (op.type === 'enqueue') {
      const options = op.unique ? { unique: { key: `u${op.kind}` } } : {};
      const [r] = await engine.enqueueMany([engine.newJob({ name: 'm', payload: { k: KINDS[op.kind] }, options }, now)]);
      if (r!.created) ids.push(r!.id);
    } else if (op.type === 'flow') {
      const node = (k: Kind, children: NewFlowNode[] = []): NewFlowNode => ({
        job: engine.newJob({ name: 'm', payload: { k } }, now),
        onChildFailure: op.continueOnFailure ? 'continue' : 'fail',
        children,
      });
      const r = await engine.enqueueFlow(node('ok', op.kinds.map((k) => node(KINDS[k]!))));
      ids.push(r.id, ...r.children.map((c) => c.id));
    } else if (op.type === 'work') await work(p, op.limit);
    else if (op.type === 'crash') await claim(p, op.limit); // the process dies holding these leases
    else if (op.type === 'promote') await promoteDue(engine, ['m'], now);
    else if (op.type === 'sweep') {
      await expireLeases(engine, ['m'], now, {
        holds: (job) => job.leaseToken !== null && p.executor.holds(job.id, job.leaseToken),
        renew: () => p.executor.renewLeases(),
        abort: (id) => void p.executor.abort(id, 'lease'),
      });
    } else if (op.type === 'cancel') await userEvent(p, op.pick, JobEventType.cancel);
    else await userEvent(p, op.pick, JobEventType.retry);
  };
  const found: string[] = [];
  try {
    for (const step of steps) {
      const sequence = async (p: Proc, ops: readonly Op[]) => {
        for (const op of ops) await perform(p, op);
      };
      calls.fill(0);
      const running = step.ops.map((ops, i) => sequence(procs[i]!, ops));
      late = step.late ? { ...step.late, othersDone: Promise.all(running.filter((_, i) => i !== step.late!.proc)) } : null;
      await s.waitFor(Promise.all(running));
      late = null;
      await s.waitFor(Promise.all(procs.map((p) => p.engine.flush())));
      found.push(...(await violations(procs[0]!.engine, runs)));
      if (found.length > 0) return found;
      await clock.advance(step.tick);
    }
    // The end: time runs on, the sweeps and the workers take their turns, until every job has finished.
    for (let round = 0; round < 40; round++) {
      await clock.advance(LEASE_MS + 1);
      for (const [i, p] of procs.entries()) {
        await s.waitFor(perform(p, { type: 'sweep' }));
        await s.waitFor(perform(p, { type: 'promote' }));
        await s.waitFor(perform(p, { type: 'work', limit: 10 + i }));
      }
      await s.waitFor(Promise.all(procs.map((p) => p.engine.flush())));
      const [open] = await fx.sql<{ n: number }>("SELECT count(*) AS n FROM jobs WHERE state NOT IN ('completed', 'dead', 'cancelled')");
      if (Number(open!.n) === 0) break;
    }
    found.push(...(await violations(procs[0]!.engine, runs, true)));
    return found;
  } finally {
    await s.waitFor(Promise.all(procs.map((p) => p.engine.close())));
  }
}

describe('three connections, every store call interleaved by fast-check', () => {
  it('no stale write lands: runs, backoffs, leases and the history all follow the policy', async () => {
    await fc.assert(
      fc.asyncProperty(fc.scheduler(), fc.array(stepArb, { minLength: 3, maxLength: TEST_STORE === 'postgres' ? 8 : 12 }), async (s, steps) => {
        expect(await run(s, steps)).toEqual([]);
      }),
      { numRuns: Number(process.env.LJ_MODEL_RUNS ?? propertyRuns(40)) },
    );
  }, 120_000);
});
