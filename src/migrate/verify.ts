/**
 * The check at the end of a pass: the source's jobs per state over the pass's
 * ids, read now, against the target's, counted as each batch wrote them. A
 * difference means the file changed under the copy (workers or an operator
 * moved jobs after their batch was copied, or retention deleted some), and
 * the target holds those jobs as they were.
 *
 * The target's side is its count at write time, not now: once workers run on
 * PostgreSQL (a catch-up run during the switch-over) they move copied jobs
 * on, and that is no difference.
 */
import { JobState } from '../../machines/job.machine.js';
import { MigrateError } from '../errors.js';
import type { Source } from './source.js';
import type { Target } from './target.js';

export type StateCounts = Record<string, { source: number; target: number }>;

export async function verifyPass(source: Source, target: Target, pass: { from: number; upTo: number }): Promise<StateCounts> {
  const { copied, skipped } = await target.tallies({ passFrom: pass.from, upTo: pass.upTo });
  const inSource = source.countByState(pass.from, pass.upTo);
  // Jobs left out for a key held in the target are not expected there.
  for (const state of source.statesOf(skipped.map((s) => s.id))) inSource.set(state, (inSource.get(state) ?? 0) - 1);
  const known: string[] = Object.values(JobState);
  const others = [...new Set([...inSource.keys(), ...copied.keys()])].filter((s) => !known.includes(s)).sort();
  const out: StateCounts = {};
  for (const state of [...known, ...others]) out[state] = { source: inSource.get(state) ?? 0, target: copied.get(state) ?? 0 };
  return out;
}

export function verificationError(states: StateCounts, pass: { from: number; upTo: number }): MigrateError {
  const differ = Object.entries(states)
    .filter(([, c]) => c.source !== c.target)
    .map(([state, c]) => `${state}: ${c.source} in the SQLite file, ${c.target} copied`);
  return new MigrateError(
    'LJ_ERR_MIGRATE_VERIFY',
    `the copied jobs (ids ${pass.from + 1} to ${pass.upTo}) do not match the SQLite file by state (${differ.join('; ')}): the file changed under the copy, and the copies hold the states their jobs had when copied. Stop whatever still changes jobs in the file (workers, retention, operators), then compare those jobs in both stores`,
  );
}
