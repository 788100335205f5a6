/**
 * Where a chaos run keeps its jobs, and how the controller reads them
 * without going through litejobs: a fresh SQLite file (read with
 * better-sqlite3), or a fresh schema on a PostgreSQL server (read with SQL,
 * postgres-target.ts). Either must hold this run's jobs only, since the
 * verdict holds litejobs to every row it finds.
 */
import Database from 'better-sqlite3';
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { isPostgres } from '../../src/cli/open-queue.js';
import { openPostgresTarget } from './postgres-target.js';
import type { HistoryRow, JobRow } from './verdict.js';

export interface StoreContents {
  jobs: JobRow[];
  history: HistoryRow[];
  /** The store's own integrity check, its rows joined ('ok' when sound); null where there is none (PostgreSQL). */
  integrity: string | null;
}

export interface ChaosTarget {
  /** The database the children are given: a file path, or a postgres:// URL with `?schema=`. */
  readonly db: string;
  /** The folder for the children's logs. */
  readonly dir: string;
  /** What a person is told it is (in the first line, and after a FAIL). */
  readonly label: string;
  /** Checks, before any child starts, that the target is this run's own (a schema that does not exist yet). */
  prepare(): Promise<void>;
  /** Jobs so far and how many have finished, completed or dead (while the children write). */
  counts(): Promise<{ jobs: number; finished: number }>;
  /** Every job and history row, once the children have exited. */
  read(): Promise<StoreContents>;
  /** After a PASS removes what was made for the run (a temp folder, the schema); after a FAIL keeps it. Returns what was kept, for the report. */
  finish(pass: boolean): Promise<string | null>;
}

/** The run's target: `--db` as given (a path that must not exist yet, or a postgres:// URL), else a file in a fresh temp folder. */
export function openTarget(db: string | null): ChaosTarget {
  if (db !== null && isPostgres(db)) return openPostgresTarget(db, mkdtempSync(join(tmpdir(), 'litejobs-chaos-')));
  return openSqliteTarget(db);
}

function openSqliteTarget(db: string | null): ChaosTarget {
  let path: string;
  let dir: string;
  let temporary: boolean;
  if (db === null) {
    dir = mkdtempSync(join(tmpdir(), 'litejobs-chaos-'));
    path = join(dir, 'jobs.db');
    temporary = true;
  } else {
    path = resolve(db);
    if (existsSync(path)) throw new Error(`--db ${path} exists: the verdict needs a file of this run's jobs only`);
    dir = `${path}.chaos`;
    mkdirSync(dir, { recursive: false });
    temporary = false;
  }
  let reader: Database.Database | undefined;
  const closeReader = () => {
    reader?.close();
    reader = undefined;
  };
  return {
    db: path,
    dir,
    label: `file ${path}`,
    prepare: async () => {}, // checked above: the file does not exist yet
    async counts() {
      reader ??= new Database(path, { readonly: true, fileMustExist: true });
      return reader.prepare<[], { jobs: number; finished: number }>("SELECT count(*) AS jobs, count(*) FILTER (WHERE state IN ('completed', 'dead', 'cancelled')) AS finished FROM jobs").get()!;
    },
    async read() {
      closeReader();
      const file = new Database(path, { readonly: true, fileMustExist: true });
      try {
        return {
          jobs: file.prepare<[], JobRow>('SELECT id, name, state, attempts FROM jobs ORDER BY id').all(),
          history: file
            .prepare<[], HistoryRow>('SELECT id, job_id, from_state, to_state, event, at, worker_id, lease_token, error FROM job_history ORDER BY id')
            .all(),
          integrity: (file.pragma('integrity_check') as Array<{ integrity_check: string }>).map((r) => r.integrity_check).join('; '),
        };
      } finally {
        file.close();
      }
    },
    async finish(pass) {
      closeReader();
      if (pass && temporary) rmSync(dir, { recursive: true, force: true });
      return pass && temporary ? null : `${dir} (file ${path})`;
    },
  };
}
