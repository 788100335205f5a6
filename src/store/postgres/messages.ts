/** What a job exchanges with the world on the PostgreSQL store: its mailbox and the values it publishes, tables of migration 019, with the SQLite store's semantics (sqlite/messages.ts). */
import type { Store } from '../store.js';
import type { Database } from './open.js';
import { statement } from './sql.js';
import { checkStorable } from './storable.js';
import { MAILBOX_MAX, PUBLISHED_KEYS_MAX } from '../contract/run-data.js';

export function createPostgresMessages(db: Database, schema: string, history: boolean, published: () => Promise<unknown>): Pick<Store, 'sendMessage' | 'takeMessage' | 'hasMessage' | 'unseenMessages' | 'jobIdByKey' | 'publish' | 'publishedValues'> {
  const s = { send: statement('message-send', schema), take: statement('message-take', schema), waiting: statement('message-waiting', schema), byKey: statement('job-by-key', schema), keyed: statement('message-keyed', schema), unseen: statement('message-unseen', schema), publish: statement('value-publish', schema), values: statement('values', schema) };
  const publishOne = async (id: number, token: string, key: string, value: string, at: number): Promise<'written' | 'lost' | 'full'> => {
    checkStorable([{ name: `(value ${key})`, payload: value }]);
    const [row] = await db.rows<{ n: number; written: boolean }>(s.publish, [id, token, key, value, at, history, PUBLISHED_KEYS_MAX]);
    if (row!.n !== 1) return 'lost';
    if (!row!.written) return 'full';
    // Watchers and waiters in other processes hear of it now (claim loops do not: it is no new work).
    await published();
    return 'written';
  };
  /**
   * A job's publishes one at a time. The statement counts the job's keys in
   * the snapshot it took when it began, before it waited for the job's row:
   * publishes of one job running together each counted the keys before the
   * others' and went past PUBLISHED_KEYS_MAX (103 of 150 at once). Only the
   * lease holder writes (the token), and it is in this process.
   */
  const publishing = new Map<number, Promise<unknown>>();
  return {
    publish: (id, token, key, value, at) => {
      const mine = (publishing.get(id) ?? Promise.resolve()).then(
        () => publishOne(id, token, key, value, at),
        () => publishOne(id, token, key, value, at),
      );
      publishing.set(id, mine);
      const forget = () => {
        if (publishing.get(id) === mine) publishing.delete(id);
      };
      mine.then(forget, forget);
      return mine;
    },
    publishedValues: async (id) => (await db.rows<{ key: string; value: string; at: string | number }>(s.values, [id])).map((r) => ({ key: r.key, value: r.value, at: Number(r.at) })),
    sendMessage: async ({ id, topic, data, key, at, refused }) => {
      let row: { sent: boolean; known: boolean; state: string | null };
      try {
        [row] = (await db.rows<{ sent: boolean; known: boolean; state: string | null }>(s.send, [id, topic, data, at, refused, key, MAILBOX_MAX])) as [typeof row];
      } catch (err) {
        // The job was deleted between the statement's read of it and its insert (a foreign key violation).
        if ((err as { cause?: { code?: string }; code?: string }).code === '23503' || (err as { cause?: { code?: string } }).cause?.code === '23503') return 'not-found';
        throw err;
      }
      if (row.sent) return 'sent';
      if (row.state === null) return 'not-found';
      if (refused.includes(row.state)) return 'refused';
      if (row.known) return 'duplicate';
      // The same key sent at the same moment: the insert waited for the other's commit, which the statement's
      // snapshot does not see. A fresh read does.
      if (key !== null && (await db.rows<{ found: boolean }>(s.keyed, [id, key]))[0]!.found) return 'duplicate';
      return 'full';
    },
    // One autocommitted statement: the message is marked taken as it is recorded as the wait's step.
    takeMessage: async ({ id, token, topic, step }) => {
      const [row] = await db.rows<{ held: boolean; data: string | null; recorded: string | null; recorded_attempt: number | null }>(s.take, [id, token, topic, step.name, step.attempt, step.at]);
      const { held, data, recorded, recorded_attempt: attempt } = row!;
      if (attempt !== null) return { result: recorded, replayed: attempt };
      if (!held) return false;
      return data === null ? null : { result: `{"message":${data}}`, replayed: null };
    },
    hasMessage: async (id, topic) => (await db.rows<{ waiting: boolean }>(s.waiting, [id, topic]))[0]!.waiting,
    unseenMessages: async (names, limit) => (await db.rows<{ id: string | number; topic: string }>(s.unseen, [names, limit])).map((r) => ({ id: Number(r.id), topic: r.topic })),
    jobIdByKey: async (key) => {
      const [row] = await db.rows<{ id: string | number }>(s.byKey, [key]);
      return row === undefined ? null : Number(row.id);
    },
  };
}
