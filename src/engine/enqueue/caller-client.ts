/**
 * The caller's own database client, given to enqueue so that its jobs commit
 * with the caller's transaction: checked here, before anything is written.
 */
import { ValidationError } from '../../errors.js';
import type { CallerClient } from '../../store/store.js';
import type { EnqueueItemOptions, EnqueueOptions } from '../core/options.js';

export function checkClient(client: unknown): CallerClient {
  if (typeof client !== 'object' || client === null || typeof (client as CallerClient).query !== 'function') {
    throw new ValidationError('enqueue client: must be a pg Client or PoolClient (an object with query())');
  }
  // A pool runs each query on whichever connection is free: outside the caller's transaction.
  if ('totalCount' in client && 'idleCount' in client) {
    throw new ValidationError('enqueue client: a pg Pool is not a transaction; pass the client of yours: const client = await pool.connect(); await client.query(\'BEGIN\')');
  }
  return client as CallerClient;
}

/** The client, checked, apart from the job's own options (which are data and go to the store). */
export function splitClient(options: EnqueueOptions | undefined): { client: CallerClient | undefined; options: EnqueueItemOptions | undefined } {
  if (typeof options !== 'object' || options === null || !('client' in options)) return { client: undefined, options };
  const { client, ...rest } = options;
  return { client: client === undefined ? undefined : checkClient(client), options: rest };
}
