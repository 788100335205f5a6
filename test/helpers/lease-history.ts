/**
 * Checks a queue's job history in the multi-process tests: whatever the store,
 * a job is held under at most one lease at a time.
 */

export interface HistoryRow {
  id: number;
  job_id: number;
  from_state: string | null;
  to_state: string;
  event: string;
  worker_id: string | null;
  lease_token: string | null;
}

/**
 * Walks each job's history in id order and checks that leases never overlap:
 * a claim (pending → processing) is only allowed when no lease is held, and
 * the one exit from processing that follows carries the claim's token.
 * Returns every violation found (empty when the history is sound).
 */
export function leaseViolations(rows: readonly HistoryRow[], customExits: Iterable<string> = []): string[] {
  const problems: string[] = [];
  const held = new Map<number, string | null>(); // job → token held now (null: none)
  const tokensSeen = new Map<number, Set<string>>();
  // A custom machine's events out of processing (`customExits`) are exits too.
  const EXITS = new Set(['job.complete', 'job.fail', 'job.expire', 'job.release', 'job.sleep', 'job.wait', 'job.cancel', ...customExits]);
  for (const r of rows) {
    const current = held.get(r.job_id) ?? null;
    if (r.event === 'job.claim') {
      if (r.from_state !== 'pending' || r.to_state !== 'processing') problems.push(`#${r.id} job ${r.job_id}: claim ${r.from_state}→${r.to_state}`);
      if (current !== null) problems.push(`#${r.id} job ${r.job_id}: claimed under ${r.lease_token} while lease ${current} still held`);
      if (!r.lease_token) problems.push(`#${r.id} job ${r.job_id}: claim without a lease token`);
      const seen = tokensSeen.get(r.job_id) ?? new Set<string>();
      if (r.lease_token && seen.has(r.lease_token)) problems.push(`#${r.id} job ${r.job_id}: lease token ${r.lease_token} reused`);
      if (r.lease_token) seen.add(r.lease_token);
      tokensSeen.set(r.job_id, seen);
      held.set(r.job_id, r.lease_token);
    } else if (r.event === 'job.progress' || r.event === 'job.publish') {
      // A progress update or a published value is no move: it lands only while the lease it carries holds the job.
      const what = r.event === 'job.progress' ? 'progress' : 'a published value';
      if (r.from_state !== 'processing' || r.to_state !== 'processing') problems.push(`#${r.id} job ${r.job_id}: ${what} ${r.from_state}→${r.to_state}`);
      if (current === null || r.lease_token !== current) problems.push(`#${r.id} job ${r.job_id}: ${what} under ${r.lease_token}, lease held is ${current ?? 'none'}`);
    } else if (r.from_state === 'processing') {
      if (!EXITS.has(r.event)) problems.push(`#${r.id} job ${r.job_id}: unexpected exit event ${r.event}`);
      if (current === null) problems.push(`#${r.id} job ${r.job_id}: ${r.event} out of processing with no lease held`);
      else if (r.lease_token !== current) problems.push(`#${r.id} job ${r.job_id}: ${r.event} carries token ${r.lease_token}, lease held is ${current}`);
      held.set(r.job_id, null);
    } else {
      if (r.to_state === 'processing') problems.push(`#${r.id} job ${r.job_id}: entered processing by ${r.event}`);
      if (current !== null) problems.push(`#${r.id} job ${r.job_id}: ${r.event} ${r.from_state}→${r.to_state} while lease ${current} held`);
    }
  }
  for (const [job, token] of held) if (token !== null) problems.push(`job ${job}: lease ${token} never released`);
  return problems;
}
