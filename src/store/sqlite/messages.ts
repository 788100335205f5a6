/** What a job exchanges with the world on the SQLite store: its mailbox (queue.signal, ctx.waitFor) and the values it publishes (ctx.publish), tables of migration 021. */
import type Database from 'better-sqlite3';
import type { PublishedRecord, Store, WaitStep } from '../store.js';
import { sql } from './sql.js';
import { MAILBOX_MAX, PUBLISHED_KEYS_MAX } from '../contract/run-data.js';

export function createSqliteMessages(db: Database.Database, recordHistory: boolean): Pick<Store, 'sendMessage' | 'takeMessage' | 'hasMessage' | 'unseenMessages' | 'jobIdByKey' | 'publish' | 'publishedValues'> {
  const s = {
    send: db.prepare(sql('message-send')),
    state: db.prepare('SELECT state FROM jobs WHERE id = @id').pluck(),
    take: db.prepare(sql('message-take')).pluck(),
    recorded: db.prepare('SELECT result, attempt FROM job_steps WHERE job_id = @id AND name = @name'),
    save: db.prepare(sql('save-step')),
    holds: db.prepare(sql('holds-lease')).pluck(),
    waiting: db.prepare(sql('message-waiting')).pluck(),
    byKey: db.prepare(sql('find-by-key')),
    keyed: db.prepare('SELECT 1 FROM job_messages WHERE job_id = @id AND key = @key').pluck(),
    unseen: db.prepare(sql('message-unseen')),
    publish: db.prepare(sql('value-publish')),
    publishHistory: db.prepare(sql('insert-publish-history')),
    values: db.prepare(sql('values')),
  };
  // The message is marked taken in the transaction that records it as the wait's step: taken once, never lost.
  const takeTx = db.transaction((t: Parameters<Store['takeMessage']>[0]): WaitStep | null | false => {
    const data = s.take.get({ id: t.id, token: t.token, topic: t.topic, name: t.step.name }) as string | undefined;
    if (data === undefined) {
      const recorded = s.recorded.get({ id: t.id, name: t.step.name }) as { result: string | null; attempt: number } | undefined;
      if (recorded !== undefined) return { result: recorded.result, replayed: recorded.attempt };
      return s.holds.get({ id: t.id, token: t.token }) === undefined ? false : null;
    }
    const result = `{"message":${data}}`;
    s.save.run({ id: t.id, token: t.token, name: t.step.name, result, wakeAt: null, attempt: t.step.attempt, at: t.step.at });
    return { result, replayed: null };
  });
  const sendTx = db.transaction((m: Parameters<Store['sendMessage']>[0]) => {
    if (s.send.run({ id: m.id, topic: m.topic, data: m.data, key: m.key, at: m.at, refused: JSON.stringify(m.refused), room: MAILBOX_MAX }).changes === 1) return 'sent' as const;
    const state = s.state.get({ id: m.id }) as string | undefined;
    if (state === undefined) return 'not-found' as const;
    if (m.refused.includes(state)) return 'refused' as const;
    return m.key !== null && s.keyed.get({ id: m.id, key: m.key }) !== undefined ? ('duplicate' as const) : ('full' as const);
  });
  // A value and its history row (a change of the feed) land together, under the lease.
  const publishTx = db.transaction((id: number, token: string, key: string, value: string, at: number): 'written' | 'lost' | 'full' => {
    if (s.publish.run({ id, token, key, value, at, room: PUBLISHED_KEYS_MAX }).changes !== 1) return s.holds.get({ id, token }) === undefined ? 'lost' : 'full';
    if (recordHistory) s.publishHistory.run({ id, token, key, value, at });
    return 'written';
  });
  return {
    publish: async (id, token, key, value, at) => publishTx.immediate(id, token, key, value, at),
    publishedValues: async (id) => s.values.all({ id }) as PublishedRecord[],
    sendMessage: async (m) => sendTx.immediate(m),
    takeMessage: async (t) => takeTx.immediate(t),
    hasMessage: async (id, topic) => s.waiting.get({ id, topic }) !== undefined,
    unseenMessages: async (names, limit) => s.unseen.all({ names: JSON.stringify(names), limit }) as Array<{ id: number; topic: string }>,
    jobIdByKey: async (key) => (s.byKey.get({ key }) as { id: number } | undefined)?.id ?? null,
  };
}
