/**
 * The chaos check's verdict on hand-made runs: a clean run passes, and each
 * kind of failure, planted alone in that run, is caught and named.
 */
import { describe, expect, it } from 'vitest';
import { verdict, type HandlerRun, type HistoryRow, type JobRow, type ProcessLifetime, type VerdictInput } from '../../bench/chaos/verdict.js';

const LEASE = 1500;

function life(proc: string, spawnedAt: number, killedAt: number | null, role: 'worker' | 'producer' = 'worker'): ProcessLifetime {
  return {
    proc,
    role,
    pid: 1000 + Number(proc.slice(1)),
    spawnedAt,
    killedAt,
    stopRequested: killedAt === null,
    exitedAt: (killedAt ?? 90_000) + 5,
    exitCode: killedAt === null ? 0 : null,
    signal: killedAt === null ? null : 'SIGKILL',
  };
}

function run(proc: string, jobId: number, attempt: number, start: number, end: number | null, failed = false): HandlerRun {
  return { proc, pid: 1000 + Number(proc.slice(1)), jobId, attempt, start, end, failed };
}

const POLICIES = {
  chaos: { attempts: 1000, backoffMs: 20, finalState: 'completed' as const },
  'chaos-fail': { attempts: 3, backoffMs: 300, finalState: 'dead' as const },
};

/** An always-failing job: three claims, each failure followed by its backoff, then dead. */
function failedThrice(jobId: number, at: number): HistoryRow[] {
  const rows: HistoryRow[] = [];
  for (let attempt = 1; attempt <= 3; attempt++) {
    const t = at + (attempt - 1) * 400;
    rows.push(step(jobId, 'pending', 'processing', 'job.claim', t));
    rows.push(step(jobId, 'processing', attempt < 3 ? 'failed' : 'dead', 'job.fail', t + 5));
    if (attempt < 3) rows.push(step(jobId, 'failed', 'pending', 'xstate.after.retryDelay.job.failed', t + 305));
  }
  return rows;
}

let historyId = 0;
function step(jobId: number, from: string, to: string, event: string, at: number): HistoryRow {
  return { id: ++historyId, job_id: jobId, from_state: from, to_state: to, event, at, worker_id: null, lease_token: null, error: null };
}

/** A claim and its completion. */
function ran(jobId: number, at: number): HistoryRow[] {
  return [step(jobId, 'pending', 'processing', 'job.claim', at), step(jobId, 'processing', 'completed', 'job.complete', at + 10)];
}

/**
 * Three acknowledged jobs, all completed once. Worker w2 is killed at 5000
 * while running job 2 (cut short: no end line) and just after finishing job 3
 * (its completion never committed); both come back through lease expiry and
 * run again on w3. Job 5 always fails: three runs on w1, 400 ms apart
 * (its backoff is 300 ms), then dead. w1 and w3 live to the end; p1 is the
 * producer.
 */
function cleanRun(): VerdictInput {
  const jobs: JobRow[] = [
    { id: 1, name: 'chaos', state: 'completed', attempts: 1 },
    { id: 2, name: 'chaos', state: 'completed', attempts: 2 },
    { id: 3, name: 'chaos', state: 'completed', attempts: 2 },
    { id: 5, name: 'chaos-fail', state: 'dead', attempts: 3 },
  ];
  const expire = (jobId: number) => [
    step(jobId, 'pending', 'processing', 'job.claim', 4900),
    step(jobId, 'processing', 'failed', 'job.expire', 6600),
    step(jobId, 'failed', 'pending', 'xstate.after.retryDelay.job.failed', 6620),
  ];
  const history = [...ran(1, 1000), ...expire(2), ...ran(2, 6700), ...expire(3), ...ran(3, 6700), ...failedThrice(5, 2000)];
  const runs = [
    run('w1', 1, 1, 1001, 1004),
    run('w2', 2, 1, 4990, null), // cut short by the kill at 5000
    run('w2', 3, 1, 4991, 4996), // returned, killed before its completion committed
    run('w3', 2, 2, 6701, 6705),
    run('w3', 3, 2, 6702, 6706),
    ...[1, 2, 3].map((attempt) => run('w1', 5, attempt, 2000 + (attempt - 1) * 400, 2004 + (attempt - 1) * 400, true)),
  ];
  const processes = [life('p1', 0, null, 'producer'), life('w1', 0, null), life('w2', 0, 5000), life('w3', 5100, null)];
  return { acknowledged: [1, 2, 3, 5], jobs, history, runs, processes, integrity: 'ok', leaseMs: LEASE, policies: POLICIES };
}

