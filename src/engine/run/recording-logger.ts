/**
 * `ctx.log`: the queue's pino child logger, unchanged for whatever reads it
 * (levels, `isLevelEnabled`, `bindings`, …), whose level methods also hand
 * each line to the run's job log. Lines at info and above are recorded
 * whatever the logger writes (a queue made with `logger: false` writes
 * nothing and still records them); debug and trace only when the logger's
 * level lets them through.
 */
import type { Logger } from '../../lib/logger.js';
import { pinoArgs } from '../../lib/pino-args.js';

const LEVELS = ['trace', 'debug', 'info', 'warn', 'error', 'fatal'] as const;
const ALWAYS: ReadonlySet<string> = new Set(['info', 'warn', 'error', 'fatal']);

/** Receives one logged line: the merged object (bindings of children made from ctx.log, then the call's object) and the message. */
export type RecordLine = (level: string, fields: Record<string, unknown> | undefined, message: string | undefined) => void;

/** Whether a line at `level` goes into the job's log. */
export function recordsLevel(logger: Pick<Logger, 'isLevelEnabled'>, level: string): boolean {
  return ALWAYS.has(level) || logger.isLevelEnabled(level);
}

export function recordingLogger(target: Logger, record: RecordLine, bindings?: Record<string, unknown>): Logger {
  const own = new Map<PropertyKey, unknown>();
  for (const level of LEVELS) {
    own.set(level, (...args: unknown[]) => {
      if (recordsLevel(target, level)) {
        try {
          const [obj, msg] = pinoArgs(args);
          record(level, bindings || obj ? { ...bindings, ...obj } : undefined, msg);
        } catch (err) {
          // Recording never fails a handler; an object that cannot be read (a getter that throws) leaves a line that says so.
          try {
            record(level, { logError: `the log object could not be read: ${err instanceof Error ? err.message : String(err)}` }, typeof args[1] === 'string' ? args[1] : undefined);
          } catch {
            // nothing more to do
          }
        }
      }
      // Read at each call: a level set on ctx.log (`ctx.log.level = 'debug'`) swaps pino's methods.
      return (target[level] as (...a: unknown[]) => void)(...args);
    });
  }
  own.set('child', (more: Record<string, unknown>, options?: object) => recordingLogger(target.child(more, options), record, { ...bindings, ...more }));
  return new Proxy(target, { get: (t, prop) => (own.has(prop) ? own.get(prop) : Reflect.get(t, prop)) });
}
