/**
 * The chaos check on PostgreSQL, short: the real tool (`npm run chaos -- --db
 * postgres://…`) in a child process, four worker processes and a producer on
 * one fresh schema, six worker kills close together. It must pass with the
 * same figures as on SQLite (nothing lost, nothing completed twice, no
 * overlapping runs, no crash; PostgreSQL has no integrity check to run), and
 * drop its schema after the PASS.
 */
import { describe, expect, it } from 'vitest';
import { useChaosTool } from '../helpers/chaos-run.js';
import { pgClient, pgUrl, usePgSchema } from '../helpers/postgres.js';

const KILLS = 6;
const WORKERS = 4;

const runChaos = useChaosTool();

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
      const { figures: f, line, report } = await runChaos(['--db', db.toString(), '--workers', String(WORKERS), '--kills', String(KILLS), '--interval', '300-900', '--drain-timeout', '30']);
      expect(f, report).toMatchObject({ lost: '0', stuck: '0', doubled: '0', overAttempts: '0', earlyRetries: '0', overlaps: '0', unrun: '0', crashes: '0', lostChanges: '0', doubledChanges: '0', outOfOrderChanges: '0', integrity: 'n/a', verdict: 'PASS' });
      expect(Number(f.kills), report).toBeGreaterThanOrEqual(KILLS);
      expect(Number(f.acknowledged), report).toBeGreaterThan(0);
      // One job in ten always fails and ends dead after its attempts.
      expect(Number(f.dead), report).toBeGreaterThan(0);
      // Every acknowledged job ended as its policy says, or as the operator left it (cancelled, removed).
      expect(Number(f.completed) + Number(f.dead) + Number(f.cancelled) + Number(f.removed), report).toBeGreaterThanOrEqual(Number(f.acknowledged));
      // The operator acted and the watcher read the feed.
      expect(Number(f.operations), report).toBeGreaterThan(0);
      expect(Number(f.changes), report).toBeGreaterThan(Number(f.acknowledged));
      // The kills hit work in flight: leases of killed workers came back through the sweeper.
      expect(Number(f.expired), report).toBeGreaterThan(0);

      const admin = await pgClient();
      try {
        const { rows } = await admin.query('SELECT 1 FROM pg_namespace WHERE nspname = $1', [schema]);
        expect(rows, 'the schema is dropped after a PASS').toEqual([]);
      } finally {
        await admin.end();
      }
      console.info(`[chaos.postgres.short] ${line} (test ${((Date.now() - started) / 1000).toFixed(1)}s)`);
    },
    120_000,
  );
});
