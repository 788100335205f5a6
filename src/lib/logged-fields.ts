/**
 * A log line's fields as the queue's pino logger writes them: its `redact`
 * paths and its serializers applied (pino's own `asJson`, exported through
 * `pino.symbols`), its base fields and bindings left out. A job's stored log
 * lines are served over HTTP and on the page: a field the logger redacts must
 * not reach them in clear.
 */
import { pino, type Logger } from 'pino';
import { plainError } from './pino-args.js';

/** What pino adds to every line: not the call's own fields. */
const PINO_KEYS = new Set(['level', 'time', 'pid', 'hostname', 'name', 'msg']);

type AsJson = (obj: object, msg: string | undefined, level: number, time: string) => string;

export function loggedFields(logger: Logger, level: string, fields: Record<string, unknown> | undefined): Record<string, unknown> | undefined {
  if (fields === undefined || Object.keys(fields).length === 0) return fields;
  // Top-level errors under a key with no serializer of the logger's (pino's own is on `err`) shown as that one shows them.
  const serializers = ((logger as unknown as Record<symbol, Record<string, unknown> | undefined>)[pino.symbols.serializersSym] ?? {}) as Record<string, unknown>;
  const input: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(fields)) input[key] = value instanceof Error && typeof serializers[key] !== 'function' ? plainError(value) : value;
  const asJson = (logger as unknown as Record<symbol, AsJson | undefined>)[pino.symbols.asJsonSym];
  if (typeof asJson !== 'function') return input;
  const line = JSON.parse(asJson.call(logger, input, undefined, logger.levels.values[level] ?? 30, '')) as Record<string, unknown>;
  const bound = logger.bindings();
  for (const key of Object.keys(line)) {
    if ((PINO_KEYS.has(key) || Object.hasOwn(bound, key)) && !Object.hasOwn(fields, key)) delete line[key];
  }
  return line;
}
