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
import type { Database } from './open.js';
import { statement } from './sql.js';

export function createPostgresSteps(db: Database, schema: string): Pick<Store, 'saveSteps' | 'steps'> {
  const s = { save: statement('save-step', schema), all: statement('steps', schema) };
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
