/**
 * The process registry's record: one per process running workers (its rules,
 * rows and heartbeat intervals: process-records.ts).
 */
export interface WorkerProcessRecord {
  /** The lease owner id its claims write (`host:pid:random`). */
  owner: string;
  host: string;
  pid: number;
  /** Its worker slots (the queue's `concurrency`). */
  concurrency: number;
  /** The job names it runs. */
  names: string[];
  /** The litejobs version it runs. */
  version: string;
  /** When its queue started, ms. */
  startedAt: number;
  /** Its last heartbeat, ms. */
  seenAt: number;
  /** How often it renews `seenAt`, ms. */
  heartbeatMs: number;
}
