/**
 * The error the machine layer raises for a machine the queue cannot use.
 *
 * The machines layer stays pure: xstate and nothing else, never sqlite, rxjs
 * or pino. `src/errors.ts` is the one exception, and an acceptable one: it is
 * the error registry, with no I/O and no dependencies, and importing it makes
 * a machine error a `LitejobsError` like every other error litejobs raises,
 * so callers branch on `code` (`LJ_ERR_MACHINE`) whichever layer threw.
 */
import { LitejobsError } from '../src/errors.js';

/** A machine the queue cannot use: it does not compile to a transition table, or misuses the job machine's extension points. */
export class MachineCompileError extends LitejobsError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('LJ_ERR_MACHINE', message, options);
  }
}
