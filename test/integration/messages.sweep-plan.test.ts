/**
 * The lease sweep's look for parked jobs with an unseen message runs every
 * few seconds in every started queue: SQLite reads it from the messages not
 * yet taken (indexed, few), never by a walk of the jobs table, whose size
 * would then set the cost of every sweep.
 */
import Database from 'better-sqlite3';
import { readFileSync } from 'node:fs';
import { expect, it } from 'vitest';
import { createQueue } from '../../src/index.js';
import { silentLogger } from '../helpers/silent-logger.js';
import { tempDbPath } from '../helpers/temp-db.js';

it('reads parked jobs with an unseen message from the mailbox index, not by scanning jobs', async () => {
  const file = tempDbPath();
  try {
    await createQueue({ path: file.path, logger: silentLogger }).close();
    const db = new Database(file.path, { readonly: true });
    const text = readFileSync(new URL('../../src/store/sqlite/sql/message-unseen.sql', import.meta.url), 'utf8');
    const plan = (db.prepare(`EXPLAIN QUERY PLAN ${text}`).all({ names: '["a"]', limit: 100 }) as Array<{ detail: string }>).map((r) => r.detail);
    db.close();
    expect(plan[0]).toBe('SCAN m USING INDEX job_messages_box');
    expect(plan.filter((step) => /^SCAN j\b/.test(step))).toEqual([]);
  } finally {
    file.cleanup();
  }
});

it('deletes a job’s messages, taken or not, through an index: every deleted job pays a probe, never a scan', async () => {
  const file = tempDbPath();
  try {
    await createQueue({ path: file.path, logger: silentLogger }).close();
    const db = new Database(file.path, { readonly: true });
    const plan = (db.prepare('EXPLAIN QUERY PLAN DELETE FROM job_messages WHERE job_id = ?').all(1) as Array<{ detail: string }>).map((r) => r.detail);
    db.close();
    expect(plan).toEqual(['SEARCH job_messages USING INDEX job_messages_job (job_id=?)']);
  } finally {
    file.cleanup();
  }
});
