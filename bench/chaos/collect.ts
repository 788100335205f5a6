/**
 * Gathers the verdict's inputs once every child has exited: the file itself
 * (opened read-only, straight through better-sqlite3, not through litejobs),
 * the producers' acknowledged ids and the workers' handler-run logs.
 */
import Database from 'better-sqlite3';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseAcked, parseRunLog } from './run-log.js';
import type { HandlerRun, HistoryRow, JobRow, ProcessLifetime, VerdictInput } from './verdict.js';

/** Where each child writes, inside the run's folder. */
export const ackedFile = (dir: string, label: string) => join(dir, `acked-${label}.log`);
export const runLogFile = (dir: string, label: string) => join(dir, `runs-${label}.log`);

export function collect(dbPath: string, dir: string, processes: readonly ProcessLifetime[], leaseMs: number): VerdictInput {
  const acknowledged: number[] = [];
  const runs: HandlerRun[] = [];
  for (const name of readdirSync(dir).sort()) {
    const acked = /^acked-(.+)\.log$/.exec(name);
    const ran = /^runs-(.+)\.log$/.exec(name);
    if (acked) acknowledged.push(...parseAcked(readFileSync(join(dir, name), 'utf8'), name));
    if (ran) runs.push(...parseRunLog(readFileSync(join(dir, name), 'utf8'), ran[1]!));
  }
  const db = new Database(dbPath, { readonly: true, fileMustExist: true });
  try {
    const jobs = db.prepare<[], JobRow>('SELECT id, name, state, attempts FROM jobs ORDER BY id').all();
    const history = db
      .prepare<[], HistoryRow>('SELECT id, job_id, from_state, to_state, event, at, worker_id, lease_token, error FROM job_history ORDER BY id')
      .all();
    const integrity = (db.pragma('integrity_check') as Array<{ integrity_check: string }>).map((r) => r.integrity_check).join('; ');
    return { acknowledged, jobs, history, runs, processes, integrity, leaseMs };
  } finally {
    db.close();
  }
}
