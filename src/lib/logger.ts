/**
 * pino, with fixed field names on child loggers:
 * `{ queue, job, jobId, attempt, workerId }`.
 */
import { pino, type Logger } from 'pino';

export type { Logger };

export function createDefaultLogger(queue: string): Logger {
  return pino({ name: 'litejobs', level: process.env.LITEJOBS_LOG_LEVEL ?? 'info' }).child({ queue });
}

/** `createQueue({ logger: false })`: a logger that writes nothing. */
export function silentLogger(): Logger {
  return pino({ level: 'silent' });
}
