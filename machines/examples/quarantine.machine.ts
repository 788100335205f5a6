/**
 * An example of a machine of one's own, built on the base job machine.
 *
 * A handler that fails with a `ValidationError` was handed bad data: running
 * it again will not help, and sending it to `dead` would bury it with the
 * genuinely broken jobs. This machine parks such a job in an extra state,
 * `quarantined`, until a human decides:
 *
 *   processing ──job.fail (ValidationError)──► quarantined
 *   quarantined ──job.approve──► pending   (fresh attempt budget)
 *   quarantined ──job.cancel───► cancelled
 *   quarantined ──after 7 days─► dead      (nobody looked at it)
 *
 * Every other transition is the base machine's, with the same retry policy.
 *
 * Pure: imports xstate only.
 */
import { assign, type AnyStateMachine } from 'xstate';
import { createJobMachine, type JobMachineContext } from '../job.machine.js';
import type { ErrorInfo, RetryPolicy } from '../policy.js';

/** How long a quarantined job waits for a human before it goes to `dead`: 7 days. */
export const QUARANTINE_EXPIRY_MS = 7 * 24 * 60 * 60 * 1000;

/** The error name that sends a failed attempt to quarantine. */
export const QUARANTINE_ERROR_NAME = 'ValidationError';

type AnyEvent = { type: string } & Record<string, unknown>;

function errorOf(event: AnyEvent): ErrorInfo | undefined {
  const error = event.error as ErrorInfo | undefined;
  return error && typeof error === 'object' ? error : undefined;
}

/**
 * Builds the quarantine machine for one retry policy.
 *
 * @example
 * import { createQueue, defineJob, ValidationError } from 'litejobs';
 * import { createQuarantineMachine } from './machines/examples/quarantine.machine.js';
 *
 * const importRows = defineJob({
 *   name: 'import-rows',
 *   retry: { attempts: 5, backoff: { type: 'exponential', delay: 1000 } },
 *   handler: async (rows: Row[]) => {
 *     if (!rows.every(isValidRow)) throw new ValidationError('row 7 has no id');
 *     await db.insert(rows);
 *   },
 *   machine: createQuarantineMachine,
 * });
 * const queue = createQueue({ path: 'jobs.db', jobs: [importRows] });
 * // after fixing the data, a human lets the job run again with a fresh attempt budget:
 * await queue.send(jobId, { type: 'job.approve' });
 */
export function createQuarantineMachine(policy?: RetryPolicy): AnyStateMachine {
  return createJobMachine(policy, {
    on: {
      // Tried before the base machine's own job.fail candidates.
      processing: {
        'job.fail': { guard: 'isBadData', target: 'quarantined', actions: 'quarantine' },
      },
    },
    states: {
      quarantined: {
        after: { quarantineExpiry: { target: 'dead' } },
        on: {
          'job.approve': { target: 'pending', actions: 'approve' },
          'job.cancel': { target: 'cancelled' },
        },
      },
    },
    guards: {
      isBadData: ({ event }) => errorOf(event)?.name === QUARANTINE_ERROR_NAME,
    },
    actions: {
      quarantine: assign(({ event }: { event: AnyEvent }) => ({ lastError: errorOf(event) ?? null })),
      approve: assign((): Partial<JobMachineContext> => ({ attempts: 0, retryDelay: 0 })),
    },
    delays: {
      quarantineExpiry: () => QUARANTINE_EXPIRY_MS,
    },
  });
}
