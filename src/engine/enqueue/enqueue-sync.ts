/**
 * `enqueueSync` and `enqueueManySync`: synchronous enqueues, for use inside
 * the application's own better-sqlite3 transaction (`createQueue({ database })`).
 * Every job is checked and built here, before anything is written, exactly as
 * `enqueue` does; the store then writes them all or nothing.
 */
import { NotSupportedError, ValidationError } from '../../errors.js';
import type { InsertResult, NewJob } from '../../store/store.js';
import type { Engine } from '../core/engine.js';
import { SYNC_NOT_SUPPORTED } from './enqueue-paths.js';
import type { EnqueueInput } from '../core/engine.js';
import type { EnqueueItemOptions, EnqueueManyOptions, EnqueueOptions } from '../core/options.js';
import { rejectUnknownOptions } from '../../lib/validate.js';
import { validatePayloadSync, type PayloadSchema } from '../core/payload-schema.js';

export interface SyncEnqueue {
  enqueueSync(name: string, payload: unknown, options?: EnqueueOptions): InsertResult;
  enqueueManySync(items: ReadonlyArray<{ name: string; payload: unknown; options?: EnqueueItemOptions }>, options?: EnqueueManyOptions): InsertResult[];
}

const CLIENT_REFUSED = 'enqueueSync writes with the queue\'s SQLite database (createQueue({ database })); client is for enqueue on PostgreSQL';

/** `open()` throws QueueClosedError once the queue is closed. */
export function createSyncEnqueue(engine: Engine, open: () => void, schemas: ReadonlyMap<string, PayloadSchema>): SyncEnqueue {
  const supported = () => {
    open();
    if (!engine.store.insertSync) {
      throw new NotSupportedError(SYNC_NOT_SUPPORTED);
    }
  };

  /**
   * The one place the synchronous path turns an input into the row to
   * insert: every check `enqueue` makes (engine.newJob) runs here, before
   * anything is written, and throws inside the caller's transaction.
   */
  const buildJob = (input: EnqueueInput, now: number, index?: number): NewJob => {
    const schema = typeof input.name === 'string' ? schemas.get(input.name) : undefined;
    if (schema === undefined) return engine.newJob(input, now);
    const target = index === undefined ? { job: input.name as string } : { job: input.name as string, index };
    return engine.newJob({ ...input, payload: validatePayloadSync(schema, input.payload, target) }, now);
  };

  return {
    enqueueSync(name, payload, options) {
      supported();
      if (typeof options === 'object' && options !== null && 'client' in options) throw new ValidationError(CLIENT_REFUSED);
      const job = buildJob({ name, payload, options }, engine.clock.now());
      return engine.enqueueSync([job])[0]!;
    },
    enqueueManySync(items, options) {
      supported();
      if (!Array.isArray(items)) throw new ValidationError('enqueueManySync takes an array of { name, payload, options }');
      if (options !== undefined) {
        rejectUnknownOptions('enqueueManySync options', options, ['client']);
        if (options.client !== undefined) throw new ValidationError(CLIENT_REFUSED);
      }
      const now = engine.clock.now();
      const jobs = items.map((item, i) => buildJob({ name: item?.name, payload: item?.payload, options: item?.options }, now, i));
      return engine.enqueueSync(jobs);
    },
  };
}
