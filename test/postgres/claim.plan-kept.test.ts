/**
 * The claim function keeps its plans for the life of a connection, and the
 * first claim of a connection is often made on an empty queue: those plans
 * must still walk jobs_ready, and find the leased rows by primary key, once
 * a burst fills the table (before it is analyzed). Left to choose, the
 * planner read the whole table on every claim (7.6 ms against 1.2 ms for a
 * one-job claim among 50,000 jobs).
 */
/**
 * claim_ready keeps its plans for the connection's life (force_generic_plan).
 * A worker's connection makes its first claim when the table is empty (a new
 * deployment, an idle queue); a burst of jobs then arrives before the table
 * has statistics. The claim must still walk jobs_ready in order and stop at
 * its limit, not read the whole backlog with the plan made for no rows.
 */
import { expect, it } from 'vitest';
import { claimStatement } from '../../src/store/postgres/claim.js';
import { CLAIM_RULE } from '../helpers/claim-rule.js';
import { pgClient } from '../helpers/postgres.js';
import { job, NOW, usePgStores } from './fixture.js';

const pg = usePgStores();

it('planned on an empty table, walks jobs_ready and leases by primary key once a backlog arrives', async () => {
  const schema = pg.schema();
  const store = pg.open({ schema, history: false });
  await store.stats(); // migrated
  const admin = await pgClient();
  try {
    const claim = (token: string, limit: number) =>
      admin.query(claimStatement(schema), [['a'], NOW, limit, 'w1', token, NOW + 1000, CLAIM_RULE.attempts, CLAIM_RULE.event, false, NOW]);
    // The worker's connection claims once while there is nothing to claim.
    expect((await claim('t0', 10)).rows).toHaveLength(1);
    for (let i = 0; i < 50_000; i += 5000) await store.insert(Array.from({ length: 5000 }, () => job()), NOW);
    const logged: string[] = [];
    (admin as unknown as NodeJS.EventEmitter).on('notice', (n: { message?: string }) => void logged.push(n.message ?? ''));
    await admin.query(`LOAD 'auto_explain'; SET auto_explain.log_min_duration = 0; SET auto_explain.log_nested_statements = on; SET auto_explain.log_analyze = on; SET client_min_messages = log`);
    const started = performance.now();
    expect((await claim('t1', 1)).rows).toHaveLength(2);
    const ms = performance.now() - started;
    const plans = logged.filter((m) => m.includes('jobs_ready') || m.includes('on jobs')).join('\n');
    console.log(`one-job claim: ${ms.toFixed(1)} ms\n${plans}`);
    expect(plans).toMatch(/Index Scan using jobs_ready on jobs/);
    expect(plans).not.toMatch(/(Bitmap Heap Scan|Seq Scan) on jobs\b/);
  } finally {
    await admin.end();
  }
});
