/**
 * The PostgreSQL store's durable steps (ctx.step, ctx.sleep): the job_steps
 * table of migration 005, with the SQLite store's semantics (sqlite/steps.ts).
 *
 * The steps of every run that finished one at the same time are saved by
 * one autocommitted statement: it locks each job's row under its lease, then
 * inserts the steps of the jobs it holds, each job's numbered after its
 * stored ones. A save whose reply was lost and is tried again finds its row
 * and writes nothing, and still answers true while the lease holds.
 */
import type { StepSave, Store } from '../store.js';
import { toStepRecord, type StepRow } from '../rows.js';
import type { Database } from './connect.js';
import { render } from './sql.js';

export function createPostgresSteps(db: Database, schema: string): Pick<Store, 'saveSteps' | 'steps'> {
  const q = (text: string) => render(text, schema);
  const s = {
    // save-step.sql, for a batch: the rows whose job is held come back (their ord).
    save: q(`WITH r AS (
        SELECT * FROM unnest($1::bigint[], $2::text[], $3::text[], $4::text[], $5::bigint[], $6::int[], $7::bigint[])
          WITH ORDINALITY AS r (job_id, token, name, result, wake_at, attempt, at, ord)
      ), held AS (
        SELECT r.* FROM r JOIN {{schema}}.jobs j ON j.id = r.job_id AND j.state = {{processing}} AND j.lease_token = r.token
        FOR NO KEY UPDATE OF j
      ), saved AS (
        INSERT INTO {{schema}}.job_steps (job_id, name, seq, result, wake_at, attempt, at)
        SELECT h.job_id, h.name,
          coalesce((SELECT max(seq) FROM {{schema}}.job_steps s WHERE s.job_id = h.job_id), 0) + row_number() OVER (PARTITION BY h.job_id ORDER BY h.ord),
          h.result, h.wake_at, h.attempt, h.at
        FROM held h ORDER BY h.ord
        ON CONFLICT (job_id, name) DO NOTHING
      )
      SELECT ord FROM held`),
    // steps.sql
    all: q('SELECT name, seq, result, wake_at, attempt, at FROM {{schema}}.job_steps WHERE job_id = $1 ORDER BY seq'),
  };
  return {
    saveSteps: async (items) => {
      if (items.length === 0) return [];
      const column = <T>(pick: (item: StepSave) => T) => items.map(pick);
      const { rows } = await db.query<{ ord: number | string }>(s.save, [
        column((i) => i.id),
        column((i) => i.token),
        column((i) => i.step.name),
        column((i) => i.step.result),
        column((i) => i.step.wakeAt),
        column((i) => i.step.attempt),
        column((i) => i.step.at),
      ]);
      const out = new Array<boolean>(items.length).fill(false);
      for (const { ord } of rows) out[Number(ord) - 1] = true;
      return out;
    },
    steps: async (id) => (await db.rows<StepRow>(s.all, [id])).map(toStepRecord),
  };
}
