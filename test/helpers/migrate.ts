/**
 * For the `litejobs migrate` tests: a SQLite worker holding a lease in a
 * child process, and reads of the PostgreSQL schema the copy wrote.
 */
import Database from 'better-sqlite3';
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { afterEachTest } from './after-each.js';
import { pgClient } from './postgres.js';
import { nodeArgs } from './node-args.js';

const HOLDER = fileURLToPath(new URL('../fixtures/hold-lease.ts', import.meta.url));
const holders: ChildProcess[] = [];

afterEachTest(() => {
  for (const p of holders.splice(0)) if (p.exitCode === null && p.signalCode === null) p.kill('SIGKILL');
});

/** Starts a worker that claims the file's `stuck` jobs and never finishes them; resolves once one runs. */
export async function holdLease(path: string, leaseMs: number): Promise<{ id: number; kill(): Promise<void> }> {
  const proc = spawn(process.execPath, nodeArgs(HOLDER, path, String(leaseMs)), { stdio: ['ignore', 'pipe', 'pipe'] });
  holders.push(proc);
  let stderr = '';
  proc.stderr!.setEncoding('utf8').on('data', (s: string) => (stderr += s));
  const id = await new Promise<number>((resolve, reject) => {
    createInterface({ input: proc.stdout! }).once('line', (line) => resolve((JSON.parse(line) as { id: number }).id));
    proc.once('exit', () => reject(new Error(`hold-lease exited: ${stderr}`)));
  });
  return {
    id,
    async kill() {
      const exited = once(proc, 'exit');
      proc.kill('SIGKILL');
      await exited;
    },
  };
}

/** Rows of one statement on the test server (a connection of its own). */
export async function pgRows<R>(sql: string, values: unknown[] = []): Promise<R[]> {
  const client = await pgClient();
  try {
    return (await client.query<R>(sql, values)).rows;
  } finally {
    await client.end();
  }
}

/** The `migrate` progress rows of a schema, by field (`upto`, `pass_open`, …). */
export async function progressRows(schema: string): Promise<Record<string, number>> {
  const rows = await pgRows<{ key: string; value: string }>(`SELECT key, value FROM "${schema}".queue_meta WHERE key LIKE 'migrate %'`);
  return Object.fromEntries(rows.map((r) => [r.key.slice(r.key.lastIndexOf(' ') + 1), Number(r.value)]));
}

const JOB_COLUMNS =
  'id, name, state, payload, key, priority, run_at, attempts, last_error, ctx, retry, timeout_ms, result, progress, lease_owner, lease_token, locked_until, created_at, updated_at';
const HISTORY_COLUMNS = 'id, job_id, from_state, to_state, event, candidate, at, worker_id, lease_token, error';

/** Every value as text (PostgreSQL's driver gives bigint as text), nulls as null: rows from both stores compare equal. */
const asText = (rows: Array<Record<string, unknown>>) =>
  rows.map((r) => Object.fromEntries(Object.entries(r).map(([k, v]) => [k, v === null ? null : String(v)])));

/** Every column both stores share, of every job and history row (history tombstones left out), in id order. */
export function sqliteTables(path: string): { jobs: Array<Record<string, unknown>>; history: Array<Record<string, unknown>> } {
  const db = new Database(path, { readonly: true });
  try {
    return {
      jobs: asText(db.prepare(`SELECT ${JOB_COLUMNS} FROM jobs ORDER BY id`).all() as Array<Record<string, unknown>>),
      history: asText(db.prepare(`SELECT ${HISTORY_COLUMNS} FROM job_history WHERE job_id <> 0 ORDER BY id`).all() as Array<Record<string, unknown>>),
    };
  } finally {
    db.close();
  }
}

export async function pgTables(schema: string): Promise<{ jobs: Array<Record<string, unknown>>; history: Array<Record<string, unknown>> }> {
  return {
    jobs: asText(await pgRows(`SELECT ${JOB_COLUMNS} FROM "${schema}".jobs ORDER BY id`)),
    history: asText(await pgRows(`SELECT ${HISTORY_COLUMNS} FROM "${schema}".job_history ORDER BY id`)),
  };
}
