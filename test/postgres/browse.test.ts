/**
 * browse() on PostgreSQL: paging through a state with any page size, filter
 * and scan budget returns each of its jobs once, in the state's order (as
 * test/property/browse.keyset.test.ts asks of the SQLite store); and a payload
 * search matches exactly the jobs the SQLite store's matches.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/store/postgres/open.js';
import { browseJobs } from '../../src/store/postgres/browse-jobs.js';
import { createSqliteStore } from '../../src/store/sqlite/sqlite-store.js';
import type { BrowseFilter, JobSummary } from '../../src/store/store.js';
import { parseWhere } from '../../src/store/where.js';
import { pgUrl } from '../helpers/postgres.js';
import { tempDbPath } from '../helpers/temp-db.js';
import { job, NOW, usePgStores } from './fixture.js';
import { nameArbitrary, reference, rowArbitrary, SEARCHES, STATES } from '../helpers/browse-model.js';

const pg = usePgStores();

describe('browse keyset paging', () => {
  it('returns every job of the state once, in its order, whatever the page size, filter and scan budget; grouped pending jobs among them', async () => {
    const schema = pg.schema();
    const db = openDatabase({ connection: pgUrl(), schema, poolSize: 2 });
    try {
      await fc.assert(
        fc.asyncProperty(
          fc.array(rowArbitrary, { maxLength: 40 }),
          // Pending more often: its pages merge two walks (grouped jobs are not in jobs_ready).
          fc.constantFrom(...STATES, 'pending', 'pending'),
          nameArbitrary,
          fc.integer({ min: 0, max: SEARCHES.length - 1 }),
          fc.integer({ min: 1, max: 9 }),
          fc.integer({ min: 1, max: 12 }),
          async (generated, state, name, searchIndex, limit, budget) => {
            const rows = generated.map((r, i) => (i % 2 === 0 ? { ...r, state } : r));
            await db.query(`TRUNCATE "${schema}".jobs CASCADE`);
            const stored = await db.rows<{ id: number }>(
              `INSERT INTO "${schema}".jobs (name, state, payload, priority, run_at, created_at, updated_at, locked_until, lease_owner, lease_token, group_key)
               SELECT name, state, payload, priority, run_at, 0, updated_at, CASE WHEN state = 'processing' THEN run_at + 1000 END,
                      CASE WHEN state = 'processing' THEN 'host:1:a' END, CASE WHEN state = 'processing' THEN 't' END, group_key
               FROM unnest($1::text[], $2::text[], $3::text[], $4::int[], $5::bigint[], $6::bigint[], $7::text[])
                 WITH ORDINALITY AS u (name, state, payload, priority, run_at, updated_at, group_key, ord)
               ORDER BY ord RETURNING id`,
              [
                rows.map((r) => r.name),
                rows.map((r) => r.state),
                rows.map((r) => JSON.stringify({ customer: r.customer, plan: r.plan })),
                rows.map((r) => r.priority),
                rows.map((r) => r.runAt),
                rows.map((r) => r.updatedAt),
                // Jobs in groups: pending ones are not in jobs_ready, and are merged in.
                rows.map((_, i) => (i % 3 === 0 ? null : `g${i % 2}`)),
              ],
            );
            const withIds = rows.map((r, i) => ({ ...r, id: stored.map((s) => s.id).sort((x, y) => x - y)[i]! }));
            const [search, matches] = SEARCHES[searchIndex]!;
            const expected = withIds.filter((r) => r.state === state && (name === undefined || r.name === name) && matches(r)).sort(reference(state, name !== undefined)).map((r) => r.id);
            const filter: BrowseFilter = { state, limit, ...(name === undefined ? {} : { name }), where: parseWhere(search) };
            const seen: JobSummary[] = [];
            let cursor: string | undefined;
            for (let pages = 0; ; pages++) {
              expect(pages).toBeLessThan(1000);
              const page = await browseJobs(db, schema, { ...filter, ...(cursor === undefined ? {} : { cursor }) }, budget);
              expect(page.jobs.length).toBeLessThanOrEqual(limit);
              seen.push(...page.jobs);
              if (page.next === null) break;
              cursor = page.next;
            }
            expect(seen.map((j) => j.id)).toEqual(expected);
          },
        ),
        { numRuns: 60 },
      );
    } finally {
      await db.close();
    }
  });

  it('merges grouped pending jobs in claim order, also when a walk stops at its scan budget', async () => {
    const schema = pg.schema();
    const store = pg.open({ schema });
    const db = openDatabase({ connection: pgUrl(), schema, poolSize: 1 });
    try {
      const match = JSON.stringify({ customer: 1 });
      // Claim order: 1 (ungrouped, no match), 2 (grouped), 3 (ungrouped), 4 (grouped, priority 1 first of all).
      await store.insert(
        [job({ runAt: NOW + 1 }), job({ runAt: NOW + 2, group: 'g', payload: match }), job({ runAt: NOW + 3, payload: match }), job({ priority: 1, group: 'h', payload: match })],
        NOW,
      );
      expect((await store.browse({ state: 'pending' })).jobs.map((j) => j.id)).toEqual([4, 1, 2, 3]);
      const pages: number[][] = [];
      let cursor: string | undefined;
      do {
        const page = await browseJobs(db, schema, { state: 'pending', limit: 5, where: parseWhere('payload.customer = 1'), ...(cursor ? { cursor } : {}) }, 1);
        pages.push(page.jobs.map((j) => j.id));
        cursor = page.next ?? undefined;
      } while (cursor);
      // A page that stopped reading the ungrouped jobs at job 1 holds no grouped job past it: job 2 comes once, after it.
      expect(pages.flat()).toEqual([4, 2, 3]);
    } finally {
      await db.close();
    }
  });

  it('pages on from a cursor, filtered or not; a cursor of another state, or altered, is refused', async () => {
    const store = pg.open();
    await store.insert(Array.from({ length: 10 }, (_, i) => job({ payload: JSON.stringify({ customer: i % 2 ? 2 : 1 }), priority: 10 - i })), NOW);
    const first = await store.browse({ state: 'pending', where: parseWhere('payload.customer = 2'), limit: 1 });
    expect(first.jobs.map((j) => j.id)).toEqual([2]);
    const all = await store.browse({ state: 'pending', limit: 3 });
    expect(all.jobs.map((j) => j.id)).toEqual([1, 2, 3]);
    expect((await store.browse({ state: 'pending', limit: 3, cursor: all.next! })).jobs.map((j) => j.id)).toEqual([4, 5, 6]);
    await expect(store.browse({ state: 'processing', cursor: all.next! })).rejects.toThrow(/cursor/);
    await expect(store.browse({ state: 'pending', cursor: 'nope' })).rejects.toThrow(/cursor/);
  });
});

/** Payloads whose fields hold every JSON type, including the awkward mixes. */
const PAYLOADS = [
  { v: 2 }, { v: 2.5 }, { v: -1 }, { v: 10 }, { v: '2' }, { v: '10' }, { v: 'b' }, { v: 'Pro plan' }, { v: 'zeta' }, { v: '' },
  { v: true }, { v: false }, { v: null }, {}, { v: { w: 3 } }, { v: [1, 2] }, { v: 1 }, { v: 0 }, { n: { v: 3 } }, { n: { v: 'x' } },
];
const CLAUSES = [
  'payload.v = 2', 'payload.v != 2', 'payload.v < 3', 'payload.v >= 2', 'payload.v > 1.5', 'payload.v <= -1',
  'payload.v = "2"', 'payload.v != b', 'payload.v < m', 'payload.v >= b', 'payload.v > ""',
  'payload.v = true', 'payload.v != true', 'payload.v = false', 'payload.v != false',
  'payload.v = null', 'payload.v != null', 'payload.v ~ PRO', 'payload.v ~ "1"', 'payload.v ~ "2"',
  'payload.v = 1', 'payload.v = 0', 'payload.n.v = 3', 'payload.n.v ~ x', 'payload.n.v != 3',
];

describe('payload search', () => {
  it('matches what the SQLite store matches, clause kind by clause kind', async () => {
    const db = tempDbPath();
    const sqlite = createSqliteStore({ path: db.path, durability: 'normal', cacheMiB: 8, busyTimeoutMs: 1000, history: false });
    const postgres = pg.open();
    try {
      const jobs = PAYLOADS.map((p) => job({ payload: JSON.stringify(p) }));
      await sqlite.insert(jobs, NOW);
      await postgres.insert(jobs, NOW);
      for (const text of CLAUSES) {
        const filter = { state: 'pending', where: parseWhere(text), limit: 500 };
        const [want, got] = await Promise.all([sqlite.browse(filter), postgres.browse(filter)]);
        expect({ text, ids: got.jobs.map((j) => j.id) }).toEqual({ text, ids: want.jobs.map((j) => j.id) });
      }
    } finally {
      await sqlite.close();
      db.cleanup();
    }
  });
});
