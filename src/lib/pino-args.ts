/**
 * What a pino-style call says: its merged object and its message, from the
 * call forms `(obj, msg?, ...args)`, `(err, msg?)` and `(msg, ...args)`; and
 * an Error as pino's serializer shows it. Shared by the handler thread's
 * logger and the recording of `ctx.log` lines.
 */
import { format } from 'node:util';

export function pinoArgs(args: readonly unknown[]): [Record<string, unknown> | undefined, string | undefined] {
  const [first, ...rest] = args;
  if (first instanceof Error) return [{ err: first }, rest.length > 0 ? formatMessage(rest) : first.message];
  if (typeof first === 'object' && first !== null) return [first as Record<string, unknown>, rest.length > 0 ? formatMessage(rest) : undefined];
  return [undefined, args.length > 0 ? formatMessage(args) : undefined];
}

function formatMessage([msg, ...args]: readonly unknown[]): string {
  return args.length > 0 ? format(msg, ...args) : String(msg);
}

/** The shape of pino's error serializer: type, message, stack, and the error's own fields (code, …). */
export function plainError(err: Error): Record<string, unknown> {
  const read = (key: string): unknown => {
    try {
      return (err as unknown as Record<string, unknown>)[key];
    } catch {
      return undefined;
    }
  };
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(err)) out[key] = read(key);
  out.type = read('name');
  out.message = read('message');
  out.stack = read('stack');
  const cause = read('cause');
  if (cause !== undefined) out.cause = cause;
  return out;
}
