/** The SQLite store's durable steps (ctx.step, ctx.sleep): the job_steps table of migration 009. */
import type Database from 'better-sqlite3';
import type { StepSave, Store } from '../store.js';
import { sql } from './sql.js';
import { toStepRecord, type StepRow } from '../rows.js';

/** A row of job_steps, as steps.sql reads it (shared with the PostgreSQL store). */
export function createSqliteSteps(db: Database.Database): Pick<Store, 'saveSteps' | 'steps'> {
  const s = {
    save: db.prepare(sql('save-step')),
    holds: db.prepare(sql('holds-lease')).pluck(),
    all: db.prepare(sql('steps')),
  };
  // One write transaction for the steps of every run that finished one at the same time.
  const saveTx = db.transaction((items: readonly StepSave[]): boolean[] =>
    items.map(({ id, token, step }) => {
      const written = s.save.run({ id, token, name: step.name, result: step.result, wakeAt: step.wakeAt, attempt: step.attempt, at: step.at }).changes === 1;
      // Nothing written: either the lease is gone, or the step was already recorded (the first row stays).
      return written || s.holds.get({ id, token }) !== undefined;
    }),
  );
  return {
    saveSteps: async (items) => (items.length === 0 ? [] : saveTx.immediate(items)),
    steps: async (id) => (s.all.all({ id }) as StepRow[]).map(toStepRecord),
  };
}
