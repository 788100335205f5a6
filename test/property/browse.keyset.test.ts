/**
 * The dashboard's listing (store.browse): paging through a state with any
 * page size, filter and scan budget returns each of its jobs exactly once, in
 * the state's documented order — over random tables that mix every state,
 * priorities, equal due times, and pending jobs not yet in the claim index.
 */
import Database from 'better-sqlite3';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createQueue } from '../../src/index.js';
import { browseJobs } from '../../src/store/sqlite/browse-jobs.js';
import type { BrowseFilter, JobSummary } from '../../src/store/store.js';
import { parseWhere } from '../../src/store/where.js';
import { silentLogger } from '../helpers/silent-logger.js';
import { tempDbPath } from '../helpers/temp-db.js';
import { nameArbitrary, reference, rowArbitrary, SEARCHES, STATES, type Row } from '../helpers/browse-model.js';
import { propertyRuns } from '../helpers/property-runs.js';

/** A litejobs file whose rows are written straight into the table (every column a real job of that state has). */
function seed(path: string, rows: Row[]): Array<Row & { id: number }> {
  const db = new Database(path);
  const insert = db.prepare(
    `INSERT INTO jobs (name, state, payload, priority, run_at, created_at, updated_at, locked_until, lease_owner, lease_token, indexed)
     VALUES (@name, @state, @payload, @priority, @runAt, 0, @updatedAt, @lockedUntil, @owner, @token, @indexed) RETURNING id`,
  );
  const stored = db.transaction(() =>
    rows.map((r) => {
      // Only pending jobs committed on their own are left out of the claim index.
      const indexed = r.state === 'pending' && !r.indexed ? 0 : 1;
      const processing = r.state === 'processing';
      const { id } = insert.get({
        ...r,
        payload: JSON.stringify({ customer: r.customer, plan: r.plan }),
        lockedUntil: processing ? r.runAt + 1000 : null,
        owner: processing ? 'host:1:a' : null,
        token: processing ? 't' : null,
        indexed,
      }) as { id: number };
      return { ...r, id, indexed: indexed === 1 };
    }),
  )();
  // The claim index's mark sits below every unindexed row (they are the newest, as in real files).
  const firstUnindexed = stored.find((r) => !r.indexed)?.id;
  db.prepare(`UPDATE queue_meta SET value = ? WHERE key = 'indexed_upto'`).run(firstUnindexed === undefined ? stored.length : firstUnindexed - 1);
  db.close();
  return stored;
}

function pageThrough(db: Database.Database, filter: Omit<BrowseFilter, 'cursor'>, budget: number): JobSummary[] {
  const seen: JobSummary[] = [];
  let cursor: string | undefined;
  for (let pages = 0; pages < 10_000; pages++) {
    const page = browseJobs(db, { ...filter, ...(cursor === undefined ? {} : { cursor }) }, budget);
    expect(page.jobs.length).toBeLessThanOrEqual(filter.limit ?? 100);
    seen.push(...page.jobs);
    if (page.next === null) return seen;
    cursor = page.next;
  }
  throw new Error('paging did not end');
}

describe('store.browse keyset paging', () => {
  it('returns every job of the state once, in its order, whatever the page size, filter and scan budget', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(rowArbitrary, { minLength: 0, maxLength: 60 }),
        fc.constantFrom(...STATES),
        nameArbitrary,
        fc.integer({ min: 0, max: SEARCHES.length - 1 }),
        fc.integer({ min: 1, max: 9 }),
        fc.integer({ min: 1, max: 12 }),
        async (generated, state, name, searchIndex, limit, budget) => {
          // Half the rows in the state listed, so that pages, filters and budgets all come into play.
          const rows = generated.map((r, i) => (i % 2 === 0 ? { ...r, state } : r));
          // Unindexed pending rows are the newest: put them last, as commits on their own would.
          const ordered = [...rows.filter((r) => r.indexed || r.state !== 'pending'), ...rows.filter((r) => !r.indexed && r.state === 'pending')];
          const db = tempDbPath();
          try {
            await createQueue({ path: db.path, logger: silentLogger }).close();
            const stored = seed(db.path, ordered);
            const conn = new Database(db.path);
            conn.exec(`CREATE INDEX IF NOT EXISTS jobs_finished ON jobs (state, updated_at) WHERE state = 'completed' OR state = 'dead' OR state = 'cancelled'`);
            const [search, matches] = SEARCHES[searchIndex]!;
            const expected = stored
              .filter((r) => r.state === state && (name === undefined || r.name === name) && matches(r))
              .sort(reference(state, name !== undefined))
              .map((r) => r.id);
            const got = pageThrough(conn, { state, limit, ...(name === undefined ? {} : { name }), where: parseWhere(search) }, budget);
            conn.close();
            expect(got.map((j) => j.id)).toEqual(expected);
            for (const j of got) expect(j.state).toBe(state);
          } finally {
            db.cleanup();
          }
        },
      ),
      { numRuns: propertyRuns(150) },
    );
  });

  it('a filtered page that runs out of budget comes back short with a cursor, and the next pages find the rest', async () => {
    const db = tempDbPath();
    try {
      await createQueue({ path: db.path, logger: silentLogger }).close();
      const rows = Array.from({ length: 10 }, (_, i): Row => ({ name: 'a', state: 'dead', priority: 0, runAt: 1, updatedAt: i, customer: i % 2 ? 2 : 1, plan: 'Pro', indexed: true }));
      const stored = seed(db.path, rows);
      const conn = new Database(db.path);
      conn.exec(`CREATE INDEX jobs_finished ON jobs (state, updated_at) WHERE state = 'completed' OR state = 'dead' OR state = 'cancelled'`);
      const where = parseWhere('payload.customer = 2');
      const first = browseJobs(conn, { state: 'dead', where, limit: 100 }, 3);
      expect(first.jobs.map((j) => j.id)).toEqual([10, 8]);
      expect(first.scanned).toBe(3);
      expect(first.next).not.toBeNull();
      expect(pageThrough(conn, { state: 'dead', where, limit: 100 }, 3).map((j) => j.id)).toEqual(stored.filter((r) => r.customer === 2).map((r) => r.id).reverse());
      conn.close();
    } finally {
      db.cleanup();
    }
  });

  it('refuses a cursor it did not give, and a cursor of a state ordered by other keys', async () => {
    const db = tempDbPath();
    const queue = createQueue({ path: db.path, logger: silentLogger });
    try {
      for (let i = 0; i < 3; i++) await queue.enqueue('a', { i });
      const conn = new Database(db.path);
      const first = browseJobs(conn, { state: 'pending', limit: 1 });
      expect(first.next).not.toBeNull();
      expect(() => browseJobs(conn, { state: 'pending', cursor: 'not-a-cursor' })).toThrow(/cursor/);
      expect(() => browseJobs(conn, { state: 'processing', cursor: first.next! })).toThrow(/cursor/);
      conn.close();
    } finally {
      await queue.close();
      db.cleanup();
    }
  });
});
