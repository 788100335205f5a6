/**
 * `litejobs migrate` carries each job's log lines (ctx.log) from a SQLite
 * file to PostgreSQL, batch by batch with their jobs, with their numbers and
 * the count of dropped lines: a line appended there follows them.
 */
import { expect, it } from 'vitest';
import { copyJobs } from '../../src/migrate/copy.js';
import { openSource } from '../../src/migrate/source.js';
import { openTarget } from '../../src/migrate/target.js';
import { createSqliteStore } from '../../src/store/sqlite/sqlite-store.js';
import type { LogAppend } from '../../src/store/store.js';
import { pgUrl } from '../helpers/postgres.js';
import { tempDbPath } from '../helpers/temp-db.js';
import { job, NOW, usePgStores } from './fixture.js';

const pg = usePgStores();
const append = (id: number, messages: string[]): LogAppend => ({
  id,
  attempt: 1,
  skipped: 0,
  lines: messages.map((message) => ({ at: NOW, level: 'info', message, fields: '{"k":"v"}' })),
});

it('copies every job’s log lines, in batches that split the jobs', async () => {
  const file = tempDbPath();
  const schema = pg.schema();
  try {
    const sqlite = createSqliteStore({ path: file.path, durability: 'normal', cacheMiB: 8, busyTimeoutMs: 1000, history: true });
    const ids = (await sqlite.insert([job(), job(), job()], NOW)).map((r) => r.id);
    // The first job keeps its newest 2 of 3 lines: one dropped.
    await sqlite.appendLogs([append(ids[0]!, ['a', 'b', 'c']), append(ids[2]!, ['only'])], 2);
    const before = await Promise.all(ids.map((id) => sqlite.jobLogs(id, { after: 0, limit: 10 })));
    await sqlite.close();

    const source = openSource(file.path);
    const target = openTarget({ connection: pgUrl(), schema, identity: source.identity });
    try {
      const summary = await copyJobs(source, target, { batch: 2, reserve: 0, allowRunning: true, now: () => NOW });
      expect(summary).toMatchObject({ copied: 3, verified: true });
    } finally {
      source.close();
      await target.close();
    }

    const store = pg.open({ schema });
    const after = await Promise.all(ids.map((id) => store.jobLogs(id, { after: 0, limit: 10 })));
    expect(after).toEqual(before);
    expect(after.map((p) => [p.lines.length, p.dropped])).toEqual([[2, 1], [0, 0], [1, 0]]);
    await store.appendLogs([append(ids[0]!, ['d'])], 2);
    expect((await store.jobLogs(ids[0]!, { after: 0, limit: 10 })).lines.map((l) => [l.seq, l.message])).toEqual([[3, 'c'], [4, 'd']]);
  } finally {
    file.cleanup();
  }
});
