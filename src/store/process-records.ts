/**
 * The process registry's rows, as every store reads and writes them: one per
 * process running workers, so that the dashboard can show a process (its
 * host, pid, slots, uptime) and not only the lease owner ids its claims
 * write. A process renews its row every `heartbeatMs`; one that has not for
 * PROCESS_GONE_BEATS of its intervals is gone (killed, or cut off from the
 * database), whatever its row still says.
 */
import type { WorkerProcessRecord } from './contract/processes.js';


/** Heartbeat intervals a process may miss before it counts as gone. */
export const PROCESS_GONE_BEATS = 3;
/**
 * Heartbeat intervals after which a quiet row is deleted (by another
 * process's heartbeat). Far more than PROCESS_GONE_BEATS: the deleting
 * process compares with its own clock, and one running a few seconds ahead
 * must not delete the rows of processes that are alive.
 */
export const PROCESS_DELETE_BEATS = 20;

/** The record's row values, named as the statements bind them (`names` as JSON text). */
export function processRow(p: WorkerProcessRecord) {
  return {
    owner: p.owner,
    host: p.host,
    pid: p.pid,
    concurrency: p.concurrency,
    names: JSON.stringify(p.names),
    version: p.version,
    startedAt: p.startedAt,
    seenAt: p.seenAt,
    heartbeatMs: p.heartbeatMs,
  };
}

/** A row as read back (`names` as JSON text). */
export type ProcessRow = ReturnType<typeof processRow>;

export function toProcessRecord(row: ProcessRow): WorkerProcessRecord {
  const names = JSON.parse(row.names) as unknown;
  return { ...row, names: Array.isArray(names) ? names.map(String) : [] };
}
