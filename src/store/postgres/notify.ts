/**
 * Change notifications between store instances sharing one schema: a write
 * that gives another instance's claim loop something to do (a new job, a job
 * back in a waiting state, a pause lifted) sends NOTIFY on the schema's
 * channel inside its transaction, with this instance's id as the payload, so
 * it is delivered only if the write commits, and the sender can ignore its
 * own.
 *
 * One dedicated LISTEN connection per store, opened the first time anyone
 * asks (`externalChange()` or `watchChanges()`). Its socket is unref'd: it
 * never keeps the process alive. After it breaks it reconnects, backing off,
 * and then reports a change once, since notifications sent meanwhile are lost.
 */
import type { Clock, TimerHandle } from '../../lib/clock.js';
import { loadPg, type Client, type ConnectionConfig } from './driver.js';
import { checkSchema, render, sqlFile } from './sql.js';

/**
 * The payload's ending (after the sender's id) that says a job finished
 * (completed, dead, cancelled): heard by those waiting for a job's result
 * (`watchFinished`), not by claim loops, which have nothing new to claim.
 */
export const FINISHED_SUFFIX = '.finished';

/**
 * The payload's ending that says a running job published a value
 * (ctx.publish): heard as a finished job is, by the change feed's readers
 * and those waiting for a value, never by claim loops.
 */
export const VALUE_SUFFIX = '.value';

const MIN_BACKOFF_MS = 100;
const MAX_BACKOFF_MS = 10_000;

export interface Listener {
  /** True once after a notification from another instance (or a reconnect) since the last call. */
  externalChange(): boolean;
  /** Calls `onChange` on each such notification (with its sender's id; none after a reconnect); returns the function that stops it. */
  watch(onChange: (from?: string) => void): () => void;
  /** Calls `onFinished` when another instance finished a job (and after a reconnect); returns the function that stops it. */
  watchFinished(onFinished: () => void): () => void;
  close(): Promise<void>;
}

export interface ListenerOptions {
  config: ConnectionConfig;
  channel: string;
  /** This store's id: notifications carrying it are its own. */
  instanceId: string;
  clock: Clock;
  onWarning?: (message: string) => void;
  where: string;
}

export function createListener(o: ListenerOptions): Listener {
  const watchers = new Set<(from?: string) => void>();
  const finishWatchers = new Set<() => void>();
  let changed = false;
  let client: Client | undefined;
  let started = false;
  let closed = false;
  let retry: TimerHandle | undefined;
  let backoff = MIN_BACKOFF_MS;
  /** Set once the connection broke: the next successful LISTEN reports a change. */
  let missed = false;

  const signal = (from?: string) => {
    changed = true;
    for (const onChange of [...watchers]) onChange(from);
  };
  const finished = () => {
    for (const onFinished of [...finishWatchers]) onFinished();
  };

  const scheduleReconnect = (reason: string) => {
    if (closed || retry !== undefined) return;
    o.onWarning?.(`database ${o.where}: the change listener stopped (${reason}); reconnecting in ${backoff} ms, polling meanwhile`);
    missed = true;
    retry = o.clock.setTimeout(() => {
      retry = undefined;
      void connect();
    }, backoff);
    (retry as { unref?: () => void }).unref?.();
    backoff = Math.min(MAX_BACKOFF_MS, backoff * 2);
  };

  const connect = async (): Promise<void> => {
    const c = new (loadPg().Client)(o.config);
    client = c;
    let failed = false;
    const fail = (reason: string) => {
      if (failed || client !== c) return;
      failed = true;
      client = undefined;
      c.removeAllListeners();
      c.on('error', () => undefined); // a late error of a dropped connection goes nowhere
      void c.end().catch(() => undefined);
      scheduleReconnect(reason);
    };
    c.on('error', (err) => fail(err.message));
    c.on('end', () => fail('connection ended'));
    c.on('notification', (message) => {
      if (message.channel !== o.channel) return;
      if (message.payload?.endsWith(FINISHED_SUFFIX) || message.payload?.endsWith(VALUE_SUFFIX)) {
        if (!message.payload.startsWith(`${o.instanceId}.`)) finished();
      } else if (message.payload !== o.instanceId) signal(message.payload);
    });
    try {
      await c.connect();
      c.connection?.stream?.unref?.();
      await c.query(render(sqlFile('listen'), o.channel, 'listen.sql', { channel: checkSchema(o.channel) }));
    } catch (err) {
      fail((err as Error).message);
      return;
    }
    if (closed) {
      await c.end().catch(() => undefined);
      return;
    }
    backoff = MIN_BACKOFF_MS;
    if (missed) {
      missed = false;
      signal();
      finished();
    }
  };

  const start = () => {
    if (started || closed) return;
    started = true;
    void connect();
  };

  return {
    externalChange() {
      start();
      const was = changed;
      changed = false;
      return was;
    },
    watch(onChange) {
      start();
      watchers.add(onChange);
      return () => void watchers.delete(onChange);
    },
    watchFinished(onFinished) {
      start();
      finishWatchers.add(onFinished);
      return () => void finishWatchers.delete(onFinished);
    },
    async close() {
      closed = true;
      watchers.clear();
      finishWatchers.clear();
      if (retry !== undefined) o.clock.clearTimeout(retry);
      retry = undefined;
      const c = client;
      client = undefined;
      if (c) {
        c.removeAllListeners();
        c.on('error', () => undefined);
        await c.end().catch(() => undefined);
      }
    },
  };
}
