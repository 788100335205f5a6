/**
 * The PostgreSQL store's durable steps (ctx.step, ctx.sleep): the job_steps
 * table of migration 005, with the SQLite store's semantics (sqlite/steps.ts).
 *
 * A save runs in a transaction that first locks the job's row under its
 * lease: saves of one job then take their seq one after the other (the
 * insert reads max(seq) in a snapshot taken after the lock). A save whose
 * reply was lost and is tried again finds its row and writes nothing, and
 * still answers true while the lease holds.
 */
import type { Store } from '../store.js';
import { toStepRecord, type StepRow } from '../sqlite/steps.js';
import type { Database } from './connect.js';
import { render } from './sql.js';

export function createPostgresSteps(db: Database, schema: string): Pick<Store, 'saveStep' | 'steps'> {
  const q = (text: string) => render(text, schema);
  const s = {
    lease: q('SELECT 1 FROM {{schema}}.jobs WHERE id = $1 AND state = {{processing}} AND lease_token = $2 FOR NO KEY UPDATE'),
    // save-step.sql
    save: q(`INSERT INTO {{schema}}.job_steps (job_id, name, seq, result, wake_at, attempt, at)
      SELECT $1, $2, coalesce(max(seq), 0) + 1, $3, $4, $5, $6 FROM {{schema}}.job_steps WHERE job_id = $1
      ON CONFLICT (job_id, name) DO NOTHING`),
    // steps.sql
    all: q('SELECT name, seq, result, wake_at, attempt, at FROM {{schema}}.job_steps WHERE job_id = $1 ORDER BY seq'),
  };
  return {
    saveStep: async (id, token, step) =>
      db.tx(async (client) => {
        if ((await client.query(s.lease, [id, token])).rowCount !== 1) return false;
        await client.query(s.save, [id, step.name, step.result, step.wakeAt, step.attempt, step.at]);
        return true;
      }),
    steps: async (id) => (await db.rows<StepRow>(s.all, [id])).map(toStepRecord),
  };
}
