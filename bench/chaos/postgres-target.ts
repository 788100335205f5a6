/**
 * A chaos run on PostgreSQL: a fresh schema, named by the URL's `?schema=`
 * or made up (`lj_chaos_<random>`), which must not exist yet. The children
 * get the URL with that schema; the first of them to open it creates it.
 * The controller reads it with plain SQL over a connection of its own.
 * After a PASS the schema is dropped and the logs' folder removed; after a
 * FAIL both are kept for a look.
 */
import { randomBytes } from 'node:crypto';
import { rmSync } from 'node:fs';
import { describeConnection } from '../../src/store/postgres/open.js';
import { loadPg, type Pool } from '../../src/store/postgres/driver.js';
import { checkSchema } from '../../src/store/postgres/sql.js';
import type { ChaosTarget } from './target.js';
import type { HistoryRow, JobRow } from './verdict.js';

/** SQLSTATE undefined_table: the schema's tables are not there yet (no child has opened it). */
const UNDEFINED_TABLE = '42P01';

export function openPostgresTarget(url: string, dir: string): ChaosTarget {
  const parsed = new URL(url);
  const schema = checkSchema(parsed.searchParams.get('schema') ?? `lj_chaos_${randomBytes(5).toString('hex')}`);
  parsed.searchParams.delete('schema');
  const connection = parsed.toString();
  const forChildren = new URL(connection);
  forChildren.searchParams.set('schema', schema);
  const pool: Pool = new (loadPg().Pool)({ connectionString: connection, max: 1, application_name: 'litejobs chaos' });
  pool.on('error', () => undefined); // an idle connection that broke is replaced on the next query
  const q = `"${schema}"`;
  /** The schema must be this run's own: refused (before any child starts) if it exists. */
  const fresh = async () => {
    const { rows } = await pool.query<{ n: number }>('SELECT count(*)::int AS n FROM pg_namespace WHERE nspname = $1', [schema]);
    if (rows[0]!.n > 0) throw new Error(`--db: schema ${schema} exists on ${describeConnection(connection)}: the verdict needs a schema of this run's jobs only`);
  };

  return {
    db: forChildren.toString(),
    dir,
    label: `schema ${schema} on ${describeConnection(connection)}`,
    prepare: fresh,
    async counts() {
      try {
        const { rows } = await pool.query<{ jobs: number; finished: number }>(
          `SELECT count(*)::int AS jobs, (count(*) FILTER (WHERE state IN ('completed', 'dead', 'cancelled')))::int AS finished FROM ${q}.jobs`,
        );
        return rows[0]!;
      } catch (err) {
        if ((err as { code?: string }).code === UNDEFINED_TABLE) return { jobs: 0, finished: 0 };
        throw err;
      }
    },
    async read() {
      const jobs = await pool.query<JobRow>(`SELECT id::int AS id, name, state, attempts FROM ${q}.jobs ORDER BY id`);
      const history = await pool.query<HistoryRow>(
        `SELECT id::int AS id, job_id::int AS job_id, from_state, to_state, event, at::float8 AS at, worker_id, lease_token, error
         FROM ${q}.job_history ORDER BY id`,
      );
      // PostgreSQL has no integrity check built in (see the amcheck extension): not checked.
      return { jobs: jobs.rows, history: history.rows, integrity: null };
    },
    async finish(pass) {
      try {
        if (pass) {
          await pool.query(`DROP SCHEMA IF EXISTS ${q} CASCADE`);
          rmSync(dir, { recursive: true, force: true });
          return null;
        }
        return `${dir} and the ${schema} schema on ${describeConnection(connection)} (drop it with: DROP SCHEMA ${q} CASCADE)`;
      } finally {
        await pool.end();
      }
    },
  };
}
