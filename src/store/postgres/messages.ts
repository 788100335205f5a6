/** The PostgreSQL store's mailboxes (queue.signal, ctx.waitFor): the job_messages table of migration 019, with the SQLite store's semantics (sqlite/messages.ts). */
import type { Store } from '../store.js';
import type { Database } from './open.js';
import { statement } from './sql.js';

export function createPostgresMessages(db: Database, schema: string): Pick<Store, 'sendMessage' | 'takeMessage' | 'hasMessage' | 'jobIdByKey'> {
  const s = { send: statement('message-send', schema), take: statement('message-take', schema), waiting: statement('message-waiting', schema), byKey: statement('job-by-key', schema) };
  return {
    sendMessage: async ({ id, topic, data, key, at, refused }) => {
      const [row] = await db.rows<{ sent: boolean; known: boolean; state: string | null }>(s.send, [id, topic, data, at, refused, key]);
      if (row!.sent) return 'sent';
      if (row!.state === null) return 'not-found';
      return refused.includes(row!.state) ? 'refused' : row!.known ? 'duplicate' : 'refused';
    },
    // One autocommitted statement: the message is marked taken as it is recorded as the wait's step.
    takeMessage: async ({ id, token, topic, step }) => {
      const [row] = await db.rows<{ held: boolean; data: string | null }>(s.take, [id, token, topic, step.name, step.attempt, step.at]);
      return row!.held ? row!.data : false;
    },
    hasMessage: async (id, topic) => (await db.rows<{ waiting: boolean }>(s.waiting, [id, topic]))[0]!.waiting,
    jobIdByKey: async (key) => {
      const [row] = await db.rows<{ id: string | number }>(s.byKey, [key]);
      return row === undefined ? null : Number(row.id);
    },
  };
}
