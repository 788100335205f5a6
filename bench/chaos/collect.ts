/**
 * Gathers the verdict's inputs once every child has exited: the store's rows
 * (read by the target directly, not through litejobs), the producers'
 * acknowledged ids and the workers' handler-run logs.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseAcked, parseRunLog } from './run-log.js';
import type { ChaosTarget } from './target.js';
import { FAIL_ATTEMPTS, FAIL_BACKOFF_MS, FAIL_JOB_NAME, JOB_BACKOFF_MS, JOB_NAME } from './options.js';
import type { HandlerRun, JobPolicy, ProcessLifetime, VerdictInput } from './verdict.js';

/** What the workers' definitions promise (worker.ts). */
const CHAOS_POLICIES: Record<string, JobPolicy> = {
  [JOB_NAME]: { attempts: 1000, backoffMs: JOB_BACKOFF_MS, finalState: 'completed' },
  [FAIL_JOB_NAME]: { attempts: FAIL_ATTEMPTS, backoffMs: FAIL_BACKOFF_MS, finalState: 'dead' },
};

/** Where each child writes, inside the run's folder. */
export const ackedFile = (dir: string, label: string) => join(dir, `acked-${label}.log`);
export const runLogFile = (dir: string, label: string) => join(dir, `runs-${label}.log`);

export async function collect(target: ChaosTarget, processes: readonly ProcessLifetime[], leaseMs: number): Promise<VerdictInput> {
  const acknowledged: number[] = [];
  const runs: HandlerRun[] = [];
  for (const name of readdirSync(target.dir).sort()) {
    const acked = /^acked-(.+)\.log$/.exec(name);
    const ran = /^runs-(.+)\.log$/.exec(name);
    if (acked) acknowledged.push(...parseAcked(readFileSync(join(target.dir, name), 'utf8'), name));
    if (ran) runs.push(...parseRunLog(readFileSync(join(target.dir, name), 'utf8'), ran[1]!));
  }
  const { jobs, history, integrity } = await target.read();
  return { acknowledged, jobs, history, runs, processes, integrity, leaseMs, policies: CHAOS_POLICIES };
}
