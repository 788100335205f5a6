/**
 * Picks and opens the store a queue's options name. Today a path is a SQLite
 * file; a store of one's own comes in through `createQueue({ store })`.
 */
import type { Clock } from '../lib/clock.js';
import type { Logger } from '../lib/logger.js';
import { createSqliteStore } from './sqlite/sqlite-store.js';
import type { Store } from './store.js';

export interface StoreChoice {
  path: string;
  durability: 'normal' | 'full';
  cacheMiB: number;
  busyTimeoutMs: number;
  history: boolean;
  /** Build the index of finished jobs by age now (the queue deletes finished jobs after a while). */
  retentionIndex: boolean;
}

export function openStore(choice: StoreChoice, clock: Clock, logger: Logger): Store {
  return createSqliteStore({ ...choice, clock, onWarning: (message) => logger.warn(message) });
}