describe('the chaos verdict', () => {
  it('passes a clean run, and counts its kill and its re-run after the kill', () => {
    const v = verdict(cleanRun());
    expect(v).toMatchObject({
      pass: true,
      kills: 1,
      producerKills: 0,
      acknowledged: 4,
      completed: 3,
      dead: 1,
      lost: [],
      stuck: [],
      doubled: [],
      overAttempts: [],
      earlyRetries: [],
      overlaps: [],
      liveReruns: [],
      unrun: [],
      crashes: [],
      integrityOk: true,
      cutShort: 1,
      expired: 2,
    });
    expect(v.reruns).toEqual([run('w2', 3, 1, 4991, 4996)]);
  });

  it('catches an acknowledged job that is missing, or not completed, or has no completion in its history', () => {
    const missing = cleanRun();
    missing.acknowledged = [...missing.acknowledged, 4];
    expect(verdict(missing)).toMatchObject({ pass: false, lost: [4] });

    const notCompleted = cleanRun();
    notCompleted.jobs = notCompleted.jobs.map((j) => (j.id === 2 ? { ...j, state: 'dead' } : j));
    expect(verdict(notCompleted)).toMatchObject({ pass: false, lost: [2] });

    const noCompletion = cleanRun();
    noCompletion.history = noCompletion.history.filter((h) => !(h.job_id === 1 && h.to_state === 'completed'));
    expect(verdict(noCompletion)).toMatchObject({ pass: false, lost: [1] });
  });

  it('catches an unacknowledged job left unfinished', () => {
    const input = cleanRun();
    input.jobs = [...input.jobs, { id: 4, name: 'chaos', state: 'pending', attempts: 0 }];
    expect(verdict(input)).toMatchObject({ pass: false, stuck: [4], lost: [] });
  });

  it('catches a job completed twice', () => {
    const input = cleanRun();
    input.history = [...input.history, step(1, 'processing', 'completed', 'job.complete', 7000)];
    expect(verdict(input)).toMatchObject({ pass: false, doubled: [1] });
  });

  it('catches two runs of one job overlapping while both processes were alive', () => {
    const input = cleanRun();
    input.runs = [...input.runs, run('w3', 1, 1, 1002, 1003)]; // inside w1's run of job 1; both processes alive
    const v = verdict(input);
    expect(v.pass).toBe(false);
    expect(v.overlaps).toEqual([{ jobId: 1, a: run('w1', 1, 1, 1001, 1004), b: run('w3', 1, 1, 1002, 1003) }]);
  });

  it('ends a run cut short at its kill: no overlap with a later run, an overlap with one that began before the kill', () => {
    // cleanRun has w2's run of job 2 with no end line and w3's run from 6701: no overlap (asserted above).
    const input = cleanRun();
    input.runs = [...input.runs, run('w3', 2, 1, 4995, 4998)]; // began while w2 was still alive and running job 2
    const v = verdict(input);
    expect(v.pass).toBe(false);
    expect(v.overlaps).toEqual([{ jobId: 2, a: run('w2', 2, 1, 4990, null), b: run('w3', 2, 1, 4995, 4998) }]);
  });

  it('reports a re-run in a live process apart from re-runs after a kill, and a completion with no run behind it', () => {
    const live = cleanRun();
    live.runs = [...live.runs, run('w1', 2, 1, 3000, 3004)]; // a successful run whose process lived on
    expect(verdict(live)).toMatchObject({ pass: true, liveReruns: [run('w1', 2, 1, 3000, 3004)] });
    expect(verdict(live).reruns).toHaveLength(1);

    const unrun = cleanRun();
    unrun.runs = unrun.runs.filter((r) => !(r.jobId === 1));
    expect(verdict(unrun)).toMatchObject({ pass: false, unrun: [1] });
  });

  it('catches a process that died without being killed, or did not stop cleanly', () => {
    const died = cleanRun();
    died.processes = died.processes.map((p) => (p.proc === 'w3' ? { ...p, stopRequested: false, exitCode: 1 } : p));
    expect(verdict(died)).toMatchObject({ pass: false, crashes: [expect.objectContaining({ proc: 'w3' })] });

    const hung = cleanRun();
    hung.processes = hung.processes.map((p) => (p.proc === 'w1' ? { ...p, exitCode: null, signal: 'SIGKILL' } : p));
    expect(verdict(hung)).toMatchObject({ pass: false, crashes: [expect.objectContaining({ proc: 'w1' })] });
  });

  it('holds an always-failing job to dead, to its attempts, and to its backoff', () => {
    const completed = cleanRun();
    completed.jobs = completed.jobs.map((j) => (j.id === 5 ? { ...j, state: 'completed' } : j));
    expect(verdict(completed)).toMatchObject({ pass: false, lost: [5] });

    const fourth = cleanRun();
    fourth.history = [...fourth.history, step(5, 'dead', 'pending', 'job.retry', 4000), ...ran(5, 4100)];
    expect(verdict(fourth)).toMatchObject({ pass: false, overAttempts: [5] });

    // A claim handed back before it started (a buffer past its horizon) spent no attempt.
    const handedBack = cleanRun();
    const firstClaim = handedBack.history.find((h) => h.job_id === 5 && h.event === 'job.claim')!;
    handedBack.history = [
      ...handedBack.history.filter((h) => h.id < firstClaim.id),
      step(5, 'pending', 'processing', 'job.claim', firstClaim.at - 50),
      step(5, 'processing', 'pending', 'job.release', firstClaim.at - 40),
      ...handedBack.history.filter((h) => h.id >= firstClaim.id),
    ].sort((a, b) => a.at - b.at || a.id - b.id);
    expect(verdict(handedBack)).toMatchObject({ overAttempts: [] });

    const early = cleanRun();
    // The second claim 120 ms after the first failure: a promotion written before it was due.
    early.history = early.history.map((h) => (h.job_id === 5 && h.event === 'job.claim' && h.at === 2400 ? { ...h, at: 2125 } : h));
    expect(verdict(early)).toMatchObject({ pass: false, earlyRetries: [{ jobId: 5, gapMs: 120, backoffMs: 300 }] });
  });

  it('fails when integrity_check is not ok', () => {
    const input = cleanRun();
    input.integrity = '*** in database main ***; Page 7: btreeInitPage() returns error code 11';
    expect(verdict(input)).toMatchObject({ pass: false, integrityOk: false, lost: [], doubled: [], overlaps: [] });
  });

  describe('with an operator and a watcher', () => {
    /** The clean run's changes as a watcher logs them: each job's creation, then its moves by history id. */
    const feedOf = (input: VerdictInput) => [
      ...input.jobs.map((j) => ({ key: `j${j.id}`, jobId: j.id, cursor: `${j.id}.0` })),
      ...input.history.map((h) => ({ key: `h${h.id}`, jobId: h.job_id, cursor: `9.${h.id}` })),
    ];

    it('passes a job the operator cancelled, removed, or ran again, and an exact feed', () => {
      const input = cleanRun();
      // Job 1 was run again once it completed: it completes twice. Job 3 was cancelled while pending, job 2 removed.
      input.history = [...input.history, step(1, 'completed', 'pending', 'job.rerun', 9000), ...ran(1, 9100), step(3, 'completed', 'pending', 'job.rerun', 9200), step(3, 'pending', 'cancelled', 'job.cancel', 9300)];
      input.jobs = input.jobs.filter((j) => j.id !== 2).map((j) => (j.id === 3 ? { ...j, state: 'cancelled' } : j));
      input.history = input.history.filter((h) => h.job_id !== 2);
      input.runs = [...input.runs, run('w3', 1, 1, 9101, 9105)];
      input.operations = [{ action: 'runAgain', id: 1, at: 9000 }, { action: 'runAgain', id: 3, at: 9200 }, { action: 'cancel', id: 3, at: 9300 }, { action: 'remove', id: 2, at: 9400 }];
      input.feed = feedOf(input);
      const v = verdict(input);
      expect(v).toMatchObject({ pass: true, lost: [], doubled: [], operations: 4, feed: { lost: [], doubled: [], outOfOrder: [] } });
      // Without the operator's log, a job that vanished and a job that ended cancelled are lost (a run again is in the history itself).
      expect(verdict({ ...input, operations: [] })).toMatchObject({ pass: false, lost: [2, 3], doubled: [] });
      // A second completion with no run again before it is still finished twice.
      expect(verdict({ ...input, history: [...input.history, ...ran(1, 9500)] })).toMatchObject({ pass: false, doubled: [1] });
    });

    it('still fails on two runs of one job at once, whatever the operator did', () => {
      const input = cleanRun();
      input.operations = [{ action: 'cancel', id: 1, at: 1002 }, { action: 'runAgain', id: 1, at: 1002 }];
      input.runs = [...input.runs, run('w3', 1, 1, 1003, 1010)];
      expect(verdict(input)).toMatchObject({ pass: false, overlaps: [{ jobId: 1 }] });
    });

    it('fails on a change the feed lost, gave twice, or gave after a later change of its job', () => {
      const input = cleanRun();
      const feed = feedOf(input);
      const move = feed.find((e) => e.key.startsWith('h'))!.key;
      const lost = verdict({ ...input, feed: feed.filter((e) => e.key !== move) });
      expect(lost).toMatchObject({ pass: false, feed: { lost: [move] } });
      const doubled = verdict({ ...input, feed: [...feed, feed[5]!] });
      expect(doubled).toMatchObject({ pass: false, feed: { doubled: [feed[5]!.key] } });
      const moves = feed.filter((e) => e.jobId === 1 && e.key.startsWith('h'));
      const swapped = feed.map((e) => (e === moves[0] ? moves[1]! : e === moves[1] ? moves[0]! : e));
      expect(verdict({ ...input, feed: swapped })).toMatchObject({ pass: false, feed: { outOfOrder: [`${moves[0]!.key} (job 1)`] } });
      // A job's creation after its moves.
      const late = [...feed.filter((e) => e.key !== 'j1'), feed.find((e) => e.key === 'j1')!];
      expect(verdict({ ...input, feed: late })).toMatchObject({ pass: false, feed: { outOfOrder: ['j1 (job 1)'] } });
    });
  });
});
