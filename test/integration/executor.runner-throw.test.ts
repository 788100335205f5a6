/**
 * A throw from the runner itself (not from the handler, whose errors are
 * outcomes): the attempt counts as failed and is logged at error level. As a
 * free release it could loop a job forever without spending attempts.
 */
import { describe, expect, it } from 'vitest';
import { pino } from 'pino';
import { createEngine } from '../../src/engine/create-engine.js';
import { createExecutor } from '../../src/engine/run/executor.js';
import { defineJob } from '../../src/engine/core/job-definition.js';
import { toContext } from '../../src/engine/core/machine-registry.js';
import type { ThreadPool } from '../../src/engine/run/threads/thread-pool.js';
import { systemClock } from '../../src/lib/clock.js';
import { createSqliteStore } from '../../src/store/sqlite/sqlite-store.js';
import type { InsertResult } from '../../src/store/store.js';
import { CLAIM_RULE } from '../helpers/claim-rule.js';
import { tempDbPath } from '../helpers/temp-db.js';
import { machineEvent } from '../../src/engine/core/moves.js';

/** A thread pool whose run breaks before any handler runs (the runner's own failure). */
const brokenPool: ThreadPool = {
  run: () => Promise.reject(new Error('thread pool broke')),
  busy: () => 0,
  close: async () => {},
};

describe('a throw inside the runner', () => {
  it('is a failed attempt, logged at error level, not a release that spends nothing', async () => {
    const db = tempDbPath();
    const lines: Array<{ level: number; msg: string; jobId?: number }> = [];
    const logger = pino({ level: 'info' }, { write: (line: string) => void lines.push(JSON.parse(line)) });
    const store = createSqliteStore({ path: db.path, durability: 'normal', cacheMiB: 8, busyTimeoutMs: 5000, history: true });
    const job = defineJob({ name: 't', isolation: 'thread', module: new URL('../fixtures/thread-handlers/outcomes.ts', import.meta.url), retry: { attempts: 2, backoff: { type: 'fixed', delay: 0 } } });
    const engine = createEngine({ store, clock: systemClock, logger, jobs: [job], retention: {}, maxPayloadBytes: 1024 });
    try {
      const executor = createExecutor(engine, { leaseMs: 30_000, stuckAfterMs: 1000, maxBacklog: 10, threads: brokenPool });
      const [{ id }] = (await store.insert([{ name: 't', state: 'pending', payload: '{}', key: null, priority: 0, runAt: 0, retry: null, timeout: null }], Date.now())) as [InsertResult];
      for (const attempt of [1, 2]) {
        const [claimed] = (await store.claim({ names: ['t'], limit: 1, owner: 'w', leaseMs: 30_000, now: Date.now(), rule: CLAIM_RULE })).jobs;
        expect(claimed).toMatchObject({ id, attempts: attempt });
        await executor.run(claimed!, 'w/0');
        await executor.whenDone();
        await engine.flush();
        // The retry's due event, as the due sweep would deliver it.
        const failed = (await store.get(id))!;
        const due = engine.registry.forJob('t', null).due(failed.state, toContext(failed.attempts, failed.lastError, failed.ctx));
        if (attempt === 1) await engine.apply(failed, machineEvent({ type: due!.eventType }));
      }
      expect(await store.get(id)).toMatchObject({ state: 'dead', attempts: 2, lastError: { message: 'thread pool broke' } });
      const logged = lines.filter((l) => l.jobId === id && l.level === 50 && l.msg.startsWith('could not run a job'));
      expect(logged).toHaveLength(2);
    } finally {
      await engine.close();
      db.cleanup();
    }
  });
});
