/**
 * The chaos check on PostgreSQL, short: the real tool (`npm run chaos -- --db
 * postgres://…`) in a child process, four worker processes and a producer on
 * one fresh schema, six worker kills close together. It must pass with the
 * same figures as on SQLite (nothing lost, nothing completed twice, no
 * overlapping runs, no crash; PostgreSQL has no integrity check to run), and
 * drop its schema after the PASS.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { pgClient, pgUrl, usePgSchema } from '../helpers/postgres.js';
import { tsxArgs } from '../helpers/tsx.js';

const TOOL = fileURLToPath(new URL('../../bench/chaos/run.ts', import.meta.url));
const KILLS = 6;
const WORKERS = 4;

let child: ChildProcess | undefined;
afterEach(() => {
  if (child && child.exitCode === null && child.signalCode === null) child.kill('SIGKILL'); // its own children follow it (parent-watch.ts)
});

function figures(line: string): Record<string, string> {
  return Object.fromEntries([...line.matchAll(/(\w+)=(\S+)/g)].map((m) => [m[1]!, m[2]!]));
}

describe('npm run chaos on PostgreSQL, short', () => {
  // Dropped after the test in any case; the tool itself drops it after a PASS.
  const newSchema = usePgSchema();

  it(
    `passes ${KILLS} kills among ${WORKERS} worker processes with every acknowledged job completed exactly once`,
    async () => {
      const started = Date.now();
      const schema = newSchema();
      const db = new URL(pgUrl());
      db.searchParams.set('schema', schema);
      child = spawn(
        process.execPath,
        tsxArgs(TOOL, '--db', db.toString(), '--workers', String(WORKERS), '--kills', String(KILLS), '--interval', '300-900', '--drain-timeout', '30', '--quiet'),
        { stdio: ['ignore', 'pipe', 'pipe'] },
      );
      let stdout = '';
      let stderr = '';
      child.stdout!.setEncoding('utf8').on('data', (s: string) => (stdout += s));
      child.stderr!.setEncoding('utf8').on('data', (s: string) => (stderr += s));
      const [code] = (await once(child, 'exit')) as [number | null];

      const report = `exit ${code}\nstdout:\n${stdout}\nstderr:\n${stderr}`;
      expect(code, report).toBe(0);
      const lines = stdout.trim().split('\n').filter((l) => l.startsWith('chaos: '));
      expect(lines, report).toHaveLength(1);
      const f = figures(lines[0]!);
      expect(f, report).toMatchObject({ lost: '0', stuck: '0', doubled: '0', overlaps: '0', unrun: '0', crashes: '0', integrity: 'n/a', verdict: 'PASS' });
      expect(Number(f.kills), report).toBeGreaterThanOrEqual(KILLS);
      expect(Number(f.acknowledged), report).toBeGreaterThan(0);
      expect(Number(f.completed), report).toBeGreaterThanOrEqual(Number(f.acknowledged));
      // The kills hit work in flight: leases of killed workers came back through the sweeper.
      expect(Number(f.expired), report).toBeGreaterThan(0);

      const admin = await pgClient();
      try {
        const { rows } = await admin.query('SELECT 1 FROM pg_namespace WHERE nspname = $1', [schema]);
        expect(rows, 'the schema is dropped after a PASS').toEqual([]);
      } finally {
        await admin.end();
      }
      console.info(`[chaos.postgres.short] ${lines[0]} (test ${((Date.now() - started) / 1000).toFixed(1)}s)`);
    },
    120_000,
  );
});
