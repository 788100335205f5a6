/**
 * A litejobs worker in a child process (children/*-worker.ts) beside a queue
 * of this process on the same SQLite file or PostgreSQL schema: the cancel
 * and messages scenarios measure how soon a write of this process reaches a
 * handler running there.
 */
import type { ChildProcess } from 'node:child_process';
import type { Queue } from '../../src/index.js';
import { exited, forkChild, nextMessage } from './child.js';
import { sleep } from './stats.js';
import { freshDbPath, removeDb } from './tmp.js';
import { dropSchema } from '../peers/graphile.js';
import { openLitejobs, type Target } from '../peers/litejobs.js';
import { freshPgTarget } from '../peers/litejobs-pg.js';

/**
 * Starts `script` on `target` (its argv: `args`, then `litejobs <path>` or
 * `litejobs-pg <url> <schema>`), runs `measure` once it said {ready}, then
 * tells it to exit. This process opens the target first (creates and
 * migrates it), so the child never races it there.
 */
export async function withWorkerChild<T>(script: string, args: string[], target: Target, measure: (child: ChildProcess) => Promise<T>): Promise<T> {
  const { queue } = openLitejobs(target, {});
  try {
    await queue.stats();
  } finally {
    await queue.close();
  }
  const where = typeof target === 'string' ? ['litejobs', target] : ['litejobs-pg', target.connection, target.schema];
  const child = forkChild(script, [...args, ...where]);
  try {
    await nextMessage(child, (m): m is { type: 'ready' } => (m as { type?: string }).type === 'ready', 30_000);
    return await measure(child);
  } finally {
    if (child.connected) child.send({ type: 'exit' });
    await exited(child, 10_000);
  }
}

/** `run` on a fresh SQLite file in `dir`, or a fresh schema at `url`, removed afterwards. */
export async function onFreshTarget<T>(where: { dir: string } | { url: string }, run: (target: Target) => Promise<T>): Promise<T> {
  if ('dir' in where) {
    const path = freshDbPath(where.dir, 'lj-worker');
    try {
      return await run(path);
    } finally {
      removeDb(path);
    }
  }
  const target = freshPgTarget(where.url);
  try {
    return await run(target);
  } finally {
    await dropSchema(where.url, target.schema);
  }
}

/** The child's side: its target from the argv `withWorkerChild` gave it after its own arguments (`litejobs <path>` or `litejobs-pg <url> <schema>`). */
export function childTarget(argv: readonly string[]): Target {
  const [system, a, b] = argv;
  return system === 'litejobs' ? a! : { connection: a!, schema: b! };
}

/** The child's side: starts `queue`, says {ready} once its change watch is up, and closes and exits on {exit}. */
export async function serveWorker(queue: Queue): Promise<void> {
  await queue.start();
  await queue.stats(); // connected (PostgreSQL) before {ready}
  await sleep(50); // the change watch (WAL watch; LISTEN connection) is up
  process.on('message', (m: { type: string }) => {
    if (m.type === 'exit') void queue.close().finally(() => process.exit(0));
  });
  process.send!({ type: 'ready' });
}
