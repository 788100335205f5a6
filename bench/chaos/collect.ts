/**
 * Gathers the verdict's inputs once every child has exited: the store's rows
 * (read by the target directly, not through litejobs), the producers'
 * acknowledged ids and the workers' handler-run logs.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseAcked, parseRunLog } from './run-log.js';
import type { ChaosTarget } from './target.js';
import { CUSTOM_JOB_NAME, FAIL_ATTEMPTS, FAIL_BACKOFF_MS, FAIL_JOB_NAME, JOB_BACKOFF_MS, JOB_NAME } from './options.js';
import { parseFeedLog } from './feed-log.js';
import type { HandlerRun, JobPolicy, ProcessLifetime, VerdictInput } from './verdict.js';

/** What the workers' definitions promise (worker.ts). */
const CHAOS_POLICIES: Record<string, JobPolicy> = {
  [JOB_NAME]: { attempts: 1000, backoffMs: JOB_BACKOFF_MS, finalState: 'completed' },
  [FAIL_JOB_NAME]: { attempts: FAIL_ATTEMPTS, backoffMs: FAIL_BACKOFF_MS, finalState: 'dead' },
  [CUSTOM_JOB_NAME]: { attempts: 1000, backoffMs: JOB_BACKOFF_MS, finalState: 'completed' },
};

/** Where each child writes, inside the run's folder. */
export const ackedFile = (dir: string, label: string) => join(dir, `acked-${label}.log`);
export const runLogFile = (dir: string, label: string) => join(dir, `runs-${label}.log`);
export const operatorLogFile = (dir: string) => join(dir, 'operator.log');
export const feedLogFile = (dir: string) => join(dir, 'feed.log');

/** The operator's log: `<action> <job id> <ms>` per action that took effect (whole lines only). */
function parseOperations(text: string): VerdictInput['operations'] {
  const lines = text.split('\n');
  lines.pop();
  return lines.filter((l) => l.length > 0).map((line) => {
    const [action, id, at] = line.split(' ');
    if (!action || !Number.isInteger(Number(id)) || !Number.isFinite(Number(at))) throw new Error(`unreadable operator-log line ${JSON.stringify(line)}`);
    return { action, id: Number(id), at: Number(at) };
  });
}

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
  const read = (file: string) => (existsSync(file) ? readFileSync(file, 'utf8') : '');
  return {
    acknowledged,
    jobs,
    history,
    runs,
    processes,
    integrity,
    leaseMs,
    policies: CHAOS_POLICIES,
    operations: parseOperations(read(operatorLogFile(target.dir))),
    feed: parseFeedLog(read(feedLogFile(target.dir))),
  };
}
