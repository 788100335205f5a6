/**
 * The chaos watcher process: a `queue.watch()` consumer that logs every
 * change it is given with its cursor, and, started again after a kill,
 * resumes from the last cursor its log holds (the first one starts from the
 * beginning). The verdict then holds the feed to its promise: every change
 * the store holds once, each job's in its order, across kills.
 *
 * Log lines: `C <key> <job id> <cursor>`, `key` being `j<id>` for a creation
 * and `h<history id>` for a move; one `writeSync` each, so a kill leaves
 * whole lines, and a last line cut short is read as not written.
 *
 * `node --import tsx bench/chaos/watcher.ts '<WatcherConfig JSON>'`
 * stdout: `{"type":"ready"}`. SIGTERM: unsubscribe, close, exit 0.
 */
import { existsSync, openSync, readFileSync, writeSync } from 'node:fs';
import { pino } from 'pino';
import { queueTarget } from '../../src/cli/open-queue.js';
import { createQueue } from '../../src/index.js';
import type { WatcherConfig } from './options.js';
import { closeOnTerm, exitWithParent } from './parent-watch.js';
import { lastFeedCursor } from './feed-log.js';

exitWithParent();
const config = JSON.parse(process.argv[2] ?? '') as WatcherConfig;
const after = existsSync(config.log) ? (lastFeedCursor(readFileSync(config.log, 'utf8')) ?? '0.0') : '0.0';
const log = openSync(config.log, 'a');
const queue = createQueue({ ...queueTarget(config.db), name: config.label, logger: pino({ level: 'error' }, pino.destination(2)) });

const subscription = queue.watch({ after }).subscribe({
  next: (c) => {
    const historyId = c.cursor.split('.')[1];
    const key = c.from === null && c.event === 'job.enqueue' ? `j${c.id}` : `h${historyId}`;
    writeSync(log, `C ${key} ${c.id} ${c.cursor}\n`);
  },
  error: (err: Error) => {
    process.stderr.write(`watch failed: ${err.stack ?? err.message}\n`);
    process.exit(1);
  },
});

closeOnTerm(() => {
  subscription.unsubscribe();
  return queue.close();
}, log);
await queue.ping();
process.stdout.write(`${JSON.stringify({ type: 'ready' })}\n`);
